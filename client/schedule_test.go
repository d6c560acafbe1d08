package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.temporal.io/api/serviceerror"
	client "go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/digest"
)

// describeSeq is a schedule handle whose Describe answers from a list: an error, or a schedule
// that has run `actions` times (the last one started workflow "wf-<actions>").
type describeSeq struct {
	client.ScheduleHandle
	replies []any
	calls   int
}

func (h *describeSeq) Describe(context.Context) (*client.ScheduleDescription, error) {
	r := h.replies[min(h.calls, len(h.replies)-1)]
	h.calls++
	if err, ok := r.(error); ok {
		return nil, err
	}
	n := r.(int)
	d := &client.ScheduleDescription{}
	d.Info.NumActions = n
	if n > 0 {
		d.Info.RecentActions = []client.ScheduleActionResult{{StartWorkflowResult: &client.ScheduleWorkflowExecution{WorkflowID: fmt.Sprintf("wf-%d", n)}}}
	}
	return d, nil
}

func TestAwaitNewActionOutlastsASlowServer(t *testing.T) {
	late := serviceerror.NewDeadlineExceeded("context deadline exceeded")
	tests := []struct {
		name    string
		replies []any
		want    string // workflow id, or "error: <substring>"
	}{
		{"runs at once", []any{1}, "wf-1"},
		{"an earlier run, then the new one", []any{0, 0, 1}, "wf-1"},
		{"a describe past the client's deadline, then the run", []any{late, late, 1}, "wf-1"},
		{"the server briefly unavailable", []any{serviceerror.NewUnavailable("restarting"), 1}, "wf-1"},
		{"a local deadline", []any{fmt.Errorf("describe: %w", context.DeadlineExceeded), 1}, "wf-1"},
		{"not found is final", []any{serviceerror.NewNotFound("schedule not found"), 1}, "error: wait for the triggered run: describe the schedule: schedule not found"},
		{"another error is final", []any{errors.New("permission denied"), 1}, "error: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &describeSeq{replies: tt.replies}
			run, err := AwaitNewAction(context.Background(), h, 0)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want one containing %q", err, want)
				}
				if h.calls != 1 {
					t.Fatalf("Describe called %d times; a final error must not be polled again", h.calls)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if run.WorkflowID != tt.want {
				t.Fatalf("run = %s, want %s", run.WorkflowID, tt.want)
			}
		})
	}
}

func TestAwaitNewActionStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := &describeSeq{replies: []any{serviceerror.NewDeadlineExceeded("context deadline exceeded")}}
	if _, err := AwaitNewAction(ctx, h, 0); err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
}

// TestScheduleSpecFromKeepsTheHistory: a schedule's runs get the history its request asked for.
func TestScheduleSpecFromKeepsTheHistory(t *testing.T) {
	s, err := apispec.ScheduleRequest{Name: "m", Cron: "0 7 * * *", Index: "news", Topics: []digest.Topic{{Name: "Rate", Query: "key rate"}}, History: 8}.Check(apispec.JSONLabel)
	if err != nil {
		t.Fatal(err)
	}
	if got := ScheduleSpecFrom(s).Digest.History; got != 8 {
		t.Fatalf("history %d, want 8", got)
	}
	if _, err := (apispec.ScheduleRequest{Name: "m", Cron: "0 7 * * *", Index: "news", Topics: []digest.Topic{{Name: "Rate", Query: "key rate"}}, History: 99}).Check(apispec.JSONLabel); err == nil {
		t.Fatal("a history of 99 days was accepted")
	}
}
