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
	"github.com/asofrag/asof/schemas"
)

// TestIndexBuildPassesItsStartToThePlan: the plan gets the build's start from the workflow's
// clock (activities never read it), --allow-future and --replace; a continued run keeps them.
func TestIndexBuildPassesItsStartToThePlan(t *testing.T) {
	start := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC) // newEnv's start time
	tests := []struct {
		name    string
		allow   bool
		replace bool
	}{
		{name: "default"},
		{name: "allow future", allow: true},
		{name: "replace", replace: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := indexEnv(t)
			legacyPlan(env)
			var got activities.PlanIndexInput
			env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.PlanIndexInput) (activities.PlanIndexResult, error) {
					got = in
					return threePeriods, nil
				}).Once()
			shardActivities(env, 0)
			env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", MaxShardsPerRun: 1, AllowFuture: tt.allow, Replace: tt.replace})
			var can *workflow.ContinueAsNewError
			if err := env.GetWorkflowError(); !errors.As(err, &can) {
				t.Fatalf("err = %v, want continue-as-new", err)
			}
			if !got.Started.Equal(start) || got.AllowFuture != tt.allow || got.Replace != tt.replace {
				t.Fatalf("plan input started %v allow %v, want %v %v", got.Started, got.AllowFuture, start, tt.allow)
			}
			var next IndexBuildInput
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
				t.Fatal(err)
			}
			if !next.Started.Equal(start) || next.AllowFuture != tt.allow || next.Replace != tt.replace {
				t.Fatalf("continued with started %v allow %v", next.Started, next.AllowFuture)
			}
		})
	}
}

// TestIndexBuildReportsTruncatedDocuments: the documents each shard's chunking cut are summed
// into the result, with the cap they were cut at.
func TestIndexBuildReportsTruncatedDocuments(t *testing.T) {
	env := indexEnv(t)
	legacyPlan(env)
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(threePeriods, nil).Once()
	env.OnActivity(a.ChunkShard, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ChunkShardInput) (activities.ChunkShardResult, error) {
			return activities.ChunkShardResult{ChunksKey: in.ShardID + "/chunks", Chunks: 5, Truncated: 1}, nil
		})
	env.OnActivity(a.EmbedShard, mock.Anything, mock.Anything).Return(activities.EmbedShardResult{Parts: 1, Chunks: 5}, nil)
	env.OnActivity(a.WriteShard, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WriteShardInput) (activities.WriteShardResult, error) {
			return activities.WriteShardResult{Meta: schemas.ShardMeta{ID: in.ShardID, Period: in.Period, Chunks: 5}}, nil
		})
	env.OnActivity(a.PublishManifest, mock.Anything, mock.Anything).Return(activities.PublishManifestResult{Seq: 1}, nil).Once()
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100, MaxChunksPerDoc: 100}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res IndexBuildResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Truncated != 2 || res.MaxChunksPerDoc != 100 { // s1 and s3 built, s2 reused
		t.Fatalf("result %+v: want 2 documents cut at 100 chunks", res)
	}
}
