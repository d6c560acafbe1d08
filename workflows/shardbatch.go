package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// BuildShardBatchInput names a batch of consecutive periods' staged documents
// (indexplan.Batches: at most indexplan.BatchMaxShards, each about 0.2 KB here).
type BuildShardBatchInput struct {
	Index  string                 `json:"index"`
	Shards []indexplan.PeriodPlan `json:"shards"`
	Chunk  schemas.ChunkConfig    `json:"chunk"`
	// Model is the embedding model the plan named the shards for; the embedding worker checks
	// it has that model.
	Model schemas.ModelRef `json:"model"`
	// EmbedPartSize and EmbedHeartbeat: see IndexBuildInput.
	EmbedPartSize  int           `json:"embed_part_size"`
	EmbedHeartbeat time.Duration `json:"embed_heartbeat"`
}

// BuildShardBatchResult counts what a batch built: its shards (whose metas stay in the store,
// where PublishManifest reads them), their chunks and documents, the documents cut by
// MaxChunksPerDoc, and the embedding parts computed and found stored.
type BuildShardBatchResult struct {
	Shards        int `json:"shards"`
	Chunks        int `json:"chunks"`
	Docs          int `json:"docs"`
	Truncated     int `json:"truncated"`
	PartsEmbedded int `json:"parts_embedded"`
	PartsResumed  int `json:"parts_resumed"`
}

// BuildShardBatch is BuildShard for a batch of shards at the cost of one: ChunkShard, EmbedShard
// (on the asof-embed queue, resuming after the last stored part of each shard on retry) and
// WriteShard each run once, over the list. Each shard is written as BuildShard writes it.
func BuildShardBatch(ctx workflow.Context, in BuildShardBatchInput) (BuildShardBatchResult, error) {
	storeCtx := shardStoreCtx(ctx)
	res := BuildShardBatchResult{Shards: len(in.Shards)}
	chunkIn := activities.ChunkShardInput{Shards: make([]activities.ChunkShardInput, len(in.Shards))}
	for i, p := range in.Shards {
		chunkIn.Shards[i] = activities.ChunkShardInput{Index: in.Index, ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: in.Chunk}
		res.Docs += p.Docs
	}
	var ch activities.ChunkShardResult
	if err := workflow.ExecuteActivity(storeCtx, a.ChunkShard, chunkIn).Get(ctx, &ch); err != nil {
		return res, fmt.Errorf("chunk: %w", err)
	}
	if err := batchAnswered("chunk", len(ch.Shards), len(in.Shards)); err != nil {
		return res, err
	}
	embedCtx := shardEmbedCtx(ctx, in.EmbedHeartbeat)
	embedIn := activities.EmbedShardInput{Model: in.Model, Shards: make([]activities.EmbedShardInput, len(in.Shards))}
	for i, p := range in.Shards {
		embedIn.Shards[i] = activities.EmbedShardInput{ChunksKey: ch.Shards[i].ChunksKey, VectorsPrefix: layout.VectorsPrefix(in.Index, p.ShardID), PartSize: in.EmbedPartSize, Model: in.Model}
		res.Chunks += ch.Shards[i].Chunks
		res.Truncated += ch.Shards[i].Truncated
	}
	var emb activities.EmbedShardResult
	if err := workflow.ExecuteActivity(embedCtx, a.EmbedShard, embedIn).Get(ctx, &emb); err != nil {
		return res, fmt.Errorf("embed: %w", err)
	}
	if err := batchAnswered("embed", len(emb.Shards), len(in.Shards)); err != nil {
		return res, err
	}
	writeIn := activities.WriteShardInput{Shards: make([]activities.WriteShardInput, len(in.Shards))}
	for i, p := range in.Shards {
		writeIn.Shards[i] = activities.WriteShardInput{Index: in.Index, Period: p.Period, ShardID: p.ShardID, Docs: p.Docs,
			ChunksKey: ch.Shards[i].ChunksKey, VectorsPrefix: embedIn.Shards[i].VectorsPrefix, Parts: emb.Shards[i].Parts}
		res.PartsEmbedded += emb.Shards[i].Embedded
		res.PartsResumed += emb.Shards[i].Resumed
	}
	if err := workflow.ExecuteActivity(storeCtx, a.WriteShard, writeIn).Get(ctx, nil); err != nil {
		return res, fmt.Errorf("write: %w", err)
	}
	return res, nil
}

