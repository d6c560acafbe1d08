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
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// on reports whether the options ask for anything.
func (o *ExpandOptions) on() bool { return o != nil && (o.Queries > 0 || o.HyDE) }

// Colocated says which activities of the asof-embed and asof-llm queues the worker process
// that runs a workflow can run itself, so that Ask may run them as local activities in that
// process rather than a trip through another queue. worker.Run sets it from the queues the
// process polls and what it holds (RegisterColocated); the zero value, which Register and the
// replayer use, runs them as regular activities on their queues.
type Colocated struct {
	// QueryEmbedder: the process polls asof-embed and holds the query embedder, so EmbedQuery
	// runs here. A split deployment whose embedder is a separate (GPU) worker leaves it false.
	QueryEmbedder bool `json:"query_embedder"`
	// NoLLM: the process polls asof-llm and has no LLM, so the auto judge is the heuristic
	// (run here) and Summarize would only say it skipped (not called).
	NoLLM bool `json:"no_llm"`
	// HeuristicJudge: the process polls asof-llm and its auto judge is the heuristic (no LLM,
	// or llm.judge heuristic, --llm local's default), so the auto judge runs here.
	HeuristicJudge bool `json:"heuristic_judge"`
}

// Ask answers a question as of a date: read the query (mode and dates), embed it on the
// asof-embed queue, then retrieve the judge's pool, judge it in batches on asof-llm, build the
// context, summarize it and save the answer. Since version "ask-local" the steps that need
// only the CPU and the store run as local activities in the workflow's own worker (no trip
// through a task queue between them), and EmbedQuery, the heuristic judge and the skipped
// summary too where Colocated says this process serves them.
func Ask(ctx workflow.Context, in AskInput) (schemas.Answer, error) {
	return Colocated{}.ask(ctx, in)
}

