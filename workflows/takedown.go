package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
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
	err := workflow.ExecuteActivity(actx, a.TakeDown, activities.TakeDownInput{
		Index: in.Index, DocIDs: in.DocIDs, Reason: in.Reason, At: workflow.Now(ctx).UTC(),
	}).Get(ctx, &res)
	if err != nil {
		return TakeDownResult{}, fmt.Errorf("take down in %s: %w", in.Index, err)
	}
	return res, nil
}
