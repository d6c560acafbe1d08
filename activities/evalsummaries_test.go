package activities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// TestPlanAndFinishSummaries: the plan marks a query whose answer is stored as done; the
// finish step scores asof's stored answer and the study's rows for the same queries (not the
// others), reports a failed Ask in its row, and writes summary.json, table.md and
// per_answer.parquet.
func TestPlanAndFinishSummaries(t *testing.T) {
	ctx := context.Background()
	b, _ := blob.NewLocal(t.TempDir())
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	putParquet := func(key string, write func(*bytes.Buffer) error) {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, key, &buf); err != nil {
			t.Fatal(err)
		}
	}
	putParquet("q.parquet", func(w *bytes.Buffer) error {
		return parquet.Write(w, []schemas.EvalQuery{{QueryID: "q000", Query: "ставка", AnchorDate: d("2025-09-04")}, {QueryID: "q001", Query: "нефть", AnchorDate: d("2025-09-04")}})
	})
	sum := "### 1) Запрос и актуальная дата\n* Актуальная дата: 2025-09-04\n\n### 3) Таймлайн\n* 2025-08-28 — ставка 18%"
	score := 4.0
	putParquet("s.parquet", func(w *bytes.Buffer) error {
		return parquet.Write(w, []schemas.StudyAnswer{
			{System: "rag", QueryID: "q000", Query: "ставка", AnchorDate: d("2025-09-04"), Context: "[1] date=2025-08-28 channel=РБК\n document=Ставка 18%.", Summary: &sum,
				Relevance: &score, Groundedness: &score, FactsNumbers: &score, DatesTimeline: &score, Recency: &score},
			{System: "rag", QueryID: "q999", Query: "другое", AnchorDate: d("2025-09-04"), Context: "[1] date=2025-01-01 channel=РБК\n document=x", Summary: &sum},
		})
	})
	runID := sumeval.RunID("e1", "q000")
	held := schemas.Claim{Date: d("2025-09-01"), Text: "Ставка 18% сохранена.", Cites: []int{1}}
	ans := schemas.Answer{RunID: runID, Query: "ставка", AsOf: d("2025-09-04"),
		Brief:  &schemas.Brief{Method: "extractive", AsOf: d("2025-09-04"), Earlier: []schemas.Claim{held}, Timeline: []schemas.Claim{held}},
		Blocks: []schemas.ContextBlock{{N: 1, PublishedAt: d("2025-09-01"), Snippet: "Ставка 18% сохранена."}}}
	ans.Summary = render.Markdown(*ans.Brief, ans.Blocks)
	data, _ := json.Marshal(ans)
	if _, err := b.Put(ctx, "runs/"+runID+"/answer.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b}}
	env.RegisterActivity(acts)
	plan := run[activities.PlanSummariesResult](t, env, acts.PlanSummaries, activities.PlanSummariesInput{EvalID: "e1", QueriesKey: "q.parquet", StudyKey: "s.parquet"})
	if len(plan.Queries) != 2 || !plan.Queries[0].Done || plan.Queries[1].Done || plan.Queries[1].RunID != "asof-sumeval-e1-q001" ||
		strings.Join(plan.StudySystems, ",") != "rag" {
		t.Fatalf("plan %+v", plan)
	}
	res := run[activities.FinishSummariesResult](t, env, acts.FinishSummaries, activities.FinishSummariesInput{
		EvalID: "e1", Index: "tg", Queries: plan.Queries, Errors: map[string]string{"q001": "ask: boom"}, StudyKey: "s.parquet"})
	sys := res.Report.Systems
	if len(sys) != 2 || sys[0].System != "rag" || sys[0].Answers != 1 || sys[1].System != "asof" || sys[1].Answers != 1 || res.Report.Failed != 1 {
		t.Fatalf("systems %+v", sys)
	}
	if g := sys[1]; g.MinAgeContext.Value() != 3 || g.MinAgeSummary.Value() != 3 || g.Cited != 1 || g.Claims != 1 || g.DatesUnsupported != 0 || g.Judged {
		t.Errorf("asof %+v", g)
	}
	if g := sys[0]; g.MinAgeSummary.Value() != 7 || !g.Judged || g.Overall.Value() != 4 {
		t.Errorf("rag %+v", g)
	}
	if sr := res.Report.StudyRules; len(sr) != 2 || sr[1].System != "asof" || sr[1].Answers != 1 {
		t.Errorf("study rules %+v", sr)
	}
	if !strings.Contains(res.Markdown, "| asof | 1 |") || !strings.Contains(res.Markdown, "not judged") {
		t.Errorf("table:\n%s", res.Markdown)
	}
	rows, err := parquet.Read[schemas.SummaryEvalRow](readAll(t, b, res.PerAnswerKey))
	if err != nil || len(rows) != 3 {
		t.Fatalf("per answer rows %d: %v", len(rows), err)
	}
	if rows[1].Error != "ask: boom" || rows[0].RunID != runID || *rows[0].MinAgeSummary != 3 {
		t.Errorf("rows %+v", rows)
	}
	if ok, _ := b.Exists(ctx, res.SummaryKey); !ok {
		t.Error("no summary.json")
	}

	// The study's summaries graded by asof's grader too: one more system, the grader's scores.
	two := 2.0
	res = run[activities.FinishSummariesResult](t, env, acts.FinishSummaries, activities.FinishSummariesInput{
		EvalID: "e1", Index: "tg", Queries: plan.Queries, Errors: map[string]string{"q001": "ask: boom"}, StudyKey: "s.parquet",
		StudyGrader: "llm:m", StudyRubrics: map[string]map[string]sumeval.Rubric{"rag": {"q000": {Relevance: &two, Groundedness: &two, FactsNumbers: &two, DatesTimeline: &two, Recency: &two}}}})
	sys = res.Report.Systems
	if len(sys) != 3 || sys[0].System != "rag" || sys[0].Overall.Value() != 4 || sys[1].System != "rag (graded by llm:m)" || sys[1].Overall.Value() != 2 ||
		sys[1].MinAgeSummary.Value() != 7 || sys[2].System != "asof" {
		t.Fatalf("systems with the study regraded %+v", sys)
	}
}

