package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// ProgressQuery answers an IndexBuild's progress.
const ProgressQuery = "progress"

// IndexBuildInput describes a build.
type IndexBuildInput struct {
	Index   string                 `json:"index"`
	Inputs  []activities.InputFile `json:"inputs"`
	Mapping map[string]string      `json:"mapping"`
	// From and To keep rows published in that range (inclusive days; zero: unbounded).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Period is the shard unit: day, week, month (default), quarter or year.
	Period string              `json:"period"`
	Chunk  schemas.ChunkConfig `json:"chunk"`
	// Concurrency bounds the shards built at once (default 2).
	Concurrency int `json:"concurrency"`
	// EmbedPartSize is how many chunks are embedded and stored at a time (default 32): the
	// unit of progress a crashed embedding worker loses at most.
	EmbedPartSize int `json:"embed_part_size"`
	// EmbedHeartbeat is how long an embedding worker may go silent before it counts as lost
	// and its work is retried elsewhere (default 1 min). EmbedShard heartbeats on a ticker while
	// a part embeds, up to activities.PartStall, so it need not exceed one part's time.
	EmbedHeartbeat time.Duration `json:"embed_heartbeat"`
	// AsOf stamps the manifest; zero means the workflow's current time.
	AsOf time.Time `json:"as_of"`
	// MaxShardsPerRun bounds the shards one run builds before it continues as new (default
	// 200), so a build of thousands of periods keeps a short history. The next run plans again
	// and finds the finished shards done.
	MaxShardsPerRun int `json:"max_shards_per_run"`
	// Append adds the inputs to the live index without rebuilding its shards (see
	// activities.PlanIndexInput.Append).
	Append bool `json:"append"`
	// AllowFuture indexes rows published after the day after the build started; by default
	// they are quarantined as future_date.
	AllowFuture bool `json:"allow_future"`
	// Replace publishes the build even when it lacks documents the live index holds; without
	// it (and without Append) such a build is refused (see activities.PlanIndexInput.Replace).
	Replace bool `json:"replace"`
	// Started is when the build started; zero means the workflow's current time, set once and
	// carried across continue-as-new so every run checks dates against the same day.
	Started time.Time `json:"started"`
	// Carried holds the earlier runs' tallies after a continue-as-new.
	Carried *IndexBuildCarry `json:"carried,omitempty"`
}

// IndexBuildCarry is what a build carries across continue-as-new.
type IndexBuildCarry struct {
	Runs          int `json:"runs"`
	ShardsBuilt   int `json:"shards_built"`
	Truncated     int `json:"truncated"`
	PartsEmbedded int `json:"parts_embedded"`
	PartsResumed  int `json:"parts_resumed"`
}

// IndexBuildResult reports the build.
type IndexBuildResult struct {
	ManifestKey   string                  `json:"manifest_key"`
	Seq           int                     `json:"seq"`
	Unchanged     bool                    `json:"unchanged"`
	Counts        schemas.IndexCounts     `json:"counts"`
	Files         []activities.FileCounts `json:"files"`
	QuarantineKey string                  `json:"quarantine_key,omitempty"`
	ShardsBuilt   int                     `json:"shards_built"`
	ShardsReused  int                     `json:"shards_reused"`
	// Truncated counts the documents of the shards this build made that were cut at
	// MaxChunksPerDoc chunks (the rest of their text is not indexed).
	Truncated int `json:"truncated"`
	// MaxChunksPerDoc is the build's cap on chunks per document (0: none).
	MaxChunksPerDoc int `json:"max_chunks_per_doc"`
	// PartsEmbedded and PartsResumed count embedding parts computed, and found already stored
	// after a worker was lost or an activity retried.
	PartsEmbedded int `json:"parts_embedded"`
	PartsResumed  int `json:"parts_resumed"`
	// Runs is how many workflow runs the build took (more than 1 after continue-as-new).
	Runs int `json:"runs"`
	// Model is the embedding model the build embedded with (the planning worker's).
	Model schemas.ModelRef `json:"model"`
}

