package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// TestEvalSummariesAsksWhatIsNotAnswered: a query already answered by an earlier run is not
// asked again; the others are asked as child Asks with the run ids the plan gave, as of their
// anchor, with the heuristic judge and the extractive summary; a failed Ask is passed to the
// finish step as that query's error instead of failing the evaluation.
func TestEvalSummariesAsksWhatIsNotAnswered(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(Ask)
	anchor := time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC)
	qs := []sumeval.Query{
		{QueryID: "q000", Query: "курс доллара", AnchorDate: anchor, RunID: sumeval.RunID("e1", "q000"), Done: true},
		{QueryID: "q001", Query: "ключевая ставка", AnchorDate: anchor, RunID: sumeval.RunID("e1", "q001")},
		{QueryID: "q002", Query: "broken", AnchorDate: anchor, RunID: sumeval.RunID("e1", "q002")},
		{QueryID: "q003", Query: "нефть", AnchorDate: anchor, RunID: sumeval.RunID("e1", "q003")},
	}
	env.OnActivity(a.PlanSummaries, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PlanSummariesInput) (activities.PlanSummariesResult, error) {
			if in.EvalID != "e1" || in.QueriesKey != "inputs/q.parquet" || in.Limit != 10 {
				t.Errorf("plan input %+v", in)
			}
			return activities.PlanSummariesResult{Queries: qs}, nil
		})
	asked := map[string]AskInput{}
	env.OnWorkflow(Ask, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in AskInput) (schemas.Answer, error) {
			id := workflow.GetInfo(ctx).WorkflowExecution.ID
			asked[id] = in
			if in.Query == "broken" {
				return schemas.Answer{}, errors.New("index shard unreadable")
			}
			return schemas.Answer{RunID: id, Query: in.Query}, nil
		})
	var finished activities.FinishSummariesInput
	env.OnActivity(a.FinishSummaries, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishSummariesInput) (activities.FinishSummariesResult, error) {
			finished = in
			return activities.FinishSummariesResult{TableKey: "evals/summaries/e1/table.md"}, nil
		})
	env.ExecuteWorkflow(EvalSummaries, EvalSummariesInput{EvalID: "e1", Index: "tg", QueriesKey: "inputs/q.parquet", StudyKey: "inputs/s.parquet", Limit: 10, Concurrency: 2})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res EvalSummariesResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Asked != 3 || res.Resumed != 1 || res.Failed != 1 {
		t.Fatalf("result %+v %v", res, err)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %d: %+v", len(asked), asked)
	}
	if _, again := asked[qs[0].RunID]; again {
		t.Errorf("the answered query was asked again")
	}
	for _, q := range qs[1:] {
		in, ok := asked[q.RunID]
		if !ok || in.Index != "tg" || in.Query != q.Query || !in.AsOf.Equal(anchor) || in.Summarizer != "extractive" ||
			in.Judge == nil || in.Judge.Mode != judge.ModeHeuristic || in.Judge.Pool != DefaultJudgeOptions().Pool || in.Options != nil || in.Mode != "" {
			t.Errorf("ask %s: %+v (judge %+v)", q.RunID, in, in.Judge)
		}
	}
	if finished.EvalID != "e1" || finished.Index != "tg" || finished.StudyKey != "inputs/s.parquet" || len(finished.Queries) != 4 ||
		len(finished.Errors) != 1 || !strings.Contains(finished.Errors["q002"], "unreadable") {
		t.Fatalf("finish input %+v", finished)
	}
	env.AssertExpectations(t)
}