// ask is Ask on a worker whose process serves what c says (RegisterColocated registers it).
func (c Colocated) ask(ctx workflow.Context, in AskInput) (schemas.Answer, error) {
	if err := querycap.Check("the query", in.Query); err != nil {
		return schemas.Answer{}, temporal.NewNonRetryableApplicationError(err.Error(), activities.ErrTypeInvalidInput, nil)
	}
	asOf, err := askAnchor(ctx, in)
	if err != nil {
		return schemas.Answer{}, err
	}
	// local: run the CPU-only steps (ReadQuery, Candidates, the heuristic judge, Compose,
	// SaveAnswer) as local activities. here: what this worker's process serves besides, read
	// once through SideEffect rather than from an input field: the caller does not know which
	// worker will run the workflow (a client, a Digest parent), the worker does; and the
	// recorded value makes every replay, on any worker or the replayer, take the same branches
	// even where that worker serves other queues. Runs started before the version replay the
	// regular activities.
	local := workflow.GetVersion(ctx, "ask-local", workflow.DefaultVersion, 1) == 1
	var here Colocated
	if local {
		if err := workflow.SideEffect(ctx, func(workflow.Context) any { return c }).Get(&here); err != nil {
			return schemas.Answer{}, fmt.Errorf("read the worker's colocated queues: %w", err)
		}
	}
	quick := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3},
	})
	var read activities.ReadQueryResult
	if err := maybeLocal(quick, local, a.ReadQuery, activities.ReadQueryInput{
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
		embedHere := local && here.QueryEmbedder
		ei := activities.EmbedQueryInput{Text: read.Text, Index: in.Index} // embedded with the index's model
		err := maybeLocal(embedCtx, embedHere, a.EmbedQuery, ei).Get(ctx, &emb)
		if embedHere && isConfigError(err) {
			// The run moved to a worker without the embedder after the first one recorded
			// here (it died mid-run): the asof-embed queue's workers embed instead.
			err = workflow.ExecuteActivity(embedCtx, a.EmbedQuery, ei).Get(ctx, &emb)
		}
		if err != nil {
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
		v, note, err := expandQuery(ctx, embedCtx, in.Expand, in.Index, read.Text, asOf)
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
	if err := maybeLocal(answerCtx, local, a.Candidates, activities.CandidatesInput{AnswerInput: ai, Pool: jo.Pool}).Get(ctx, &cand); err != nil {
		return schemas.Answer{}, fmt.Errorf("retrieve: %w", err)
	}
	llmOpts := workflow.ActivityOptions{
		TaskQueue:           config.QueueLLM,
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: int32(jo.MaxAttempts), NonRetryableErrorTypes: []string{activities.ErrTypeConfig, activities.ErrTypeInvalidInput}},
	}
	llmCtx := workflow.WithActivityOptions(ctx, llmOpts)
	// The summary is one or two LLM calls (the reply, then a repair turn), each bounded by the
	// client's timeout (llm.timeout; 5 minutes on --llm local, where a 6,000-token prompt
	// takes about 3 on 2 cores): the activity has room for both, and heartbeats while it
	// waits, so a lost worker is seen within a minute.
	sumOpts := llmOpts
	sumOpts.StartToCloseTimeout, sumOpts.HeartbeatTimeout = summarizeTimeout, time.Minute
	sumCtx := workflow.WithActivityOptions(ctx, sumOpts)
	ci := activities.ComposeInput{AnswerInput: ai, Answer: cand.Answer, Key: cand.Key, Keep: jo.Failure != FailureDrop}
	// The heuristic judge needs only the CPU and the store: it runs here when asked for, or when
	// auto would pick it because this process is the asof-llm worker and has no LLM. An LLM
	// judge stays on asof-llm, its calls regular activities with their retries.
	judgeHere := local && (jo.Mode == judge.ModeHeuristic || jo.Mode == judge.ModeAuto && (here.NoLLM || here.HeuristicJudge))
	verdicts, unjudged, rep, err := judgeAll(ctx, llmCtx, jo, judgeHere, cand, in.Query, read.Text, asOf)
	if err != nil {
		return schemas.Answer{}, err
	}
	ci.Verdicts, ci.Unjudged, ci.Report = verdicts, unjudged, rep
	if jo.Mode == judge.ModeOff {
		ci.Keep = true
	}
	var ans schemas.Answer
	if err := maybeLocal(answerCtx, local, a.Compose, ci).Get(ctx, &ans); err != nil {
		return schemas.Answer{}, fmt.Errorf("compose: %w", err)
	}
	// Without an LLM on asof-llm (this process is that worker) Summarize would only skip: the
	// extractive summary Compose made stands.
	if in.Summarizer != "extractive" && len(ans.Blocks) > 0 && !(local && here.NoLLM) {
		var sum activities.SummarizeResult
		err := workflow.ExecuteActivity(sumCtx, a.Summarize, activities.SummarizeInput{
			Query: in.Query, AsOf: asOf, Mode: ans.Mode, Blocks: ans.Blocks, NewDays: so.NewDays,
		}).Get(ctx, &sum)
		switch {
		case isConfigError(err):
			return schemas.Answer{}, fmt.Errorf("summarize: %w", err)
		case err != nil:
			if ans.Brief != nil {
				note := "The LLM summary failed after every retry (" + rootMessage(err) + "); this is the extractive summary."
				if app := (*temporal.ApplicationError)(nil); errors.As(err, &app) && app.Type() == activities.ErrTypeBadSummary {
					note = "The LLM summary failed its checks (" + app.Message() + "); this is the extractive summary."
				}
				ans.Brief.Note = strings.TrimSpace(ans.Brief.Note + " " + note)
				ans.Summary = render.Markdown(*ans.Brief, ans.Blocks) // pure: the note is part of what is shown
			}
		case !sum.Skipped:
			b := sum.Brief
			ans.Brief, ans.Summary, ans.SummaryMethod = &b, sum.Markdown, b.Method
			render.MarkShown(b, ans.Blocks) // pure: the numbers the LLM summary is shown with
		}
	}
	if err := maybeLocal(quick, local, a.SaveAnswer, ans).Get(ctx, nil); err != nil {
		return schemas.Answer{}, fmt.Errorf("save answer: %w", err)
	}
	if in.Quiet {
		return schemas.Answer{Version: ans.Version, RunID: ans.RunID, Index: ans.Index, Query: ans.Query, AsOf: ans.AsOf, Mode: ans.Mode,
			SummaryMethod: ans.SummaryMethod}, nil
	}
	return ans, nil
}

// summarizeTimeout bounds one Summarize attempt: two LLM calls at --llm local's 5-minute
// request timeout, and room to spare.
const summarizeTimeout = 15 * time.Minute

// judgeAll fans the pool out in batches on the asof-llm queue and gathers the verdicts; with
// here, the batches are heuristic local activities in this worker. A batch that fails after
// its retries follows the failure policy; a configuration error fails the answer whatever the
// policy, since no batch could succeed.
func judgeAll(ctx, llmCtx workflow.Context, jo JudgeOptions, here bool, cand activities.CandidatesResult, query, searchText string, asOf time.Time) (
	verdicts []judge.Verdict, unjudged []int, rep schemas.JudgeReport, err error) {
	rep = schemas.JudgeReport{Method: judge.ModeOff, Policy: jo.Failure}
	if jo.Mode == judge.ModeOff || cand.Pool == 0 {
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
		mode := jo.Mode
		if here {
			mode = judge.ModeHeuristic // never an LLM call as a local activity
		}
		f := maybeLocal(llmCtx, here, a.Judge, activities.JudgeInput{Key: cand.Key, Query: query, SearchText: searchText, AsOf: asOf, From: from, To: to, Mode: mode})
		bs = append(bs, batch{from, to, f})
	}
	rep.Batches = len(bs)
	for _, b := range bs {
		var res activities.JudgeResult
		if err := b.f.Get(ctx, &res); err != nil {
			if isConfigError(err) || jo.Failure == FailureFail {
				return nil, nil, rep, fmt.Errorf("judge candidates %d..%d: %w", b.from, b.to, err)
			}
			rep.FailedBatches++
			rep.Failed += b.to - b.from + 1
			if rep.Reason == "" {
				rep.Reason = fmt.Sprintf("candidates %d..%d: %s", b.from, b.to, rootMessage(err))
			}
			for r := b.from; r <= b.to; r++ {
				unjudged = append(unjudged, r)
			}
			continue
		}
		if rep.Method == judge.ModeOff {
			rep.Method = res.Method
		}
		rep.Judged += len(res.Verdicts)
		verdicts = append(verdicts, res.Verdicts...)
	}
	if rep.Method == judge.ModeOff { // no batch came back
		rep.Method = jo.Mode + " (every batch failed)"
	}
	return verdicts, unjudged, rep, nil
}

// maybeLocal runs the activity fn(arg) as a local activity in this worker when local is set,
// with the start-to-close timeout and retry policy of ctx's activity options, else as the
// regular activity ctx's options describe. A local activity has no heartbeat: the worker
// running it is the workflow's own, and its workflow task times out if that worker dies.
func maybeLocal(ctx workflow.Context, local bool, fn, arg any) workflow.Future {
	if !local {
		return workflow.ExecuteActivity(ctx, fn, arg)
	}
	ao := workflow.GetActivityOptions(ctx)
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: ao.StartToCloseTimeout, RetryPolicy: ao.RetryPolicy,
	}), fn, arg)
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

