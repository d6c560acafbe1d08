package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
)

// EvalSummariesInput is one summaries evaluation: asof's answers to a set of dated queries,
// measured like the Telegram study measured its summaries, beside the study's own answers.
type EvalSummariesInput struct {
	// EvalID names the evaluation (evals/summaries/<id>/ and its Ask runs); equal inputs give
	// equal ids, so a rerun finds the answers already stored and asks only the rest.
	EvalID     string `json:"eval_id"`
	Index      string `json:"index"`
	QueriesKey string `json:"queries_key"`
	// StudyKey is the study's answers (empty: asof alone).
	StudyKey string `json:"study_key,omitempty"`
	Limit    int    `json:"limit"`
	// Concurrency is how many Asks run at once (default 2).
	Concurrency int `json:"concurrency"`
}

// EvalSummariesResult is the table and where its files are.
type EvalSummariesResult struct {
	Finish activities.FinishSummariesResult `json:"finish"`
	// Asked counts the Asks this run started; Resumed the answers found from an earlier run;
	// Failed the Asks that failed (their rows say why).
	Asked   int `json:"asked"`
	Resumed int `json:"resumed"`
	Failed  int `json:"failed"`
}

// EvalSummariesWorkflowID names a summaries evaluation's run.
func EvalSummariesWorkflowID(evalID string) string { return "asof-eval-summaries-" + evalID }

// SummariesAskInput is the Ask a summaries evaluation runs for one query: what `asof ask`
// serves with default options, the heuristic judge and the extractive summary.
func SummariesAskInput(index string, q activities.SummaryQuery) AskInput {
	jo := DefaultJudgeOptions()
	jo.Mode = activities.JudgeHeuristic
	return AskInput{Index: index, Query: q.Query, AsOf: q.AnchorDate, Judge: &jo, Summarizer: "extractive"}
}

// EvalSummaries plans the queries, answers each one not answered yet with a child Ask
// (SummariesAskInput; id activities.SummariesRunID, a few at a time), then scores asof's
// answers and the study's in one activity that writes summary.json, table.md and
// per_answer.parquet. An Ask that fails is reported in its row; the others still count.
func EvalSummaries(ctx workflow.Context, in EvalSummariesInput) (EvalSummariesResult, error) {
	quick := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{activities.ErrTypeInvalidInput}},
	})
	var plan activities.PlanSummariesResult
	if err := workflow.ExecuteActivity(quick, a.PlanSummaries, activities.PlanSummariesInput{
		EvalID: in.EvalID, QueriesKey: in.QueriesKey, Limit: in.Limit,
	}).Get(ctx, &plan); err != nil {
		return EvalSummariesResult{}, fmt.Errorf("plan: %w", err)
	}
	conc := in.Concurrency
	if conc < 1 {
		conc = 2
	}
	var out EvalSummariesResult
	errs, _ := fanOut(ctx, len(plan.Queries), conc, func(ctx workflow.Context, i int) (string, error) {
		q := plan.Queries[i]
		if q.Done {
			return "", nil
		}
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: q.RunID, TaskQueue: TaskQueue})
		if err := workflow.ExecuteChildWorkflow(cctx, Ask, SummariesAskInput(in.Index, q)).Get(ctx, nil); err != nil {
			return "ask: " + rootMessage(err), nil // reported in its row; no job fails
		}
		return "", nil
	})
	failed := map[string]string{}
	for i, q := range plan.Queries {
		switch {
		case q.Done:
			out.Resumed++
		case errs[i] != "":
			out.Asked++
			failed[q.QueryID] = errs[i]
		default:
			out.Asked++
		}
	}
	out.Failed = len(failed)
	if err := workflow.ExecuteActivity(quick, a.FinishSummaries, activities.FinishSummariesInput{
		EvalID: in.EvalID, Index: in.Index, Queries: plan.Queries, Errors: failed, StudyKey: in.StudyKey,
	}).Get(ctx, &out.Finish); err != nil {
		return EvalSummariesResult{}, fmt.Errorf("finish: %w", err)
	}
	return out, nil
}
