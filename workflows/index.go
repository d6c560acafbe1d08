package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// planInStoreVersion is the change ID of the plan kept in the store: runs started before it
// carried the plan's periods, the per-file table and the published shard list through their
// history (about 0.9 KB a shard and 0.2 KB a file), and planned again after each
// continue-as-new; they replay that path.
const planInStoreVersion = "plan-in-store"

// shardBatchVersion is the change ID of batched shards: runs started before it build one
// BuildShard child per shard (three activities each) and replay that path; newer ones build
// consecutive small periods together, one BuildShardBatch child per batch (indexplan.Batches).
const shardBatchVersion = "shard-batches"

// IndexBuild validates and plans the corpus, builds the periods that have no shard yet in
// batches of consecutive small periods (indexplan.Batches), one BuildShardBatch child per batch
// with at most Concurrency batches at once, and publishes the manifest last.
//
// The plan, the per-file table and the shard list live in the store (layout.BuildPlanKey,
// layout.BuildFilesKey); the first run plans, each run builds at most MaxShardsPerRun shards,
// fetched in pages of at most indexplan.PageMax, and continues as new with the plan's key, so
// no payload grows with the number of files or shards.
func IndexBuild(ctx workflow.Context, in IndexBuildInput) (IndexBuildResult, error) {
	if in.Period == "" {
		in.Period = "month"
	}
	if in.Concurrency <= 0 {
		in.Concurrency = 2
	}
	if in.AsOf.IsZero() {
		in.AsOf = workflow.Now(ctx).UTC()
	}
	if in.MaxShardsPerRun <= 0 {
		in.MaxShardsPerRun = 200
	}
	if in.Started.IsZero() {
		in.Started = workflow.Now(ctx).UTC()
	}
	carry := IndexBuildCarry{}
	if in.Carried != nil {
		carry = *in.Carried
	}
	carry.Runs++
	prog := Progress{Stage: "planning"}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) { return prog, nil }); err != nil {
		return IndexBuildResult{}, err
	}
	info := workflow.GetInfo(ctx)
	storeCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	if carry.Plan != nil || workflow.GetVersion(ctx, planInStoreVersion, workflow.DefaultVersion, 1) == 1 {
		return indexBuildStored(ctx, storeCtx, in, carry, &prog)
	}
	var plan activities.PlanIndexResult
	err := workflow.ExecuteActivity(storeCtx, a.PlanIndex, activities.PlanIndexInput{
		Index: in.Index, RunID: info.WorkflowExecution.RunID, Inputs: in.Inputs, Mapping: in.Mapping,
		From: in.From, To: in.To, Period: in.Period, Chunk: in.Chunk, Append: in.Append,
		Started: in.Started, AllowFuture: in.AllowFuture, Replace: in.Replace, Kind: in.Kind,
	}).Get(ctx, &plan)
	if err != nil {
		return IndexBuildResult{}, fmt.Errorf("plan: %w", err)
	}
	res := IndexBuildResult{Counts: plan.Counts, Files: plan.Files, QuarantineKey: plan.QuarantineKey, Runs: carry.Runs, MaxChunksPerDoc: in.Chunk.MaxChunksPerDoc,
		ShardsBuilt: carry.ShardsBuilt, Truncated: carry.Truncated, PartsEmbedded: carry.PartsEmbedded, PartsResumed: carry.PartsResumed, Model: plan.Model}
	prog = Progress{Stage: "building", ShardsTotal: len(plan.Periods), Model: plan.Model, Languages: plan.Counts.Languages}
	metas := make([]schemas.ShardMeta, len(plan.Periods))
	var todo []int
	for i, p := range plan.Periods {
		if p.Done && p.Meta != nil {
			metas[i] = *p.Meta
			res.ShardsReused++ // built by an earlier build, or by an earlier run of this one (corrected below)
			prog.ShardsDone++
			prog.ChunksDone += p.Meta.Chunks
			continue
		}
		todo = append(todo, i)
		prog.DocsToBuild += p.Docs
	}
	// launch starts shard i's child; land waits for it and counts what it built.
	launch := func(ctx workflow.Context, i int) workflow.Future {
		p := plan.Periods[i]
		f := startShard(ctx, info.WorkflowExecution.ID, in, plan.Model, p)
		prog.InFlight = append(prog.InFlight, InFlightShard{Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, Workflow: shardWorkflowID(info.WorkflowExecution.ID, p.ShardID)})
		return f
	}
	land := func(ctx workflow.Context, i int, f workflow.Future) error {
		p := plan.Periods[i]
		var r BuildShardResult
		err := f.Get(ctx, &r)
		for k, s := range prog.InFlight {
			if s.ShardID == p.ShardID {
				prog.InFlight = append(prog.InFlight[:k:k], prog.InFlight[k+1:]...)
				break
			}
		}
		if err != nil {
			return fmt.Errorf("shard %s (%s): %w", p.Period, p.ShardID, err)
		}
		metas[i] = r.Meta
		res.ShardsBuilt++
		res.Truncated += r.Truncated
		res.PartsEmbedded += r.PartsEmbedded
		res.PartsResumed += r.PartsResumed
		prog.ShardsDone++
		prog.ChunksDone += r.Meta.Chunks
		prog.DocsToBuild -= p.Docs
		return nil
	}
	res.ShardsReused -= carry.ShardsBuilt
	budget := min(len(todo), in.MaxShardsPerRun)
	var firstErr error
	if workflow.GetVersion(ctx, fanOutVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		firstErr = buildShardsWindow(ctx, todo[:budget], in.Concurrency, launch, land)
	} else {
		_, firstErr = fanOut(ctx, budget, in.Concurrency, func(ctx workflow.Context, k int) (struct{}, error) {
			return struct{}{}, land(ctx, todo[k], launch(ctx, todo[k]))
		})
	}
	if firstErr != nil {
		return res, firstErr
	}
	if budget < len(todo) {
		// History stays short: continue as new; the next run plans again and finds these done.
		next := in
		next.Carried = &IndexBuildCarry{Runs: carry.Runs, ShardsBuilt: res.ShardsBuilt, Truncated: res.Truncated,
			PartsEmbedded: res.PartsEmbedded, PartsResumed: res.PartsResumed}
		return res, workflow.NewContinueAsNewError(ctx, IndexBuild, next)
	}
	prog.Stage = "publishing"
	var pub activities.PublishManifestResult
	err = workflow.ExecuteActivity(storeCtx, a.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{
		Index: in.Index, Period: in.Period, Chunk: in.Chunk, Model: plan.Model, Shards: append(append([]schemas.ShardMeta(nil), plan.Existing...), metas...),
		Counts: plan.Counts, Base: plan.Base, CreatedAt: in.AsOf, Append: in.Append, BaseSeq: plan.BaseSeq, Kind: plan.Kind,
	}}).Get(ctx, &pub)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	res.ManifestKey, res.Seq, res.Unchanged, res.Lifecycle, res.Kind = pub.Key, pub.Seq, pub.Unchanged, pub.Lifecycle, plan.Kind
	for _, m := range metas {
		res.Counts.Chunks += int64(m.Chunks)
	}
	prog.Stage = "done"
	return res, nil
}

