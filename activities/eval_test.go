package activities_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
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