// readAll reads one object for parquet.Read.
func readAll(t *testing.T, b blob.Bucket, key string) (*bytes.Reader, int64) {
	t.Helper()
	data, err := blob.ReadAll(context.Background(), b, key)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(data), int64(len(data))
}

// llmActivities are the activities over b with an LLM client of cfg, in a test activity
// environment.
func llmActivities(t *testing.T, b blob.Bucket, cfg llm.Config) (*activities.Activities, *testsuite.TestActivityEnvironment) {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, LLM: c}}
	env.RegisterActivity(acts)
	return acts, env
}

// TestRubricSummary: the LLM (a loopback server) grades a stored answer's summary once; the
// scores are kept in rubric.json and a second call returns them without asking; a worker
// without an LLM fails with a configuration error.
func TestRubricSummary(t *testing.T) {
	ctx := context.Background()
	b, _ := blob.NewLocal(t.TempDir())
	ans := schemas.Answer{RunID: "r1", Query: "ставка", AsOf: time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC),
		Brief:  &schemas.Brief{Method: "extractive", Timeline: []schemas.Claim{{Date: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC), Text: "Ставка 18%.", Cites: []int{1}}}},
		Blocks: []schemas.ContextBlock{{N: 1, PublishedAt: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC), Snippet: "Ставка 18%."}}}
	ans.Summary = render.Markdown(*ans.Brief, ans.Blocks)
	data, _ := json.Marshal(ans)
	if _, err := b.Put(ctx, "runs/r1/answer.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	// A grade kept from an older rubric prompt (no version) is graded again.
	if _, err := b.Put(ctx, "runs/r1/rubric.json", strings.NewReader(`{"rubric":{"relevance":5,"groundedness":4,"facts_numbers":4,"dates_timeline":3,"recency":2},"method":"llm:fake-rubric"}`)); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t, llmtest.Text(`{"relevance":5,"groundedness":5,"facts_numbers":4,"dates_timeline":4,"recency":3}`))
	acts, env := llmActivities(t, b, llm.Config{BaseURL: srv.URL(), Model: "fake-rubric", Timeout: 2 * time.Second})
	for range 2 {
		res := run[activities.RubricResult](t, env, acts.RubricSummary, activities.RubricInput{RunID: "r1"})
		if res.Method != "llm:fake-rubric" || res.Rubric.Recency == nil || *res.Rubric.Recency != 3 || res.Prompt != sumeval.RubricPromptVersion {
			t.Fatalf("rubric %+v", res)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1 (the old prompt's grade is graded again, then the second call reads rubric.json)", n)
	}
	if u := srv.Requests()[0].Messages[1].Content; !strings.Contains(u, "[1] date=2025-09-01\nСтавка 18%.") || !strings.Contains(u, "### Timeline\n- 2025-09-01 — Ставка 18%. [1]\n") {
		t.Errorf("the prompt lacks the context or the summary the reader saw: %+v", srv.Requests()[0].Messages)
	}
	env2 := new(testsuite.WorkflowTestSuite).NewTestActivityEnvironment()
	none := &activities.Activities{Deps: activities.Deps{Bucket: b}}
	env2.RegisterActivity(none)
	if _, err := env2.ExecuteActivity(none.RubricSummary, activities.RubricInput{RunID: "r1"}); err == nil || !strings.Contains(err.Error(), "no LLM") {
		t.Fatalf("without an LLM: %v", err)
	}
}

// TestRubricStudy: the LLM (a loopback server) grades a study summary once with the prompt
// asof's summaries get (the study's context, its summary); the scores are kept per study file
// and grader and a second call reads them; a row without a summary is not sent; a query the
// file lacks is invalid input; a worker without an LLM fails with a configuration error.
func TestRubricStudy(t *testing.T) {
	ctx := context.Background()
	b, _ := blob.NewLocal(t.TempDir())
	anchor := time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC)
	sum := "### 3) Таймлайн\n* 2025-08-28 — ставка 18%"
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []schemas.StudyAnswer{
		{System: "rag", QueryID: "q000", Query: "ставка", AnchorDate: anchor, Context: "[1] date=2025-08-28 channel=РБК\n document=Ставка 18%.", Summary: &sum},
		{System: "rag", QueryID: "q001", Query: "нефть", AnchorDate: anchor, Context: "[1] date=2025-08-28 channel=РБК\n document=x"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "corpora/x/s.parquet", &buf); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t, llmtest.Text(`{"relevance":5,"groundedness":5,"facts_numbers":4,"dates_timeline":4,"recency":2}`))
	acts, env := llmActivities(t, b, llm.Config{BaseURL: srv.URL(), Model: "fake-rubric", Timeout: 2 * time.Second})
	in := activities.RubricStudyInput{StudyKey: "corpora/x/s.parquet", System: "rag", QueryID: "q000"}
	for range 2 {
		res := run[activities.RubricResult](t, env, acts.RubricStudy, in)
		if res.Method != "llm:fake-rubric" || res.Rubric.Recency == nil || *res.Rubric.Recency != 2 {
			t.Fatalf("rubric %+v", res)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1 (the second call reads the stored grade)", n)
	}
	if u := srv.Requests()[0].Messages[1].Content; !strings.Contains(u, "Ставка 18%.") || !strings.Contains(u, "* 2025-08-28 — ставка 18%") || !strings.Contains(u, "QUERY: ставка") {
		t.Errorf("the prompt lacks the study's context, summary or query: %s", u)
	}
	if ok, _ := b.Exists(ctx, layout.StudyRubricKey(in.StudyKey, "llm:fake-rubric#"+strconv.Itoa(sumeval.RubricPromptVersion), "rag", "q000")); !ok {
		t.Error("the grade is not kept")
	}
	if res := run[activities.RubricResult](t, env, acts.RubricStudy, activities.RubricStudyInput{StudyKey: in.StudyKey, System: "rag", QueryID: "q001"}); res.Rubric.Recency != nil || len(srv.Requests()) != 1 {
		t.Errorf("a row without a summary: %+v, %d requests", res, len(srv.Requests()))
	}
	if _, err := env.ExecuteActivity(acts.RubricStudy, activities.RubricStudyInput{StudyKey: in.StudyKey, System: "rag", QueryID: "q404"}); err == nil || !strings.Contains(err.Error(), "no summary of q404 by rag") {
		t.Errorf("a query the file lacks: %v", err)
	}
	env2 := new(testsuite.WorkflowTestSuite).NewTestActivityEnvironment()
	none := &activities.Activities{Deps: activities.Deps{Bucket: b}}
	env2.RegisterActivity(none)
	if _, err := env2.ExecuteActivity(none.RubricStudy, in); err == nil || !strings.Contains(err.Error(), "no LLM") {
		t.Fatalf("without an LLM: %v", err)
	}
}