// indexBuildStored is IndexBuild with the plan in the store (planInStoreVersion). carry.Plan,
// after a continue-as-new, is the plan the first run made; carry.Offset counts the shards to
// build that earlier runs built.
func indexBuildStored(ctx, storeCtx workflow.Context, in IndexBuildInput, carry IndexBuildCarry, prog *Progress) (IndexBuildResult, error) {
	info := workflow.GetInfo(ctx)
	if carry.Plan == nil {
		var plan activities.PlanIndexResult
		err := workflow.ExecuteActivity(storeCtx, a.PlanIndex, activities.PlanIndexInput{
			Index: in.Index, RunID: info.WorkflowExecution.RunID, Inputs: in.Inputs, InputsKey: in.InputsKey, Mapping: in.Mapping,
			From: in.From, To: in.To, Period: in.Period, Chunk: in.Chunk, Append: in.Append,
			Started: in.Started, AllowFuture: in.AllowFuture, Replace: in.Replace, StorePlan: true, Kind: in.Kind,
		}).Get(ctx, &plan)
		if err != nil {
			return IndexBuildResult{}, fmt.Errorf("plan: %w", err)
		}
		if plan.PlanKey == "" {
			return IndexBuildResult{}, temporal.NewNonRetryableApplicationError("plan: the worker did not store the plan (an asof worker older than this build's workflow?)", ErrTypeInvalidInput, nil)
		}
		sum := plan.Summary
		carry.Plan = &IndexBuildPlan{PlanKey: plan.PlanKey, FilesKey: plan.FilesKey, FileCount: plan.FileCount, QuarantineKey: plan.QuarantineKey,
			Counts: plan.Counts, Base: plan.Base, BaseSeq: plan.BaseSeq, Model: plan.Model, Kind: plan.Kind,
			Shards: sum.Shards, Done: sum.Done, Chunks: sum.Chunks, ToBuild: sum.ToBuild, DocsToBuild: sum.DocsToBuild}
	}
	plan := *carry.Plan
	sum := indexplan.Summary{Shards: plan.Shards, Done: plan.Done, Chunks: plan.Chunks, ToBuild: plan.ToBuild, DocsToBuild: plan.DocsToBuild}
	res := IndexBuildResult{Counts: plan.Counts, FilesKey: plan.FilesKey, FileCount: plan.FileCount, QuarantineKey: plan.QuarantineKey, Runs: carry.Runs,
		MaxChunksPerDoc: in.Chunk.MaxChunksPerDoc, ShardsBuilt: carry.ShardsBuilt, ShardsReused: sum.Done, Truncated: carry.Truncated,
		PartsEmbedded: carry.PartsEmbedded, PartsResumed: carry.PartsResumed, Model: plan.Model}
	*prog = Progress{Stage: "building", ShardsTotal: sum.Shards, ShardsDone: sum.Done + carry.ShardsBuilt, ChunksDone: sum.Chunks + carry.ChunksBuilt,
		DocsToBuild: sum.DocsToBuild - carry.DocsBuilt, Model: plan.Model, Languages: plan.Counts.Languages}
	// This run's shards, in pages of at most indexplan.PageMax.
	var todo []indexplan.PeriodPlan
	off := carry.Offset
	for len(todo) < in.MaxShardsPerRun && off < sum.ToBuild {
		var page activities.PlanPageResult
		if err := workflow.ExecuteActivity(storeCtx, a.PlanPage, activities.PlanPageInput{
			Index: in.Index, PlanKey: plan.PlanKey, Offset: off, Limit: in.MaxShardsPerRun - len(todo),
		}).Get(ctx, &page); err != nil {
			return res, fmt.Errorf("plan page from shard %d: %w", off, err)
		}
		if page.Next <= off {
			return res, temporal.NewNonRetryableApplicationError(fmt.Sprintf("plan page from shard %d of %d returned none", off, sum.ToBuild), ErrTypeInvalidInput, nil)
		}
		todo = append(todo, page.Periods...)
		off = page.Next
	}
	// tally counts what a child built into the result, the carry and the progress.
	tally := func(r BuildShardBatchResult) {
		res.ShardsBuilt += r.Shards
		res.Truncated += r.Truncated
		res.PartsEmbedded += r.PartsEmbedded
		res.PartsResumed += r.PartsResumed
		carry.ChunksBuilt += r.Chunks
		carry.DocsBuilt += r.Docs
		prog.ShardsDone += r.Shards
		prog.ChunksDone += r.Chunks
		prog.DocsToBuild -= r.Docs
	}
	var err error
	if workflow.GetVersion(ctx, shardBatchVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		_, err = fanOut(ctx, len(todo), in.Concurrency, func(ctx workflow.Context, k int) (struct{}, error) {
			p := todo[k]
			f := startShard(ctx, info.WorkflowExecution.ID, in, plan.Model, p)
			prog.InFlight = append(prog.InFlight, InFlightShard{Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, Workflow: shardWorkflowID(info.WorkflowExecution.ID, p.ShardID)})
			var r BuildShardResult
			err := f.Get(ctx, &r)
			prog.InFlight = withoutInFlight(prog.InFlight, todo[k:k+1])
			if err != nil {
				return struct{}{}, fmt.Errorf("shard %s (%s): %w", p.Period, p.ShardID, err)
			}
			tally(BuildShardBatchResult{Shards: 1, Chunks: r.Meta.Chunks, Docs: p.Docs, Truncated: r.Truncated, PartsEmbedded: r.PartsEmbedded, PartsResumed: r.PartsResumed})
			return struct{}{}, nil
		})
	} else {
		err = buildBatches(ctx, info.WorkflowExecution.ID, in, plan.Model, todo, prog, tally)
	}
	if err != nil {
		return res, err
	}
	if off < sum.ToBuild {
		// History stays short: continue as new with the plan's key and how far it got.
		next := in
		next.Carried = &IndexBuildCarry{Runs: carry.Runs, ShardsBuilt: res.ShardsBuilt, Truncated: res.Truncated,
			PartsEmbedded: res.PartsEmbedded, PartsResumed: res.PartsResumed, Plan: carry.Plan, Offset: off,
			ChunksBuilt: carry.ChunksBuilt, DocsBuilt: carry.DocsBuilt}
		return res, workflow.NewContinueAsNewError(ctx, IndexBuild, next)
	}
	prog.Stage = "publishing"
	var pub activities.PublishManifestResult
	err = workflow.ExecuteActivity(storeCtx, a.PublishManifest, activities.PublishManifestInput{PlanKey: plan.PlanKey, Build: indexplan.Build{
		Index: in.Index, Period: in.Period, Chunk: in.Chunk, Model: plan.Model,
		Counts: plan.Counts, Base: plan.Base, CreatedAt: in.AsOf, Append: in.Append, BaseSeq: plan.BaseSeq, Kind: plan.Kind,
	}}).Get(ctx, &pub)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	res.ManifestKey, res.Seq, res.Unchanged, res.Lifecycle, res.Kind = pub.Key, pub.Seq, pub.Unchanged, pub.Lifecycle, plan.Kind
	res.Counts.Chunks += pub.Chunks
	prog.Stage = "done"
	return res, nil
}

