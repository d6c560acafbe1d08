package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// AskInput is one as-of question.
type AskInput struct {
	Index string `json:"index"`
	Query string `json:"query"`
	// AsOf is the anchor; zero means the workflow's own current day (UTC).
	AsOf time.Time `json:"as_of"`
	// Mode is auto (default) or one of retrieve's modes.
	Mode string `json:"mode"`
	// From and To are explicit dates (--year, --from/--to).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Options tune retrieval (zero: retrieve.DefaultOptions); Mode, From and To in it are
	// ignored in favour of the fields above.
	Options *retrieve.Options  `json:"options,omitempty"`
	Dedup   *dedup.Options     `json:"dedup,omitempty"`
	Context *evidence.Options  `json:"context,omitempty"`
	Summary *summarize.Options `json:"summary,omitempty"`
	// Judge shapes the judge fan-out (nil: DefaultJudgeOptions).
	Judge *JudgeOptions `json:"judge,omitempty"`
	// Summarizer is auto (the LLM on asof-llm when its worker has one, else extractive) or
	// extractive.
	Summarizer string `json:"summarizer,omitempty"`
	// Quiet returns only the answer's run id, query, anchor, mode and summary method; the
	// whole answer is in runs/<run-id>/answer.json. Bulk callers that run many Asks as child
	// workflows (the summaries evaluation) keep their own history small with it: a child's
	// result is recorded in its parent's history.
	Quiet bool `json:"quiet,omitempty"`
	// Expand asks the LLM for rephrasings and a hypothetical answer, searched too (nil or
	// zero: off, the default; not measured on a real LLM yet, see docs/retrieval.md).
	Expand *ExpandOptions `json:"expand,omitempty"`
}

// ExpandOptions turn on LLM query expansion (internal/expand).
type ExpandOptions struct {
	// Queries is how many rephrasings to search with (0..5); HyDE adds a hypothetical answer
	// passage, embedded as a passage and searched by the dense branch.
	Queries int  `json:"queries"`
	HyDE    bool `json:"hyde"`
}

// on reports whether the options ask for anything.
func (o *ExpandOptions) on() bool { return o != nil && (o.Queries > 0 || o.HyDE) }

// JudgeOptions shape the judge fan-out of one answer.
type JudgeOptions struct {
	// Mode is auto (the LLM when the asof-llm worker has one, else the heuristic), llm,
	// heuristic or off.
	Mode string `json:"mode"`
	// Pool is how many candidates are judged; Batch how many go in one Judge activity.
	Pool  int `json:"pool"`
	Batch int `json:"batch"`
	// Failure is what a batch that failed after every retry does: keep (its candidates stay,
	// unjudged), drop (they go) or fail (the answer fails).
	Failure string `json:"failure"`
	// MaxAttempts bounds the tries of one batch (the first one included).
	MaxAttempts int `json:"max_attempts"`
}

// DefaultJudgeOptions: auto, a pool of 40 in batches of 8, keep on failure, 4 attempts.
func DefaultJudgeOptions() JudgeOptions {
	return JudgeOptions{Mode: activities.JudgeAuto, Pool: answer.DefaultPool, Batch: 8, Failure: activities.FailureKeep, MaxAttempts: 4}
}

// Validate reports options that cannot judge.
func (o JudgeOptions) Validate() error {
	switch o.Mode {
	case activities.JudgeAuto, activities.JudgeLLM, activities.JudgeHeuristic, activities.JudgeOff:
	default:
		return fmt.Errorf("judge mode %q: use auto, llm, heuristic or off", o.Mode)
	}
	switch o.Failure {
	case activities.FailureKeep, activities.FailureDrop, activities.FailureFail:
	default:
		return fmt.Errorf("judge failure policy %q: use keep, drop or fail", o.Failure)
	}
	if o.Pool < 1 || o.Batch < 1 || o.MaxAttempts < 1 {
		return fmt.Errorf("judge pool %d, batch %d and max attempts %d must be positive", o.Pool, o.Batch, o.MaxAttempts)
	}
	return nil
}

// AskWorkflowID names a question's run (client time, for humans).
func AskWorkflowID(index string, t time.Time) string {
	return fmt.Sprintf("asof-ask-%s-%s", index, t.UTC().Format("20060102T150405.000Z"))
}