// batchAnswered refuses a batch activity's result that does not list every shard of the batch:
// a worker older than the batch forms (it reads the batch as one shard of no name).
func batchAnswered(step string, got, want int) error {
	if got == want {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: the worker answered for %d of the batch's %d shards (an asof worker older than this build's workflow?)", step, got, want), ErrTypeInvalidInput, nil)
}

// buildBatches builds todo in batches of consecutive periods, one BuildShardBatch child each,
// at most in.Concurrency children at once (fanOut), and tallies each finished batch. The
// batches (indexplan.Batches over the periods' documents) are decided in a SideEffect, so a
// replay builds the ones this run recorded even if the rule's bounds change later. Every shard
// of a batch is in prog.InFlight while its child runs.
func buildBatches(ctx workflow.Context, buildID string, in IndexBuildInput, model schemas.ModelRef, todo []indexplan.PeriodPlan, prog *Progress, tally func(BuildShardBatchResult)) error {
	docs := make([]int, len(todo))
	for i, p := range todo {
		docs[i] = p.Docs
	}
	var sizes []int
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return indexplan.Batches(docs, indexplan.DefaultBatchOptions()) }).Get(&sizes); err != nil {
		return err
	}
	batches := make([][]indexplan.PeriodPlan, len(sizes))
	at := 0
	for i, n := range sizes {
		if n < 1 || at+n > len(todo) {
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("batches %v do not cover the %d shards to build", sizes, len(todo)), ErrTypeInvalidInput, nil)
		}
		batches[i], at = todo[at:at+n], at+n
	}
	_, err := fanOut(ctx, len(batches), in.Concurrency, func(ctx workflow.Context, k int) (struct{}, error) {
		b := batches[k]
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: batchWorkflowID(buildID, b[0].ShardID),
			TaskQueue:  TaskQueue,
		})
		f := workflow.ExecuteChildWorkflow(cctx, BuildShardBatch, BuildShardBatchInput{
			Index: in.Index, Shards: b, Chunk: in.Chunk, Model: model, EmbedPartSize: in.EmbedPartSize, EmbedHeartbeat: in.EmbedHeartbeat,
		})
		for _, p := range b {
			prog.InFlight = append(prog.InFlight, InFlightShard{Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, Workflow: batchWorkflowID(buildID, b[0].ShardID)})
		}
		var r BuildShardBatchResult
		err := f.Get(ctx, &r)
		prog.InFlight = withoutInFlight(prog.InFlight, b)
		if err != nil {
			return struct{}{}, fmt.Errorf("batch of %d shards from %s (%s) to %s: %w", len(b), b[0].Period, b[0].ShardID, b[len(b)-1].Period, err)
		}
		tally(r)
		return struct{}{}, nil
	})
	return err
}

// withoutInFlight returns a new list of the shards of list that are not among done.
func withoutInFlight(list []InFlightShard, done []indexplan.PeriodPlan) []InFlightShard {
	gone := make(map[string]bool, len(done))
	for _, p := range done {
		gone[p.ShardID] = true
	}
	out := make([]InFlightShard, 0, len(list))
	for _, s := range list {
		if !gone[s.ShardID] {
			out = append(out, s)
		}
	}
	return out
}

// batchWorkflowID is the id of the BuildShardBatch child whose first shard is first.
func batchWorkflowID(buildID, first string) string { return buildID + "/batch-" + first }