// buildShardsWindow is the sliding window of children, gathered in completion order, that
// IndexBuild ran before fanOut; runs started then replay it.
func buildShardsWindow(ctx workflow.Context, todo []int, limit int, launch func(workflow.Context, int) workflow.Future,
	land func(workflow.Context, int, workflow.Future) error) error {
	sel := workflow.NewSelector(ctx)
	var firstErr error
	running, next := 0, 0
	for next < len(todo) || running > 0 {
		for running < limit && next < len(todo) && firstErr == nil {
			i := todo[next]
			f := launch(ctx, i)
			running++
			sel.AddFuture(f, func(f workflow.Future) {
				running--
				if err := land(ctx, i, f); err != nil && firstErr == nil {
					firstErr = err
				}
			})
			next++
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
	}
	return firstErr
}

// BuildShardInput names one period's staged documents.
type BuildShardInput struct {
	Index   string              `json:"index"`
	Period  string              `json:"period"`
	ShardID string              `json:"shard_id"`
	DocsKey string              `json:"docs_key"`
	Docs    int                 `json:"docs"`
	Chunk   schemas.ChunkConfig `json:"chunk"`
	// Model is the embedding model the plan named the shard for; the embedding worker checks
	// it has that model.
	Model schemas.ModelRef `json:"model"`
	// EmbedPartSize and EmbedHeartbeat: see IndexBuildInput.
	EmbedPartSize  int           `json:"embed_part_size"`
	EmbedHeartbeat time.Duration `json:"embed_heartbeat"`
}

// BuildShardResult is the written shard.
type BuildShardResult struct {
	Meta          schemas.ShardMeta `json:"meta"`
	Truncated     int               `json:"truncated"`
	PartsEmbedded int               `json:"parts_embedded"`
	PartsResumed  int               `json:"parts_resumed"`
}

// BuildShard chunks a period's documents, embeds the chunks on the asof-embed queue (resuming
// after the last stored part on retry), and writes the shard files.
func BuildShard(ctx workflow.Context, in BuildShardInput) (BuildShardResult, error) {
	storeCtx := shardStoreCtx(ctx)
	var ch activities.ChunkShardResult
	if err := workflow.ExecuteActivity(storeCtx, a.ChunkShard, activities.ChunkShardInput{Index: in.Index, ShardID: in.ShardID, DocsKey: in.DocsKey, Chunk: in.Chunk}).Get(ctx, &ch); err != nil {
		return BuildShardResult{}, fmt.Errorf("chunk: %w", err)
	}
	embedCtx := shardEmbedCtx(ctx, in.EmbedHeartbeat)
	vecPrefix := layout.VectorsPrefix(in.Index, in.ShardID)
	var emb activities.EmbedShardResult
	if err := workflow.ExecuteActivity(embedCtx, a.EmbedShard, activities.EmbedShardInput{ChunksKey: ch.ChunksKey, VectorsPrefix: vecPrefix, PartSize: in.EmbedPartSize, Model: in.Model}).Get(ctx, &emb); err != nil {
		return BuildShardResult{}, fmt.Errorf("embed: %w", err)
	}
	var wr activities.WriteShardResult
	if err := workflow.ExecuteActivity(storeCtx, a.WriteShard, activities.WriteShardInput{
		Index: in.Index, Period: in.Period, ShardID: in.ShardID, Docs: in.Docs, ChunksKey: ch.ChunksKey, VectorsPrefix: vecPrefix, Parts: emb.Parts,
	}).Get(ctx, &wr); err != nil {
		return BuildShardResult{}, fmt.Errorf("write: %w", err)
	}
	return BuildShardResult{Meta: wr.Meta, Truncated: ch.Truncated, PartsEmbedded: emb.Embedded, PartsResumed: emb.Resumed}, nil
}

// startShard starts the BuildShard child of period p, with the build's id and options: the one
// launch both paths of IndexBuild (plan in the payload, plan in the store) use.
func startShard(ctx workflow.Context, buildID string, in IndexBuildInput, model schemas.ModelRef, p indexplan.PeriodPlan) workflow.Future {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: shardWorkflowID(buildID, p.ShardID),
		TaskQueue:  TaskQueue,
	})
	return workflow.ExecuteChildWorkflow(cctx, BuildShard, BuildShardInput{
		Index: in.Index, Period: p.Period, ShardID: p.ShardID, DocsKey: p.DocsKey, Docs: p.Docs, Chunk: in.Chunk, Model: model,
		EmbedPartSize: in.EmbedPartSize, EmbedHeartbeat: in.EmbedHeartbeat,
	})
}

// shardWorkflowID is the id of the BuildShard child that builds one shard of build buildID.
func shardWorkflowID(buildID, shardID string) string { return buildID + "/shard-" + shardID }

// shardStoreCtx has the options of a shard build's store steps (ChunkShard, WriteShard), one
// shard's or a batch's.
func shardStoreCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: time.Hour,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
}

// shardEmbedCtx has the options of a shard build's EmbedShard on the asof-embed queue: a
// heartbeat timeout of heartbeat (a minute when unset: EmbedShard's ticker heartbeats during a
// part, keepalive.PartStall) and ten attempts, each resuming after the last stored part.
func shardEmbedCtx(ctx workflow.Context, heartbeat time.Duration) workflow.Context {
	if heartbeat <= 0 {
		heartbeat = time.Minute
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueEmbed,
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute, MaximumAttempts: 10},
	})
}