// Progress is what ProgressQuery returns.
type Progress struct {
	Stage       string `json:"stage"`
	ShardsTotal int    `json:"shards_total"`
	ShardsDone  int    `json:"shards_done"`
	ChunksDone  int    `json:"chunks_done"`
	// DocsToBuild counts the documents of shards not built yet.
	DocsToBuild int `json:"docs_to_build"`
	// InFlight lists the shards being built now; a client can count their stored embedding
	// parts (layout.VectorsPrefix) for finer progress.
	InFlight []InFlightShard `json:"in_flight,omitempty"`
	// Model and Languages are known once the plan is: the model the shards are embedded with
	// and this build's documents per language, so a client can warn about a model that does
	// not read them before the embedding starts.
	Model     schemas.ModelRef `json:"model"`
	Languages map[string]int64 `json:"languages,omitempty"`
}

// InFlightShard is a shard being built.
type InFlightShard struct {
	Period  string `json:"period"`
	ShardID string `json:"shard_id"`
	Docs    int    `json:"docs"`
}

// IndexWorkflowID names the build of an index (one at a time per index).
func IndexWorkflowID(index string) string { return "asof-index-" + index }

// IndexBuild validates and plans the corpus, builds one BuildShard child per period that has
// no shard yet (bounded concurrency), and publishes the manifest last.
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
	var plan activities.PlanIndexResult
	err := workflow.ExecuteActivity(storeCtx, a.PlanIndex, activities.PlanIndexInput{
		Index: in.Index, RunID: info.WorkflowExecution.RunID, Inputs: in.Inputs, Mapping: in.Mapping,
		From: in.From, To: in.To, Period: in.Period, Chunk: in.Chunk, Append: in.Append,
		Started: in.Started, AllowFuture: in.AllowFuture, Replace: in.Replace,
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
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: fmt.Sprintf("%s/shard-%s", info.WorkflowExecution.ID, p.ShardID),
			TaskQueue:  TaskQueue,
		})
		f := workflow.ExecuteChildWorkflow(cctx, BuildShard, BuildShardInput{
			Index: in.Index, Period: p.Period, ShardID: p.ShardID, DocsKey: p.DocsKey, Docs: p.Docs, Chunk: in.Chunk, Model: plan.Model,
			EmbedPartSize: in.EmbedPartSize, EmbedHeartbeat: in.EmbedHeartbeat,
		})
		prog.InFlight = append(prog.InFlight, InFlightShard{Period: p.Period, ShardID: p.ShardID, Docs: p.Docs})
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
	err = workflow.ExecuteActivity(storeCtx, a.PublishManifest, activities.PublishManifestInput{
		Index: in.Index, Period: in.Period, Chunk: in.Chunk, Model: plan.Model, Shards: append(append([]schemas.ShardMeta(nil), plan.Existing...), metas...),
		Counts: plan.Counts, Base: plan.Base, CreatedAt: in.AsOf, Append: in.Append, BaseSeq: plan.BaseSeq,
	}).Get(ctx, &pub)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	res.ManifestKey, res.Seq, res.Unchanged = pub.Key, pub.Seq, pub.Unchanged
	for _, m := range metas {
		res.Counts.Chunks += int64(m.Chunks)
	}
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
	storeCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: time.Hour,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var ch activities.ChunkShardResult
	if err := workflow.ExecuteActivity(storeCtx, a.ChunkShard, activities.ChunkShardInput{Index: in.Index, ShardID: in.ShardID, DocsKey: in.DocsKey, Chunk: in.Chunk}).Get(ctx, &ch); err != nil {
		return BuildShardResult{}, fmt.Errorf("chunk: %w", err)
	}
	if in.EmbedHeartbeat <= 0 {
		in.EmbedHeartbeat = time.Minute // EmbedShard's ticker heartbeats during a part (activities.PartStall)
	}
	embedCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           config.QueueEmbed,
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    in.EmbedHeartbeat,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute, MaximumAttempts: 10},
	})
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
