package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

// overheadInput is what overheadWorkflow runs: Activity ("ReadQuery" or "WriteProbe"), N times
// in sequence.
type overheadInput struct {
	Activity string                     `json:"activity"`
	N        int                        `json:"n"`
	Read     activities.ReadQueryInput  `json:"read"`
	Probe    activities.WriteProbeInput `json:"probe"`
}

// overheadActs is for method references only (activities run on the worker's registered
// struct).
var overheadActs *activities.Activities

// overheadWorkflow runs one cheap activity N times, one after another.
func overheadWorkflow(ctx workflow.Context, in overheadInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	for i := range in.N {
		var err error
		switch in.Activity {
		case "ReadQuery":
			var r activities.ReadQueryResult
			err = workflow.ExecuteActivity(ctx, overheadActs.ReadQuery, in.Read).Get(ctx, &r)
		case "WriteProbe":
			var r activities.WriteProbeResult
			err = workflow.ExecuteActivity(ctx, overheadActs.WriteProbe, in.Probe).Get(ctx, &r)
		default:
			return i, fmt.Errorf("unknown activity %q", in.Activity)
		}
		if err != nil {
			return i, err
		}
	}
	return in.N, nil
}

// BenchmarkActivityOverhead is what running a stage as a Temporal activity costs over calling
// the same function directly (`make bench`), on the package's real Temporal server and S3
// gateway, with asof's activities registered as the worker registers them. Two cheap real
// activities: ReadQuery (pure CPU: the query-intent parser) and WriteProbe (one small object
// written to S3 through the gateway). Each is run three ways, reporting ms/op:
//
//   - direct: the method called in a loop;
//   - activity: one workflow runs b.N of them in sequence (ms/op per activity: scheduling,
//     task dispatch, history events and payload encoding, with the workflow's own start and
//     end spread over b.N);
//   - workflow: b.N workflows of one activity each, start to result (what a one-stage
//     workflow costs end to end).
//
// Skipped under -short (TestMain starts no server then).
func BenchmarkActivityOverhead(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the Temporal server and S3 gateway (-short skips)")
	}
	ctx := context.Background()
	c := gw.Credentials()
	bucket, err := blob.NewS3(ctx, blob.S3Options{Bucket: "itest", Prefix: "bench-overhead", Endpoint: gw.Endpoint(), Region: gw.Region(), AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey})
	if err != nil {
		b.Fatal(err)
	}
	const queue = "asof-bench-overhead"
	w := sdkworker.New(tc, queue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(overheadWorkflow, workflow.RegisterOptions{Name: "BenchOverhead"})
	deps := worker.Deps{Bucket: bucket, Identity: "bench-worker"}
	worker.RegisterActivities(w, deps)
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	acts := worker.NewActivities(deps)
	in := overheadInput{
		Read:  activities.ReadQueryInput{Query: "What did the Bank of England decide about interest rates this week?", AsOf: time.Date(2022, 11, 4, 0, 0, 0, 0, time.UTC), Mode: answer.Auto},
		Probe: activities.WriteProbeInput{Key: "probes/bench", Probe: schemas.HealthProbe{Version: schemas.HealthProbeVersion}},
	}
	direct := map[string]func() error{
		"ReadQuery": func() error {
			_, err := acts.ReadQuery(ctx, in.Read)
			return err
		},
		"WriteProbe": func() error {
			_, err := acts.WriteProbe(ctx, in.Probe)
			return err
		},
	}
	msPerOp := func(b *testing.B, ops int) {
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(ops), "ms/op")
	}
	runWorkflow := func(b *testing.B, in overheadInput) {
		b.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		id := fmt.Sprintf("bench-overhead-%s-%d", in.Activity, time.Now().UnixNano())
		run, err := tc.ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, "BenchOverhead", in)
		if err != nil {
			b.Fatal(err)
		}
		var n int
		if err := run.Get(wctx, &n); err != nil || n != in.N {
			b.Fatalf("workflow ran %d of %d activities: %v", n, in.N, err)
		}
	}
	for _, name := range []string{"ReadQuery", "WriteProbe"} {
		in := in
		in.Activity = name
		b.Run(name+"/direct", func(b *testing.B) {
			n := 0
			for b.Loop() {
				if err := direct[name](); err != nil {
					b.Fatal(err)
				}
				n++
			}
			msPerOp(b, n)
		})
		b.Run(name+"/activity", func(b *testing.B) {
			in := in
			in.N = b.N
			runWorkflow(b, in)
			msPerOp(b, b.N)
		})
		b.Run(name+"/workflow", func(b *testing.B) {
			in := in
			in.N = 1
			n := 0
			for b.Loop() {
				runWorkflow(b, in)
				n++
			}
			msPerOp(b, n)
		})
	}
}