// expandQuery asks the LLM (asof-llm) for the question's variants and embeds them (asof-embed)
// with the model of index. A worker without an LLM, or an LLM that keeps failing, leaves the
// answer to the question alone, and the returned note says so; a configuration error fails the run.
func expandQuery(ctx, embedCtx workflow.Context, o *ExpandOptions, index, text string, asOf time.Time) ([]answer.Variant, string, error) {
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
	if err := workflow.ExecuteActivity(embedCtx, a.EmbedVariants, activities.EmbedVariantsInput{Queries: ex.Queries, Passage: ex.Passage, Index: index}).Get(ctx, &ev); err != nil {
		return nil, "", fmt.Errorf("embed query variants: %w", err)
	}
	note := fmt.Sprintf("; also searched with %d LLM rephrasing(s)", len(ex.Queries))
	if ex.Passage != "" {
		note += " and a hypothetical answer (HyDE)"
	}
	return ev.Variants, note + ", fused by reciprocal rank", nil
}

// askAnchor is the day an Ask answers as of: in.AsOf, or with AsOfToday the workflow's own
// current day. A day outside asofday.Check's years, a zero AsOf without AsOfToday (version
// "explicit-as-of"; runs started before it took the zero time as today) and both together are
// refused as invalid input.
func askAnchor(ctx workflow.Context, in AskInput) (time.Time, error) {
	invalid := func(msg string) error {
		return temporal.NewNonRetryableApplicationError(msg, activities.ErrTypeInvalidInput, nil)
	}
	switch {
	case !in.AsOf.IsZero() && in.AsOfToday:
		return time.Time{}, invalid("as_of and as_of_today are both set: give one")
	case !in.AsOf.IsZero():
		if err := asofday.Check(in.AsOf); err != nil {
			return time.Time{}, invalid("as_of: " + err.Error())
		}
		return asofday.Start(in.AsOf), nil
	case !in.AsOfToday && workflow.GetVersion(ctx, "explicit-as-of", workflow.DefaultVersion, 1) == 1:
		return time.Time{}, invalid("as_of is not set: give the day to answer as of, or as_of_today: true for the workflow's current day")
	}
	return asofday.Start(workflow.Now(ctx).UTC()), nil
}
