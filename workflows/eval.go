package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
)

// EvalInput is one bulk evaluation.
type EvalInput struct {
	// EvalID names the evaluation's folder (evals/<id>/); equal inputs give equal ids, so a
	// rerun finds finished batches and resumes.
	EvalID       string `json:"eval_id"`
	Index        string `json:"index"`
	QuestionsKey string `json:"questions_key"`
	QrelsKey     string `json:"qrels_key"`
	// Unlabelled: QuestionsKey holds queries without judgements (query_id, query,
	// anchor_date); only context freshness is measured.
	Unlabelled bool      `json:"unlabelled"`
	Systems    []string  `json:"systems"`
	Limit      int       `json:"limit"`
	Seed       uint64    `json:"seed"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	// BatchSize is how many questions one activity answers (default 25); Concurrency how many
	// batches run at once (default 2).
	BatchSize   int `json:"batch_size"`
	Concurrency int `json:"concurrency"`
}

// EvalResult is the evaluation's summary and where its files are.
type EvalResult struct {
	Finish   activities.FinishEvalResult `json:"finish"`
	Batches  int                         `json:"batches"`
	Resumed  int                         `json:"resumed"`
	Unjudged int                         `json:"unjudged"`
}

// EvalWorkflowID names an evaluation's run.
func EvalWorkflowID(evalID string) string { return "asof-eval-" + evalID }

// Eval plans the questions into batches; for each batch (a sliding window of Concurrency) it
// embeds the questions on asof-embed and answers them with every system on the default queue,
// each batch retried alone; then it gathers the rows into summary.json and per_query.parquet.
func Eval(ctx workflow.Context, in EvalInput) (EvalResult, error) {
	if in.BatchSize <= 0 {
		in.BatchSize = 25
	}
	if in.Concurrency <= 0 {
		in.Concurrency = 2
	}
	io := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	embedCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueEmbed,
		StartToCloseTimeout: 30 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var plan activities.PlanEvalResult
	if err := workflow.ExecuteActivity(io, a.PlanEval, activities.PlanEvalInput{
		EvalID: in.EvalID, QuestionsKey: in.QuestionsKey, QrelsKey: in.QrelsKey, Unlabelled: in.Unlabelled, Limit: in.Limit, Seed: in.Seed,
		BatchSize: in.BatchSize, From: in.From, To: in.To,
	}).Get(ctx, &plan); err != nil {
		return EvalResult{}, fmt.Errorf("plan: %w", err)
	}
	res := EvalResult{Batches: len(plan.Batches), Unjudged: plan.Unjudged}
	keys := make([]string, len(plan.Batches))
	var firstErr error
	sel := workflow.NewSelector(ctx)
	running, next := 0, 0
	start := func(n int) {
		batch := plan.Batches[n]
		f := workflow.ExecuteActivity(embedCtx, a.EmbedTexts, activities.EmbedTextsInput{Texts: questionsOf(batch)})
		running++
		sel.AddFuture(f, func(f workflow.Future) {
			var emb activities.EmbedTextsResult
			if err := f.Get(ctx, &emb); err != nil {
				running--
				if firstErr == nil {
					firstErr = fmt.Errorf("embed batch %d: %w", n, err)
				}
				return
			}
			g := workflow.ExecuteActivity(io, a.EvalBatch, activities.EvalBatchInput{
				EvalID: in.EvalID, Batch: n, Index: in.Index, QrelsKey: in.QrelsKey, Systems: in.Systems,
				Questions: batch, Vectors: emb.Vectors, Model: emb.Model,
			})
			sel.AddFuture(g, func(g workflow.Future) {
				running--
				var br activities.EvalBatchResult
				if err := g.Get(ctx, &br); err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("batch %d: %w", n, err)
					}
					return
				}
				keys[n] = br.Key
				if br.Resumed {
					res.Resumed++
				}
			})
		})
	}
	for next < len(plan.Batches) || running > 0 {
		for running < in.Concurrency && next < len(plan.Batches) && firstErr == nil {
			start(next)
			next++
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
	}
	if firstErr != nil {
		return res, firstErr
	}
	if err := workflow.ExecuteActivity(io, a.FinishEval, activities.FinishEvalInput{
		EvalID: in.EvalID, Index: in.Index, Systems: in.Systems, BatchKeys: keys, Questions: plan.Questions, Unlabelled: in.Unlabelled, Generated: workflow.Now(ctx).UTC(),
	}).Get(ctx, &res.Finish); err != nil {
		return res, fmt.Errorf("finish: %w", err)
	}
	return res, nil
}

func questionsOf(batch []activities.EvalQuestionRef) []string {
	out := make([]string, len(batch))
	for i, q := range batch {
		out[i] = q.Question
	}
	// Then the auto readings' texts that differ from their question (what ask embeds in auto
	// mode), in batch order: EvalBatch takes them from the end.
	for _, q := range batch {
		if q.AutoText != "" {
			out = append(out, q.AutoText)
		}
	}
	return out
}
