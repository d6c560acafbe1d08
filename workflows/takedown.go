package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/schemas"
)

// TakeDown removes documents from an index (asof docs delete): every version of each doc_id
// leaves every answer, as of any day, from the manifest that records the takedown on. The
// takedown's time is the workflow's; a build that publishes meanwhile keeps it (it carries the
// live manifest's takedowns), and one that runs later counts the documents' rows as deleted.
func TakeDown(ctx workflow.Context, in TakeDownInput) (TakeDownResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute, // it reads every shard's doc_id column
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        5,
			NonRetryableErrorTypes: []string{ErrTypeInvalidInput},
		},
	})
	var res activities.TakeDownResult
	at := workflow.Now(ctx).UTC()
	if len(in.DocIDs) > 0 || !in.Purge {
		err := workflow.ExecuteActivity(actx, a.TakeDown, activities.TakeDownInput{
			Index: in.Index, DocIDs: in.DocIDs, Reason: in.Reason, At: at,
		}).Get(ctx, &res)
		if err != nil {
			return TakeDownResult{}, fmt.Errorf("take down in %s: %w", in.Index, err)
		}
	}
	if !in.Purge {
		return res, nil
	}
	// The purge rewrites shards (BM25 built anew) and reads every stored answer and digest: it
	// heartbeats each shard and object, and a retry resumes from what the store holds.
	pctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 6 * time.Hour,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        10,
			NonRetryableErrorTypes: []string{ErrTypeInvalidInput},
		},
	})
	p := activities.PurgeInput{Index: in.Index, At: at}
	var purged schemas.PurgeResult
	if err := workflow.ExecuteActivity(pctx, a.PurgeShards, p).Get(ctx, &purged); err != nil {
		return res, fmt.Errorf("purge %s: %w", in.Index, err)
	}
	if err := workflow.ExecuteActivity(pctx, a.PurgeSweep, p).Get(ctx, &purged.Sweep); err != nil {
		return res, fmt.Errorf("purge %s: sweep the store: %w", in.Index, err)
	}
	res.Purge = &purged
	if res.ManifestKey == "" || !purged.Unchanged {
		res.ManifestKey, res.Seq = purged.ManifestKey, purged.Seq
	}
	return res, nil
}