// Ask answers a question as of a date: read the query (mode and dates), embed it on the
// asof-embed queue, then retrieve → fold duplicates → build the context → summarize in one
// activity on the default queue (it keeps loaded shards in its worker's cache).
func Ask(ctx workflow.Context, in AskInput) (schemas.Answer, error) {
	asOf := in.AsOf
	if asOf.IsZero() {
		asOf = workflow.Now(ctx).UTC()
	}
	asOf = asofday.Start(asOf)
	quick := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3},
	})
	var read activities.ReadQueryResult
	if err := workflow.ExecuteActivity(quick, a.ReadQuery, activities.ReadQueryInput{
		Query: in.Query, AsOf: asOf, Mode: in.Mode, From: in.From, To: in.To,
	}).Get(ctx, &read); err != nil {
		return schemas.Answer{}, fmt.Errorf("read query: %w", err)
	}
	embedCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueEmbed,
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var emb activities.EmbedQueryResult
	if read.Mode != string(retrieve.BM25) {
		if err := workflow.ExecuteActivity(embedCtx, a.EmbedQuery, activities.EmbedQueryInput{Text: read.Text}).Get(ctx, &emb); err != nil {
			return schemas.Answer{}, fmt.Errorf("embed query: %w", err)
		}
	}
	opts := retrieve.DefaultOptions()
	if in.Options != nil {
		opts = *in.Options
	}
	dd := dedup.DefaultOptions()
	if in.Dedup != nil {
		dd = *in.Dedup
	}
	co := evidence.DefaultOptions()
	if in.Context != nil {
		co = *in.Context
	}
	so := summarize.DefaultOptions()
	if in.Summary != nil {
		so = *in.Summary
	}
	var variants []answer.Variant
	if in.Expand.on() && read.Mode != string(retrieve.BM25) && read.Mode != string(retrieve.Evolution) &&
		workflow.GetVersion(ctx, "ask-expand", workflow.DefaultVersion, 1) == 1 {
		v, note, err := expandQuery(ctx, embedCtx, in.Expand, read.Text, asOf)
		if err != nil {
			return schemas.Answer{}, err
		}
		variants = v
		read.Interpretation += note
	}
	answerCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	ai := activities.AnswerInput{
		RunID: workflow.GetInfo(ctx).WorkflowExecution.ID, Index: in.Index, Query: in.Query, AsOf: asOf, Read: read,
		Vector: emb.Vector, Model: emb.Model, Options: opts, Dedup: dd, Context: co, Summary: so, Variants: variants,
	}
	// Version 1 added the judge fan-out and the LLM summary; runs started before replay the
	// single Answer step.
	if workflow.GetVersion(ctx, "ask-judge", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		var ans schemas.Answer
		if err := workflow.ExecuteActivity(answerCtx, a.Answer, ai).Get(ctx, &ans); err != nil {
			return schemas.Answer{}, fmt.Errorf("answer: %w", err)
		}
		return ans, nil
	}
	jo := DefaultJudgeOptions()
	if in.Judge != nil {
		jo = *in.Judge
	}
	if err := jo.Validate(); err != nil {
		return schemas.Answer{}, temporal.NewNonRetryableApplicationError(err.Error(), activities.ErrTypeInvalidInput, nil)
	}
	var cand activities.CandidatesResult
	if err := workflow.ExecuteActivity(answerCtx, a.Candidates, activities.CandidatesInput{AnswerInput: ai, Pool: jo.Pool}).Get(ctx, &cand); err != nil {
		return schemas.Answer{}, fmt.Errorf("retrieve: %w", err)
	}
	llmCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueLLM,
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: int32(jo.MaxAttempts), NonRetryableErrorTypes: []string{activities.ErrTypeConfig, activities.ErrTypeInvalidInput}},
	})
	ci := activities.ComposeInput{AnswerInput: ai, Answer: cand.Answer, Key: cand.Key, Keep: jo.Failure != activities.FailureDrop}
	verdicts, unjudged, rep, err := judgeAll(ctx, llmCtx, jo, cand, in.Query, read.Text, asOf)
	if err != nil {
		return schemas.Answer{}, err
	}
	ci.Verdicts, ci.Unjudged, ci.Report = verdicts, unjudged, rep
	if jo.Mode == activities.JudgeOff {
		ci.Keep = true
	}
	var ans schemas.Answer
	if err := workflow.ExecuteActivity(answerCtx, a.Compose, ci).Get(ctx, &ans); err != nil {
		return schemas.Answer{}, fmt.Errorf("compose: %w", err)
	}
	if in.Summarizer != "extractive" && len(ans.Blocks) > 0 {
		var sum activities.SummarizeResult
		err := workflow.ExecuteActivity(llmCtx, a.Summarize, activities.SummarizeInput{
			Query: in.Query, AsOf: asOf, Mode: ans.Mode, Blocks: ans.Blocks, NewDays: so.NewDays,
		}).Get(ctx, &sum)
		switch {
		case isConfigError(err):
			return schemas.Answer{}, fmt.Errorf("summarize: %w", err)
		case err != nil:
			if ans.Brief != nil {
				note := "The LLM summary failed after every retry (" + rootMessage(err) + "); this is the extractive summary."
				ans.Brief.Note = strings.TrimSpace(ans.Brief.Note + " " + note)
				ans.Summary = render.Markdown(*ans.Brief, ans.Blocks) // pure: the note is part of what is shown
			}
		case !sum.Skipped:
			b := sum.Brief
			ans.Brief, ans.Summary, ans.SummaryMethod = &b, sum.Markdown, b.Method
		}
	}
	if err := workflow.ExecuteActivity(quick, a.SaveAnswer, ans).Get(ctx, nil); err != nil {
		return schemas.Answer{}, fmt.Errorf("save answer: %w", err)
	}
	if in.Quiet {
		return schemas.Answer{Version: ans.Version, RunID: ans.RunID, Index: ans.Index, Query: ans.Query, AsOf: ans.AsOf, Mode: ans.Mode,
			SummaryMethod: ans.SummaryMethod}, nil
	}
	return ans, nil
}

