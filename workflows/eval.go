package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
)

// evalVectorsVersion is the change ID of Eval storing each batch's query vectors
// (layout.EvalVectorsKey) instead of carrying them through the history: one eval of 785
// questions wrote 12.5 MB of history that way, and Temporal ends a run at 50 MB.
const evalVectorsVersion = "eval-vectors-in-store"

// evalPlanVersion is the change ID of Eval keeping its question list in the store: PlanEval
// writes each batch's questions (layout.EvalPlanKey) and returns their count, the embedding and
// answering activities read them by key, and FinishEval derives the batches' keys. Before it, an
// evaluation of 4,507 questions sent an 822 KB plan through the history (Temporal warns at
// 512 KB and refuses 2 MB); now every payload's size is independent of the question count.
const evalPlanVersion = "eval-plan-in-store"

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
	ioOpts := workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	}
	embedOpts := workflow.ActivityOptions{
		TaskQueue:           config.QueueEmbed,
		StartToCloseTimeout: 30 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	}
	storeCtx := workflow.WithActivityOptions(ctx, ioOpts)
	// Runs started before the plan went to the store carried every question in the history.
	planStored := workflow.GetVersion(ctx, evalPlanVersion, workflow.DefaultVersion, 1) >= 1
	var plan activities.PlanEvalResult
	if err := workflow.ExecuteActivity(storeCtx, a.PlanEval, activities.PlanEvalInput{
		EvalID: in.EvalID, QuestionsKey: in.QuestionsKey, QrelsKey: in.QrelsKey, Unlabelled: in.Unlabelled, Limit: in.Limit, Seed: in.Seed,
		BatchSize: in.BatchSize, From: in.From, To: in.To, Store: planStored,
	}).Get(ctx, &plan); err != nil {
		return EvalResult{}, fmt.Errorf("plan: %w", err)
	}
	nBatches := len(plan.Batches)
	if planStored {
		nBatches = plan.BatchCount
	}
	res := EvalResult{Batches: nBatches, Unjudged: plan.Unjudged}
	// Runs started before the vectors went to the store passed them through the history.
	stored := workflow.GetVersion(ctx, evalVectorsVersion, workflow.DefaultVersion, 1) >= 1
	embed := func(ctx workflow.Context, n int) workflow.Future {
		ei := activities.EmbedTextsInput{Index: in.Index} // embedded with the index's model
		if planStored {
			ei.PlanKey = layout.EvalPlanKey(in.EvalID, n)
		} else {
			ei.Texts = evalrun.Texts(plan.Batches[n])
		}
		if stored {
			ei.Key = layout.EvalVectorsKey(in.EvalID, n)
		}
		return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, embedOpts), a.EmbedTexts, ei)
	}
	answer := func(ctx workflow.Context, n int, emb activities.EmbedTextsResult) workflow.Future {
		bi := activities.EvalBatchInput{
			EvalID: in.EvalID, Batch: n, Index: in.Index, QrelsKey: in.QrelsKey, Systems: in.Systems,
			Vectors: emb.Vectors, VectorsKey: emb.Key, Model: emb.Model,
		}
		if planStored {
			bi.PlanKey = layout.EvalPlanKey(in.EvalID, n)
		} else {
			bi.Questions = plan.Batches[n]
		}
		return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ioOpts), a.EvalBatch, bi)
	}
	var batches []activities.EvalBatchResult
	var err error
	if workflow.GetVersion(ctx, fanOutVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		batches, err = evalBatchesWindow(ctx, nBatches, in.Concurrency, embed, answer)
	} else {
		batches, err = fanOut(ctx, nBatches, in.Concurrency, func(ctx workflow.Context, n int) (activities.EvalBatchResult, error) {
			var emb activities.EmbedTextsResult
			if err := embed(ctx, n).Get(ctx, &emb); err != nil {
				return activities.EvalBatchResult{}, fmt.Errorf("embed batch %d: %w", n, err)
			}
			var br activities.EvalBatchResult
			if err := answer(ctx, n, emb).Get(ctx, &br); err != nil {
				return activities.EvalBatchResult{}, fmt.Errorf("batch %d: %w", n, err)
			}
			return br, nil
		})
	}
	if err != nil {
		return res, err
	}
	keys := make([]string, len(batches))
	for n, br := range batches {
		keys[n] = br.Key
		if br.Resumed {
			res.Resumed++
		}
	}
	fi := activities.FinishEvalInput{
		EvalID: in.EvalID, Index: in.Index, Systems: in.Systems, BatchKeys: keys, Questions: plan.Questions, Unlabelled: in.Unlabelled, Generated: workflow.Now(ctx).UTC(),
	}
	if planStored { // the keys follow from the id and the count (layout.EvalBatchKey)
		fi.BatchKeys, fi.Batches = nil, len(batches)
	}
	if err := workflow.ExecuteActivity(storeCtx, a.FinishEval, fi).Get(ctx, &res.Finish); err != nil {
		return res, fmt.Errorf("finish: %w", err)
	}
	return res, nil
}

// evalBatchesWindow is the sliding window of batches, each an embedding then an answer, that
// Eval ran before fanOut; runs started then replay it. Results are in batch order.
func evalBatchesWindow(ctx workflow.Context, batches, limit int, embed func(workflow.Context, int) workflow.Future,
	answer func(workflow.Context, int, activities.EmbedTextsResult) workflow.Future) ([]activities.EvalBatchResult, error) {
	out := make([]activities.EvalBatchResult, batches)
	var firstErr error
	sel := workflow.NewSelector(ctx)
	running, next := 0, 0
	start := func(n int) {
		f := embed(ctx, n)
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
			sel.AddFuture(answer(ctx, n, emb), func(g workflow.Future) {
				running--
				if err := g.Get(ctx, &out[n]); err != nil {
					out[n] = activities.EvalBatchResult{}
					if firstErr == nil {
						firstErr = fmt.Errorf("batch %d: %w", n, err)
					}
				}
			})
		})
	}
	for next < batches || running > 0 {
		for running < limit && next < batches && firstErr == nil {
			start(next)
			next++
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
	}
	return out, firstErr
}
