package worker_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestEvalSummariesThroughRealServer runs an EvalSummaries (three queries, two at a time, one
// asked about a year with no documents) on the real Temporal server and S3 gateway over the
// toy index: every query gets an answer and a row, the empty one included; with
// -update-history its history becomes the replay fixture evalsummaries-fanout.json.
func TestEvalSummariesThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "sumeval-it")
	publishToyIndex(t, b, "toy", 12)
	ctx := runToyWorker(t, b, "sumeval-it")
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer rcancel()
	anchor := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	putParquet(t, b, "sumeval/queries.parquet", []schemas.EvalQuery{
		{QueryID: "q1", Query: "key rate decision wages", AnchorDate: anchor},
		{QueryID: "q2", Query: "key rate decision in 2019", AnchorDate: anchor},
		{QueryID: "q3", Query: "the budget outlook", AnchorDate: anchor},
	})
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "evalsummaries-fanout", TaskQueue: workflows.TaskQueue}, workflows.EvalSummaries, workflows.EvalSummariesInput{
		EvalID: "fixture", Index: "toy", QueriesKey: "sumeval/queries.parquet", Concurrency: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.EvalSummariesResult
	if err := run.Get(rctx, &res); err != nil {
		t.Fatal(err)
	}
	sys := res.Finish.Report.Systems
	if res.Asked != 3 || res.Failed != 0 || len(sys) != 1 || sys[0].System != "asof" || sys[0].Answers != 3 || sys[0].Cited != sys[0].Claims {
		t.Fatalf("result %+v, systems %+v", res, sys)
	}
	if _, err := b.Stat(ctx, res.Finish.PerAnswerKey); err != nil {
		t.Fatalf("per answer parquet: %v", err)
	}
	if *updateHistory {
		saveHistory(t, "evalsummaries-fanout")
	}
}
