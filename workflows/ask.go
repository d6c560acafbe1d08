package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/contextx"
	"github.com/asofrag/asof/internal/dedup"
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
	Context *contextx.Options  `json:"context,omitempty"`
	Summary *summarize.Options `json:"summary,omitempty"`
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
	y, m, d := asOf.UTC().Date()
	asOf = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
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
	co := contextx.DefaultOptions()
	if in.Context != nil {
		co = *in.Context
	}
	so := summarize.DefaultOptions()
	if in.Summary != nil {
		so = *in.Summary
	}
	answerCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var ans schemas.Answer
	err := workflow.ExecuteActivity(answerCtx, a.Answer, activities.AnswerInput{
		RunID: workflow.GetInfo(ctx).WorkflowExecution.ID, Index: in.Index, Query: in.Query, AsOf: asOf, Read: read,
		Vector: emb.Vector, Model: emb.Model, Options: opts, Dedup: dd, Context: co, Summary: so,
	}).Get(ctx, &ans)
	if err != nil {
		return schemas.Answer{}, fmt.Errorf("answer: %w", err)
	}
	return ans, nil
}
