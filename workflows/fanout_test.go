package workflows

import (
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"
)

// fanOutProbe runs fanOut over n jobs that sleep a varying time (so they finish out of
// order), fail where fail[i], and reports what the coroutines saw.
type fanOutProbe struct {
	N, Limit int
	Fail     map[int]bool
}

type fanOutSeen struct {
	Results     []string
	Err         string
	MaxRunning  int
	Started     []int
	AtLimitOnce bool
}

func fanOutWorkflow(ctx workflow.Context, p fanOutProbe) (fanOutSeen, error) {
	var seen fanOutSeen
	running := 0
	res, err := fanOut(ctx, p.N, p.Limit, func(ctx workflow.Context, i int) (string, error) {
		running++
		seen.Started = append(seen.Started, i)
		seen.MaxRunning = max(seen.MaxRunning, running)
		defer func() { running-- }()
		// Later jobs are quicker: completion order is not input order.
		if err := workflow.Sleep(ctx, time.Duration(10-i%5)*time.Second); err != nil {
			return "", err
		}
		if p.Fail[i] {
			return "", fmt.Errorf("job %d failed", i)
		}
		return fmt.Sprintf("r%d", i), nil
	})
	seen.Results = res
	if err != nil {
		seen.Err = err.Error()
	}
	return seen, nil
}

// TestFanOut: at most limit jobs run at once (and limit is reached), results come back in
// input order whatever the completion order, and the first error stops new starts and is
// returned after the running jobs finish.
func TestFanOut(t *testing.T) {
	for _, tc := range []struct {
		name        string
		probe       fanOutProbe
		wantResults []string
		wantErr     string
		wantStarted int
		wantMax     int
	}{
		{name: "bounded and ordered", probe: fanOutProbe{N: 7, Limit: 3},
			wantResults: []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6"}, wantStarted: 7, wantMax: 3},
		{name: "limit above n", probe: fanOutProbe{N: 2, Limit: 5}, wantResults: []string{"r0", "r1"}, wantStarted: 2, wantMax: 2},
		{name: "limit 0 runs one at a time", probe: fanOutProbe{N: 3}, wantResults: []string{"r0", "r1", "r2"}, wantStarted: 3, wantMax: 1},
		{name: "none", probe: fanOutProbe{N: 0, Limit: 2}, wantResults: []string{}, wantStarted: 0, wantMax: 0},
		// Jobs 0 (10 s) and 1 (9 s) start; 1 fails first, so 2 never starts and 0 finishes.
		{name: "first error stops new starts", probe: fanOutProbe{N: 6, Limit: 2, Fail: map[int]bool{1: true}},
			wantResults: []string{"r0", "", "", "", "", ""}, wantErr: "job 1 failed", wantStarted: 2, wantMax: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.RegisterWorkflow(fanOutWorkflow)
			env.ExecuteWorkflow(fanOutWorkflow, tc.probe)
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var seen fanOutSeen
			if err := env.GetWorkflowResult(&seen); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(seen.Results) != fmt.Sprint(tc.wantResults) {
				t.Errorf("results %q, want %q", seen.Results, tc.wantResults)
			}
			if seen.Err != tc.wantErr {
				t.Errorf("error %q, want %q", seen.Err, tc.wantErr)
			}
			if len(seen.Started) != tc.wantStarted || seen.MaxRunning != tc.wantMax {
				t.Errorf("started %v (max %d at once), want %d started, at most %d at once", seen.Started, seen.MaxRunning, tc.wantStarted, tc.wantMax)
			}
			for k, i := range seen.Started {
				if i != k {
					t.Errorf("started %v, want input order", seen.Started)
					break
				}
			}
		})
	}
}
