package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/schemas"
)

// Timeline builds the dated events of a topic as of a day: the topic is embedded on the
// asof-embed queue with the index's model (unless BM25Only), then one activity finds the
// passages about it up to the anchor, chooses the days they report and writes
// runs/<run-id>/timeline.json (activities.Timeline, internal/timeline).
func Timeline(ctx workflow.Context, in TimelineInput) (schemas.Timeline, error) {
	bad := func(msg string) error {
		return temporal.NewNonRetryableApplicationError(msg, activities.ErrTypeInvalidInput, nil)
	}
	if err := querycap.Check("the topic", in.Topic); err != nil {
		return schemas.Timeline{}, bad(err.Error())
	}
	if strings.TrimSpace(in.Topic) == "" {
		return schemas.Timeline{}, bad("the topic is empty: say what the timeline is about")
	}
	if in.AsOf.IsZero() {
		return schemas.Timeline{}, bad("as_of is not set: give the day the timeline is as of")
	}
	if err := asofday.Check(in.AsOf); err != nil {
		return schemas.Timeline{}, bad("as_of: " + err.Error())
	}
	asOf := asofday.Start(in.AsOf)
	if !in.From.IsZero() && in.From.After(asofday.Last(asOf)) {
		return schemas.Timeline{}, bad(fmt.Sprintf("from %s is after as_of %s", in.From.UTC().Format(time.DateOnly), asOf.Format(time.DateOnly)))
	}
	var emb activities.EmbedQueryResult
	if !in.BM25Only {
		embedCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:           config.QueueEmbed,
			StartToCloseTimeout: 2 * time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
		})
		if err := workflow.ExecuteActivity(embedCtx, a.EmbedQuery, activities.EmbedQueryInput{Text: in.Topic, Index: in.Index}).Get(ctx, &emb); err != nil {
			return schemas.Timeline{}, fmt.Errorf("embed topic: %w", err)
		}
	}
	tlCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var out schemas.Timeline
	err := workflow.ExecuteActivity(tlCtx, a.Timeline, activities.TimelineInput{
		RunID: workflow.GetInfo(ctx).WorkflowExecution.ID, Index: in.Index, Topic: in.Topic, AsOf: asOf, From: in.From,
		Dates: in.Dates, Sentences: in.Sentences, Pool: in.Pool, Vector: emb.Vector, Model: emb.Model,
	}).Get(ctx, &out)
	if err != nil {
		return schemas.Timeline{}, fmt.Errorf("timeline: %w", err)
	}
	if in.Quiet {
		out.Entries = nil
	}
	return out, nil
}
