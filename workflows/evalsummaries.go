package workflows

import (
	"cmp"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/sumeval"
)

// SummariesAskInput is the Ask a summaries evaluation runs for one query: what `asof ask`
// serves with default options, the heuristic judge and the summarizer named ("": extractive;
// auto: the LLM's brief where the asof-llm worker has one). The judge stays the heuristic
// either way, so two writers are measured on the same contexts.
func SummariesAskInput(index string, q sumeval.Query, summarizer string) AskInput {
	jo := DefaultJudgeOptions()
	jo.Mode = judge.ModeHeuristic
	// Quiet: the answer is read back from the store, and 200 whole answers returned into this
	// workflow's history made it 8–10 MB, near Temporal's limits.
	return AskInput{Index: index, Query: q.Query, AsOf: q.AnchorDate, Judge: &jo, Summarizer: cmp.Or(summarizer, "extractive"), Quiet: true}
}

// EvalSummaries plans the queries, answers each one not answered yet with a child Ask
// (SummariesAskInput; id sumeval.RunID, a few at a time), then scores asof's
// answers and the study's in one activity that writes summary.json, table.md and
// per_answer.parquet. An Ask that fails is reported in its row; the others still count. With
// Rubric llm each answer is then graded by RubricSummary on asof-llm: a grade that fails after
// its retries counts as missing, and a worker without an LLM fails the evaluation.
func EvalSummaries(ctx workflow.Context, in EvalSummariesInput) (EvalSummariesResult, error) {
	quick := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{activities.ErrTypeInvalidInput}},
	})
	var plan activities.PlanSummariesResult
	if err := workflow.ExecuteActivity(quick, a.PlanSummaries, activities.PlanSummariesInput{
		EvalID: in.EvalID, QueriesKey: in.QueriesKey, QuestionsKey: in.QuestionsKey, QrelsKey: in.QrelsKey, From: in.From, To: in.To, Limit: in.Limit,
		StudyKey: in.StudyKey,
	}).Get(ctx, &plan); err != nil {
		return EvalSummariesResult{}, fmt.Errorf("plan: %w", err)
	}
	conc := in.Concurrency
	if conc < 1 {
		conc = 2
	}
	llmCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueLLM,
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 4, NonRetryableErrorTypes: []string{activities.ErrTypeConfig, activities.ErrTypeInvalidInput}},
	})
	type done struct {
		err    string
		rubric *activities.RubricResult
	}
	var out EvalSummariesResult
	var configErr error
	results, _ := fanOut(ctx, len(plan.Queries), conc, func(ctx workflow.Context, i int) (done, error) {
		q := plan.Queries[i]
		if !q.Done {
			cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: q.RunID, TaskQueue: TaskQueue})
			if err := workflow.ExecuteChildWorkflow(cctx, Ask, SummariesAskInput(in.Index, q, in.Summarizer)).Get(ctx, nil); err != nil {
				return done{err: "ask: " + rootMessage(err)}, nil // reported in its row; no job fails
			}
		}
		if in.Rubric != sumeval.RubricLLM {
			return done{}, nil
		}
		var r activities.RubricResult
		if err := workflow.ExecuteActivity(llmCtx, a.RubricSummary, activities.RubricInput{RunID: q.RunID}).Get(ctx, &r); err != nil {
			if isConfigError(err) {
				configErr = err
				return done{}, err // no answer can be graded: stop starting more
			}
			return done{}, nil // this answer's rubric counts as missing
		}
		return done{rubric: &r}, nil
	})
	if configErr != nil {
		return EvalSummariesResult{}, fmt.Errorf("rubric: %w", configErr)
	}
	failed := map[string]string{}
	var rubrics map[string]sumeval.Rubric
	if in.Rubric == sumeval.RubricLLM {
		rubrics = map[string]sumeval.Rubric{}
	}
	for i, q := range plan.Queries {
		switch {
		case q.Done:
			out.Resumed++
		case results[i].err != "":
			out.Asked++
			failed[q.QueryID] = results[i].err
		default:
			out.Asked++
		}
		if r := results[i].rubric; r != nil {
			rubrics[q.QueryID] = r.Rubric
		}
	}
	out.Failed = len(failed)
	grader, studyRubrics, err := gradeStudy(ctx, llmCtx, in, plan, conc)
	if err != nil {
		return EvalSummariesResult{}, err
	}
	if err := workflow.ExecuteActivity(quick, a.FinishSummaries, activities.FinishSummariesInput{
		EvalID: in.EvalID, Index: in.Index, Queries: plan.Queries, Errors: failed, StudyKey: in.StudyKey, QrelsKey: in.QrelsKey,
		Rubric: in.Rubric, Rubrics: rubrics, StudyGrader: grader, StudyRubrics: studyRubrics,
	}).Get(ctx, &out.Finish); err != nil {
		return EvalSummariesResult{}, fmt.Errorf("finish: %w", err)
	}
	return out, nil
}

// gradeStudy has the LLM that graded asof's answers grade the study's summaries of the same
// queries too (RubricStudy, every system of the study's file, conc at once), when the
// evaluation is graded (Rubric llm) and has the study's file: one grader for every system. It
// returns the grader ("llm:<model>") and its scores by system and query id; a grade that fails
// after its retries counts as missing, a worker without an LLM fails the evaluation. Runs
// started before it existed skip it (workflow version "study-rubric").
func gradeStudy(ctx, llmCtx workflow.Context, in EvalSummariesInput, plan activities.PlanSummariesResult, conc int) (string, map[string]map[string]sumeval.Rubric, error) {
	if in.Rubric != sumeval.RubricLLM || in.StudyKey == "" || len(plan.StudySystems) == 0 ||
		workflow.GetVersion(ctx, "study-rubric", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return "", nil, nil
	}
	type job struct{ system, queryID string }
	var jobs []job
	for _, sys := range plan.StudySystems {
		for _, q := range plan.Queries {
			jobs = append(jobs, job{sys, q.QueryID})
		}
	}
	var configErr error
	results, _ := fanOut(ctx, len(jobs), conc, func(ctx workflow.Context, i int) (*activities.RubricResult, error) {
		var r activities.RubricResult
		in := activities.RubricStudyInput{StudyKey: in.StudyKey, System: jobs[i].system, QueryID: jobs[i].queryID}
		if err := workflow.ExecuteActivity(llmCtx, a.RubricStudy, in).Get(ctx, &r); err != nil {
			if isConfigError(err) {
				configErr = err
				return nil, err // nothing can be graded: stop starting more
			}
			return nil, nil // this summary's rubric counts as missing
		}
		return &r, nil
	})
	if configErr != nil {
		return "", nil, fmt.Errorf("rubric of the study's summaries: %w", configErr)
	}
	grader := ""
	rubrics := map[string]map[string]sumeval.Rubric{}
	for i, r := range results {
		if r == nil {
			continue
		}
		grader = cmp.Or(grader, r.Method)
		if rubrics[jobs[i].system] == nil {
			rubrics[jobs[i].system] = map[string]sumeval.Rubric{}
		}
		rubrics[jobs[i].system][jobs[i].queryID] = r.Rubric
	}
	if grader == "" {
		grader = "llm (every grade failed)"
	}
	return grader, rubrics, nil
}
