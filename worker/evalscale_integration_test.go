package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// evalScaleQuestions is how many questions TestEvalPayloadsStayBounded evaluates: four times
// the 4,507 whose plan once reached 822 KB in one payload.
const evalScaleQuestions = 20000

// TestEvalPayloadsStayBounded runs the real Eval workflow on the Temporal server over 20,000
// generated judged questions (the toy index, BM25, 250 questions a batch: 80 batches) and
// asserts that no workflow or activity input or result grows past scalePayloadBound: the
// question list travels as store keys and counts (workflows.evalPlanVersion), and every question
// is scored.
func TestEvalPayloadsStayBounded(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "eval-scale-it")
	publishToyIndex(t, b, "toy", 12)
	ctx := runToyWorker(t, b, "eval-scale-it")
	rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	topics := []string{"inflation", "mortgages", "the krona", "exporters", "savers", "wages", "housing", "the budget"}
	qs := make([]schemas.EvalQuestion, evalScaleQuestions)
	qrels := make([]schemas.Qrel, evalScaleQuestions)
	for i := range qs {
		day := 1 + i%12
		qs[i] = schemas.EvalQuestion{QuestionID: fmt.Sprintf("q%05d", i), QuestionDate: time.Date(2024, 3, day+1, 0, 0, 0, 0, time.UTC),
			Question: fmt.Sprintf("What did key rate decision %d mean for %s, question %d?", day, topics[i%len(topics)], i)}
		qrels[i] = schemas.Qrel{QuestionID: qs[i].QuestionID, DocID: fmt.Sprintf("d%02d", day), Grade: 2, DaysBefore: 1}
	}
	putParquet(t, b, "eval/scale-questions.parquet", qs)
	putParquet(t, b, "eval/scale-qrels.parquet", qrels)

	began := time.Now()
	id := fmt.Sprintf("eval-scale-%d", time.Now().UnixNano())
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.Eval, workflows.EvalInput{
		EvalID: "scale", Index: "toy", QuestionsKey: "eval/scale-questions.parquet", QrelsKey: "eval/scale-qrels.parquet",
		Systems: []string{"bm25"}, BatchSize: 250, Concurrency: 8,
	})
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.EvalResult
	if err := run.Get(rctx, &res); err != nil {
		t.Fatal(err)
	}
	if want := (evalScaleQuestions + 249) / 250; res.Batches != want || res.Finish.Summary.Questions != evalScaleQuestions {
		t.Fatalf("eval: %d batches, %d questions scored; want %d and %d", res.Batches, res.Finish.Summary.Questions, want, evalScaleQuestions)
	}
	st := workflowStats(t, ctx, id, run.GetRunID())
	t.Logf("eval: %d questions in %d batches in %s; history %d events, %d bytes; largest payload %d bytes (%s)",
		evalScaleQuestions, res.Batches, time.Since(began).Round(time.Second), st.events, st.bytes, st.largest, st.largestWhat)
	if st.largest > scalePayloadBound {
		t.Errorf("largest eval payload %d bytes (%s), over the bound of %d", st.largest, st.largestWhat, scalePayloadBound)
	}
}
