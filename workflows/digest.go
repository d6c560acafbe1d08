package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/schemas"
)

// Digest answers every topic as of one day — one child Ask per topic, a few at a time — and
// writes one digest (JSON, Markdown, self-contained HTML) under digests/<name>/<day>/. A topic
// whose answer fails is reported in the digest; the others still are.
func Digest(ctx workflow.Context, in DigestInput) (DigestResult, error) {
	if len(in.Topics) > digest.MaxTopics { // with querycap, the topics' payloads stay bounded
		return DigestResult{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%d topics: a digest takes at most %d (split them into several digests)", len(in.Topics), digest.MaxTopics), activities.ErrTypeInvalidInput, nil)
	}
	for i, t := range in.Topics {
		if err := querycap.Check(fmt.Sprintf("the query of topic %d (%s)", i+1, t.Name), t.Query); err != nil {
			return DigestResult{}, temporal.NewNonRetryableApplicationError(err.Error(), activities.ErrTypeInvalidInput, nil)
		}
	}
	quick := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{activities.ErrTypeInvalidInput}},
	})
	var plan activities.PlanDigestResult
	if err := workflow.ExecuteActivity(quick, a.PlanDigest, activities.PlanDigestInput{
		Name: in.Name, Index: in.Index, Topics: in.Topics, AsOf: in.AsOf, Now: workflow.Now(ctx), TimeZone: in.TimeZone,
		AsOfMode: in.AsOfMode, // an activity input: replay does not compare it, no GetVersion needed
	}).Get(ctx, &plan); err != nil {
		return DigestResult{}, fmt.Errorf("plan digest: %w", err)
	}
	conc := in.Concurrency
	if conc < 1 {
		conc = 2
	}
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	ask := func(ctx workflow.Context, i int) (digest.TopicRef, workflow.ChildWorkflowFuture) {
		t := in.Topics[i]
		id := fmt.Sprintf("%s-t%02d", self, i+1)
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id, TaskQueue: TaskQueue})
		return digest.TopicRef{Name: t.Name, Query: t.Query, AskRunID: id}, workflow.ExecuteChildWorkflow(cctx, Ask, AskInput{
			Index: in.Index, Query: t.Query, AsOf: plan.AsOf, Mode: t.Mode, Judge: in.Judge, Summarizer: in.Summarizer,
		})
	}
	// A history is one child Timeline per topic beside its Ask (runs started before the version,
	// or without History, have none).
	history := in.History > 0 && workflow.GetVersion(ctx, "digest-history", workflow.DefaultVersion, 1) == 1
	var refs []digest.TopicRef
	if workflow.GetVersion(ctx, fanOutVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		refs = askTopicsInOrder(ctx, len(in.Topics), conc, ask)
	} else {
		// A topic's failure is reported in the digest, not returned: no job fails.
		refs, _ = fanOut(ctx, len(in.Topics), conc, func(ctx workflow.Context, i int) (digest.TopicRef, error) {
			ref, f := ask(ctx, i)
			var tf workflow.ChildWorkflowFuture
			if history {
				ref.HistoryRunID = fmt.Sprintf("%s-t%02d-history", self, i+1)
				hctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: ref.HistoryRunID, TaskQueue: TaskQueue})
				tf = workflow.ExecuteChildWorkflow(hctx, Timeline, TimelineInput{Index: in.Index, Topic: in.Topics[i].Query, AsOf: plan.AsOf, Dates: in.History, Quiet: true})
			}
			var ans schemas.Answer
			if err := f.Get(ctx, &ans); err != nil {
				ref.Error = rootMessage(err)
			}
			if tf != nil {
				var tl schemas.Timeline
				if err := tf.Get(ctx, &tl); err != nil {
					ref.HistoryError = rootMessage(err)
				}
			}
			return ref, nil
		})
	}
	var keys activities.WriteDigestKeys
	if err := workflow.ExecuteActivity(quick, a.WriteDigest, activities.WriteDigestInput{
		Name: plan.Name, Index: in.Index, AsOf: plan.AsOf, TimeZone: plan.TimeZone, RunID: self, Topics: refs,
	}).Get(ctx, &keys); err != nil {
		return DigestResult{}, fmt.Errorf("write digest: %w", err)
	}
	out := DigestResult{AsOf: plan.AsOf, Keys: keys, Topics: len(refs)}
	for _, r := range refs {
		if r.Error != "" {
			out.Failed++
		}
	}
	return out, nil
}

// askTopicsInOrder is how Digest bounded its children before fanOut (runs started then replay
// it): topic i starts once topic i-conc has finished, waiting in topic order.
func askTopicsInOrder(ctx workflow.Context, n, conc int, ask func(workflow.Context, int) (digest.TopicRef, workflow.ChildWorkflowFuture)) []digest.TopicRef {
	refs := make([]digest.TopicRef, n)
	futures := make([]workflow.ChildWorkflowFuture, n)
	wait := func(i int) {
		var ans schemas.Answer
		if err := futures[i].Get(ctx, &ans); err != nil {
			refs[i].Error = rootMessage(err)
		}
	}
	for i := range n {
		if i >= conc {
			wait(i - conc)
		}
		refs[i], futures[i] = ask(ctx, i)
	}
	for i := max(0, n-conc); i < n; i++ {
		wait(i)
	}
	return refs
}