// TestEvalSummariesRubric: with --rubric llm every answered query (asked now or before) is
// graded on asof-llm and the scores reach the finish step; a grade that fails counts as
// missing; a worker without an LLM fails the evaluation.
func TestEvalSummariesRubric(t *testing.T) {
	anchor := time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC)
	qs := []sumeval.Query{
		{QueryID: "q000", Query: "курс", AnchorDate: anchor, RunID: "r0", Done: true},
		{QueryID: "q001", Query: "ставка", AnchorDate: anchor, RunID: "r1"},
		{QueryID: "q002", Query: "нефть", AnchorDate: anchor, RunID: "r2"},
	}
	five := 5.0
	for _, noLLM := range []bool{false, true} {
		env := newEnv(t)
		env.RegisterWorkflow(Ask)
		env.OnActivity(a.PlanSummaries, mock.Anything, mock.Anything).Return(activities.PlanSummariesResult{Queries: qs, StudySystems: []string{"rag", "tempo"}}, nil)
		env.OnWorkflow(Ask, mock.Anything, mock.Anything).Return(schemas.Answer{}, nil)
		studyGraded := map[string]bool{}
		env.OnActivity(a.RubricStudy, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.RubricStudyInput) (activities.RubricResult, error) {
				studyGraded[in.System+"/"+in.QueryID] = true
				if in.StudyKey != "s" || in.System == "tempo" && in.QueryID == "q001" {
					return activities.RubricResult{}, temporal.NewNonRetryableApplicationError("bad reply", "BadResponse", nil)
				}
				return activities.RubricResult{Method: "llm:m", Rubric: sumeval.Rubric{Relevance: &five}}, nil
			}).Maybe()
		graded := map[string]bool{}
		env.OnActivity(a.RubricSummary, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.RubricInput) (activities.RubricResult, error) {
				graded[in.RunID] = true
				switch {
				case noLLM:
					return activities.RubricResult{}, temporal.NewNonRetryableApplicationError("no LLM", activities.ErrTypeConfig, nil)
				case in.RunID == "r2":
					return activities.RubricResult{}, temporal.NewNonRetryableApplicationError("bad reply", "BadResponse", nil)
				}
				return activities.RubricResult{Rubric: sumeval.Rubric{Relevance: &five, Groundedness: &five, FactsNumbers: &five, DatesTimeline: &five, Recency: &five}}, nil
			})
		var finished activities.FinishSummariesInput
		env.OnActivity(a.FinishSummaries, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.FinishSummariesInput) (activities.FinishSummariesResult, error) {
				finished = in
				return activities.FinishSummariesResult{}, nil
			}).Maybe()
		env.ExecuteWorkflow(EvalSummaries, EvalSummariesInput{EvalID: "e1", Index: "tg", QueriesKey: "q", StudyKey: "s", Rubric: sumeval.RubricLLM, Concurrency: 1})
		err := env.GetWorkflowError()
		if noLLM {
			if err == nil || !strings.Contains(err.Error(), "no LLM") || len(graded) != 1 {
				t.Fatalf("without an LLM: %v, graded %v", err, graded)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(graded) != 3 || finished.Rubric != sumeval.RubricLLM || len(finished.Rubrics) != 2 || finished.Rubrics["q000"].Recency == nil {
			t.Fatalf("graded %v, finish %+v", graded, finished)
		}
		if _, ok := finished.Rubrics["q002"]; ok {
			t.Errorf("a failed grade reached the finish step")
		}
		// The study's summaries of the same queries, every system, graded by the same LLM.
		if len(studyGraded) != 6 || finished.StudyGrader != "llm:m" || len(finished.StudyRubrics["rag"]) != 3 || len(finished.StudyRubrics["tempo"]) != 2 {
			t.Fatalf("study graded %v, finish grader %q rubrics %v", studyGraded, finished.StudyGrader, finished.StudyRubrics)
		}
		if _, ok := finished.StudyRubrics["tempo"]["q001"]; ok {
			t.Errorf("a failed study grade reached the finish step")
		}
	}
}

// TestSummariesAskInputSummarizer: the evaluation's summarizer reaches each Ask ("" stays
// extractive, auto lets the LLM write), and the judge is the heuristic either way.
func TestSummariesAskInputSummarizer(t *testing.T) {
	q := sumeval.Query{QueryID: "q1", Query: "ставка", AnchorDate: time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC)}
	for _, tt := range []struct{ in, want string }{{"", "extractive"}, {"extractive", "extractive"}, {"auto", "auto"}} {
		got := SummariesAskInput("tg", q, tt.in)
		if got.Summarizer != tt.want || got.Judge == nil || got.Judge.Mode != judge.ModeHeuristic || !got.Quiet {
			t.Errorf("summarizer %q: %+v (judge %+v), want summarizer %q, heuristic judge, quiet", tt.in, got, got.Judge, tt.want)
		}
	}
}
