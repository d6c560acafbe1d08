package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
)

// TestIndexBuildPassesItsStartToThePlan: the plan gets the build's start from the workflow's
// clock (activities never read it) and --allow-future; a continued run keeps the first start.
func TestIndexBuildPassesItsStartToThePlan(t *testing.T) {
	start := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC) // newEnv's start time
	tests := []struct {
		name  string
		allow bool
	}{
		{name: "default"},
		{name: "allow future", allow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := indexEnv(t)
			var got activities.PlanIndexInput
			env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.PlanIndexInput) (activities.PlanIndexResult, error) {
					got = in
					return threePeriods, nil
				}).Once()
			shardActivities(env, 0)
			env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", MaxShardsPerRun: 1, AllowFuture: tt.allow})
			var can *workflow.ContinueAsNewError
			if err := env.GetWorkflowError(); !errors.As(err, &can) {
				t.Fatalf("err = %v, want continue-as-new", err)
			}
			if !got.Started.Equal(start) || got.AllowFuture != tt.allow {
				t.Fatalf("plan input started %v allow %v, want %v %v", got.Started, got.AllowFuture, start, tt.allow)
			}
			var next IndexBuildInput
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
				t.Fatal(err)
			}
			if !next.Started.Equal(start) || next.AllowFuture != tt.allow {
				t.Fatalf("continued with started %v allow %v", next.Started, next.AllowFuture)
			}
		})
	}
}
