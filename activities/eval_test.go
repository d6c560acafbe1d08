package activities_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestPlanEval: judged questions are kept (inside the dates), unjudged ones counted, a limit
// samples deterministically; an unlabelled query set plans every query.
func TestPlanEval(t *testing.T) {
	ctx := context.Background()
	b, _ := blob.NewLocal(t.TempDir())
	put := func(key string, rows any) {
		var buf bytes.Buffer
		switch r := rows.(type) {
		case []schemas.EvalQuestion:
			parquet.Write(&buf, r)
		case []schemas.Qrel:
			parquet.Write(&buf, r)
		case []schemas.EvalQuery:
			parquet.Write(&buf, r)
		}
		if _, err := b.Put(ctx, key, &buf); err != nil {
			t.Fatal(err)
		}
	}
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	put("q.parquet", []schemas.EvalQuestion{{QuestionID: "a", QuestionDate: d("2023-01-02"), Question: "qa"}, {QuestionID: "b", QuestionDate: d("2023-02-02"), Question: "qb"}, {QuestionID: "c", QuestionDate: d("2023-03-02"), Question: "qc"}, {QuestionID: "x", QuestionDate: d("2023-01-05"), Question: "unjudged"}, {QuestionID: "old", QuestionDate: d("2019-01-01"), Question: "too old"}})
	put("r.parquet", []schemas.Qrel{{QuestionID: "a", DocID: "d1", Grade: 2, DaysBefore: 1}, {QuestionID: "b", DocID: "d2", Grade: 1, DaysBefore: 20}, {QuestionID: "c", DocID: "d3", Grade: 2, DaysBefore: 3}, {QuestionID: "old", DocID: "d4", Grade: 2, DaysBefore: 1}})
	put("tg.parquet", []schemas.EvalQuery{{QueryID: "t1", Query: "ставка", AnchorDate: d("2025-09-04").Add(15 * time.Hour)}, {QueryID: "t2", Query: "нефть на этой неделе", AnchorDate: d("2025-09-04")}})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b}}
	env.RegisterActivity(acts)
	res := run[activities.PlanEvalResult](t, env, acts.PlanEval, activities.PlanEvalInput{QuestionsKey: "q.parquet", QrelsKey: "r.parquet", From: d("2022-01-01"), BatchSize: 2})
	if res.Questions != 3 || res.Unjudged != 1 || res.OutOfSpan != 1 || len(res.Batches) != 2 || res.Batches[0][0].ID != "a" {
		t.Fatalf("plan %+v", res)
	}
	one := run[activities.PlanEvalResult](t, env, acts.PlanEval, activities.PlanEvalInput{QuestionsKey: "q.parquet", QrelsKey: "r.parquet", Limit: 1, Seed: 7, BatchSize: 2})
	again := run[activities.PlanEvalResult](t, env, acts.PlanEval, activities.PlanEvalInput{QuestionsKey: "q.parquet", QrelsKey: "r.parquet", Limit: 1, Seed: 7, BatchSize: 2})
	if one.Questions != 1 || one.Batches[0][0].ID != again.Batches[0][0].ID {
		t.Fatalf("limit sample %+v vs %+v", one.Batches, again.Batches)
	}
	tg := run[activities.PlanEvalResult](t, env, acts.PlanEval, activities.PlanEvalInput{QuestionsKey: "tg.parquet", Unlabelled: true, BatchSize: 25})
	// An anchor with a time of day is its day (asofday.Start); auto's search text, when it
	// differs from the question, travels with it so eval embeds what ask would.
	if tg.Questions != 2 || tg.Batches[0][1].Question != "нефть на этой неделе" || !tg.Batches[0][0].AsOf.Equal(d("2025-09-04")) ||
		tg.Batches[0][0].AutoText != "" || tg.Batches[0][1].AutoText != "нефть" {
		t.Fatalf("unlabelled plan %+v", tg)
	}
	if _, err := env.ExecuteActivity(acts.PlanEval, activities.PlanEvalInput{QuestionsKey: "missing.parquet", QrelsKey: "r.parquet"}); err == nil {
		t.Fatal("a missing questions file was accepted")
	}
}

// TestPlanEvalStored: with Store, PlanEval writes each batch's questions to the store and
// returns only their count; EmbedTexts reads a batch's texts by its key (auto texts last), and a
// missing plan is bad input, not a retry.
func TestPlanEvalStored(t *testing.T) {
	ctx := context.Background()
	b, _ := blob.NewLocal(t.TempDir())
	var buf bytes.Buffer
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	parquet.Write(&buf, []schemas.EvalQuery{{QueryID: "t1", Query: "ставка", AnchorDate: d("2025-09-04")}, {QueryID: "t2", Query: "нефть на этой неделе", AnchorDate: d("2025-09-04")}, {QueryID: "t3", Query: "рубль", AnchorDate: d("2025-09-05")}})
	if _, err := b.Put(ctx, "tg.parquet", &buf); err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	emb := &countingEmbedder{}
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: emb}}
	env.RegisterActivity(acts)
	res := run[activities.PlanEvalResult](t, env, acts.PlanEval, activities.PlanEvalInput{EvalID: "e", QuestionsKey: "tg.parquet", Unlabelled: true, BatchSize: 2, Store: true})
	if res.BatchCount != 2 || len(res.Batches) != 0 || res.Questions != 3 {
		t.Fatalf("stored plan %+v: want 2 batches by count, none inline", res)
	}
	for n := range 2 {
		if _, err := b.Stat(ctx, layout.EvalPlanKey("e", n)); err != nil {
			t.Fatalf("batch %d: %v", n, err)
		}
	}
	run[activities.EmbedTextsResult](t, env, acts.EmbedTexts, activities.EmbedTextsInput{PlanKey: layout.EvalPlanKey("e", 0)})
	if got := strings.Join(emb.texts, "|"); got != "ставка|нефть на этой неделе|нефть" {
		t.Fatalf("embedded %q: want the batch's questions, then its auto text", got)
	}
	_, err := env.ExecuteActivity(acts.EmbedTexts, activities.EmbedTextsInput{PlanKey: layout.EvalPlanKey("e", 9)})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() {
		t.Fatalf("a missing plan: %v, want a non-retryable error", err)
	}
}

// countingEmbedder records the texts it embeds, one 2-d vector each.
type countingEmbedder struct{ texts []string }

func (e *countingEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	e.texts = append(e.texts, texts...)
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

func (e *countingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedQueries(ctx, texts)
}

func (e *countingEmbedder) Dim() int        { return 2 }
func (e *countingEmbedder) ModelID() string { return "counting" }
func (e *countingEmbedder) Close() error    { return nil }
