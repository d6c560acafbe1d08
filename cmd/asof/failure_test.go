package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/workflows"
)

// errNotThere stands for a sentinel an activity wraps with %w.
var errNotThere = errors.New("object not found")

// failingWorkflowError runs wf in the SDK's test environment, where the failure goes through
// the same failure converter and WorkflowExecutionError wrapping as on a real client, and
// returns the error a client's Get would.
func failingWorkflowError(t *testing.T, wf func(workflow.Context) error, setup func(*testsuite.TestWorkflowEnvironment)) error {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: "Ask"})
	env.RegisterActivityWithOptions(func(context.Context) error {
		err := errors.New(`unknown mode "recnecy" (auto, recency, decay, window, evolution, hybrid, dense, bm25)`)
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrTypeInvalidInput, err)
	}, activity.RegisterOptions{Name: "ReadQuery"})
	env.RegisterActivityWithOptions(func(context.Context) error {
		return fmt.Errorf("read manifest indexes/x/CURRENT: %w", errNotThere)
	}, activity.RegisterOptions{Name: "ResolveManifest"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		if err := workflow.ExecuteActivity(ctx, "ReadQuery").Get(ctx, nil); err != nil {
			return fmt.Errorf("embed part 3: %w", err)
		}
		return nil
	}, workflow.RegisterOptions{Name: "BuildShard"})
	if setup != nil {
		setup(env)
	}
	env.ExecuteWorkflow("Ask")
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	err := env.GetWorkflowError()
	if err == nil {
		t.Fatal("workflow did not fail")
	}
	return err
}

func once(ctx workflow.Context, activity string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	return workflow.ExecuteActivity(ctx, activity).Get(ctx, nil)
}

func TestExplainFailure(t *testing.T) {
	const ui = "in the Web UI at http://127.0.0.1:8233"
	tests := []struct {
		name      string
		wf        func(workflow.Context) error
		setup     func(*testsuite.TestWorkflowEnvironment)
		wantCause string
		wantWhere string
	}{
		{
			name: "invalid input in an activity, wrapped by the workflow",
			wf: func(ctx workflow.Context) error {
				if err := once(ctx, "ReadQuery"); err != nil {
					return fmt.Errorf("read query: %w", err)
				}
				return nil
			},
			wantCause: `read query: unknown mode "recnecy" (auto, recency, decay, window, evolution, hybrid, dense, bm25)`,
			wantWhere: "see workflow asof-ask-x (activity ReadQuery) " + ui,
		},
		{
			name:      "a Go error wrapping a sentinel",
			wf:        func(ctx workflow.Context) error { return once(ctx, "ResolveManifest") },
			wantCause: "read manifest indexes/x/CURRENT: object not found",
			wantWhere: "see workflow asof-ask-x (activity ResolveManifest) " + ui,
		},
		{
			name: "a child workflow's activity",
			wf: func(ctx workflow.Context) error {
				ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: "asof-index-x/3"})
				if err := workflow.ExecuteChildWorkflow(ctx, "BuildShard").Get(ctx, nil); err != nil {
					return fmt.Errorf("shard 3: %w", err)
				}
				return nil
			},
			wantCause: `shard 3: embed part 3: unknown mode "recnecy" (auto, recency, decay, window, evolution, hybrid, dense, bm25)`,
			wantWhere: "see workflow asof-index-x/3 (activity ReadQuery) " + ui,
		},
		{
			name: "an activity that timed out",
			wf:   func(ctx workflow.Context) error { return once(ctx, "ReadQuery") },
			setup: func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity("ReadQuery", mock.Anything).Return(temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil))
			},
			wantCause: "Test timeout (heartbeat)", // the message temporal.NewTimeoutError gives
			wantWhere: "see workflow asof-ask-x (activity ReadQuery) " + ui,
		},
		{
			name: "canceled",
			wf: func(ctx workflow.Context) error {
				_ = workflow.Sleep(ctx, time.Hour)
				return temporal.NewCanceledError()
			},
			setup: func(env *testsuite.TestWorkflowEnvironment) {
				env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
			},
			wantCause: "canceled",
			wantWhere: "see workflow asof-ask-x " + ui,
		},
		{
			name:      "an application error of the workflow itself",
			wf:        func(workflow.Context) error { return temporal.NewApplicationError("no topics", "InvalidInput") },
			wantCause: "no topics",
			wantWhere: "see workflow asof-ask-x " + ui,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := failingWorkflowError(t, tt.wf, tt.setup)
			var wee *temporal.WorkflowExecutionError
			if !errors.As(raw, &wee) {
				t.Fatalf("the test environment returned %T, not a WorkflowExecutionError", raw)
			}
			err := explainFailure(raw, "asof-ask-x", ui)
			var rf *runFailure
			if !errors.As(err, &rf) {
				t.Fatalf("explainFailure = %T %v, want a *runFailure", err, err)
			}
			if rf.Error() != tt.wantCause {
				t.Errorf("cause\n got %q\nwant %q\n(raw, %d chars: %s)", rf.Error(), tt.wantCause, len(raw.Error()), raw)
			}
			if rf.Where != tt.wantWhere {
				t.Errorf("where\n got %q\nwant %q", rf.Where, tt.wantWhere)
			}
			if !errors.Is(err, raw) {
				t.Error("the SDK's chain is not kept behind Unwrap")
			}
		})
	}
}

func TestExplainFailureLeavesOtherErrors(t *testing.T) {
	err := fmt.Errorf("get result: %w", context.DeadlineExceeded)
	if got := explainFailure(err, "asof-ask-x", "in the Web UI"); got != err {
		t.Fatalf("explainFailure changed a non-workflow error: %v", got)
	}
}

func TestWebUIHint(t *testing.T) {
	embedded := config.Default()
	noUI := config.Default()
	noUI.Temporal.UIPort = 0
	external := config.Default()
	external.Temporal.Address = "temporal.internal:7233"
	tests := []struct {
		name   string
		cfg    config.Config
		served string
		want   string
	}{
		{"served here", embedded, "http://127.0.0.1:18233", "in the Web UI at http://127.0.0.1:18233"},
		{"embedded", embedded, "", "in the Web UI at http://127.0.0.1:8233 (while asof dev or asof server runs)"},
		{"embedded without UI", noUI, "", "in the Web UI (asof dev --ui-port N serves it)"},
		{"external", external, "", "in the Temporal Web UI of temporal.internal:7233 (namespace default)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webUIHint(tt.cfg, tt.served); got != tt.want {
				t.Errorf("webUIHint = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunPrintsAWorkflowFailureOnTwoLines(t *testing.T) {
	raw := failingWorkflowError(t, func(ctx workflow.Context) error {
		if err := once(ctx, "ReadQuery"); err != nil {
			return fmt.Errorf("read query: %w", err)
		}
		return nil
	}, nil)
	var b strings.Builder
	printError(&b, fmt.Errorf("ask x: %w", explainFailure(raw, "asof-ask-x", "in the Web UI at http://127.0.0.1:8233")))
	want := "asof: ask x: read query: unknown mode \"recnecy\" (auto, recency, decay, window, evolution, hybrid, dense, bm25)\n" +
		"  see workflow asof-ask-x (activity ReadQuery) in the Web UI at http://127.0.0.1:8233\n"
	if b.String() != want {
		t.Fatalf("printed\n%s\nwant\n%s", b.String(), want)
	}
}