// judgeAll fans the pool out in batches on the asof-llm queue and gathers the verdicts. A batch
// that fails after its retries follows the failure policy; a configuration error fails the
// answer whatever the policy, since no batch could succeed.
func judgeAll(ctx, llmCtx workflow.Context, jo JudgeOptions, cand activities.CandidatesResult, query, searchText string, asOf time.Time) (
	verdicts []judge.Verdict, unjudged []int, rep schemas.JudgeReport, err error) {
	rep = schemas.JudgeReport{Method: activities.JudgeOff, Policy: jo.Failure}
	if jo.Mode == activities.JudgeOff || cand.Pool == 0 {
		for r := 1; r <= cand.Pool; r++ {
			unjudged = append(unjudged, r)
		}
		return nil, unjudged, rep, nil
	}
	type batch struct {
		from, to int
		f        workflow.Future
	}
	var bs []batch
	for from := 1; from <= cand.Pool; from += jo.Batch {
		to := min(cand.Pool, from+jo.Batch-1)
		f := workflow.ExecuteActivity(llmCtx, a.Judge, activities.JudgeInput{Key: cand.Key, Query: query, SearchText: searchText, AsOf: asOf, From: from, To: to, Mode: jo.Mode})
		bs = append(bs, batch{from, to, f})
	}
	rep.Batches = len(bs)
	for _, b := range bs {
		var res activities.JudgeResult
		if err := b.f.Get(ctx, &res); err != nil {
			if isConfigError(err) || jo.Failure == activities.FailureFail {
				return nil, nil, rep, fmt.Errorf("judge candidates %d..%d: %w", b.from, b.to, err)
			}
			rep.FailedBatches++
			rep.Failed += b.to - b.from + 1
			for r := b.from; r <= b.to; r++ {
				unjudged = append(unjudged, r)
			}
			continue
		}
		if rep.Method == activities.JudgeOff {
			rep.Method = res.Method
		}
		rep.Judged += len(res.Verdicts)
		verdicts = append(verdicts, res.Verdicts...)
	}
	if rep.Method == activities.JudgeOff { // no batch came back
		rep.Method = jo.Mode + " (every batch failed)"
	}
	return verdicts, unjudged, rep, nil
}

// isConfigError reports an activity error no retry can fix (bad configuration or input).
func isConfigError(err error) bool {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type() == activities.ErrTypeConfig || app.Type() == activities.ErrTypeInvalidInput
	}
	return false
}

// rootMessage is the innermost error's message.
func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// expandQuery asks the LLM (asof-llm) for the question's variants and embeds them (asof-embed).
// A worker without an LLM, or an LLM that keeps failing, leaves the answer to the question
// alone, and the returned note says so; a configuration error fails the run.
func expandQuery(ctx, embedCtx workflow.Context, o *ExpandOptions, text string, asOf time.Time) ([]answer.Variant, string, error) {
	llmCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueLLM,
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			MaximumAttempts: 3, NonRetryableErrorTypes: []string{activities.ErrTypeConfig, activities.ErrTypeInvalidInput}},
	})
	var ex activities.ExpandQueryResult
	err := workflow.ExecuteActivity(llmCtx, a.ExpandQuery, activities.ExpandQueryInput{Query: text, AsOf: asOf, Queries: o.Queries, HyDE: o.HyDE}).Get(ctx, &ex)
	switch {
	case isConfigError(err):
		return nil, "", fmt.Errorf("expand query: %w", err)
	case err != nil:
		return nil, "; query expansion failed (" + rootMessage(err) + "), the question alone was searched", nil
	case ex.Skipped:
		return nil, "; no LLM for query expansion, the question alone was searched", nil
	}
	var ev activities.EmbedVariantsResult
	if err := workflow.ExecuteActivity(embedCtx, a.EmbedVariants, activities.EmbedVariantsInput{Queries: ex.Queries, Passage: ex.Passage}).Get(ctx, &ev); err != nil {
		return nil, "", fmt.Errorf("embed query variants: %w", err)
	}
	note := fmt.Sprintf("; also searched with %d LLM rephrasing(s)", len(ex.Queries))
	if ex.Passage != "" {
		note += " and a hypothetical answer (HyDE)"
	}
	return ev.Variants, note + ", fused by reciprocal rank", nil
}
