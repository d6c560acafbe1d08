// Package activities holds every Temporal activity of asof: the only place that does I/O.
//
// Workers register one *Activities, which carries the dependencies (Deps); workflows name its
// methods through a nil *Activities. Each method takes ctx and one XInput, returns one XResult
// declared next to it, and reads as load (internal/storeio) → call into internal/* → store.
// This file holds what they share: errors, heartbeats and the worker's shard cache.
package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/keepalive"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// Deps are what a worker process builds from its configuration and hands to every activity
// (clients see it as worker.Deps).
type Deps struct {
	// Bucket is the object store all artifacts live in.
	Bucket blob.Bucket
	// Embedder embeds chunks; nil on workers that do not serve the asof-embed queue.
	Embedder embed.Embedder
	// Model identifies the embedding model (id, ONNX sha256, dim) for shard ids and manifests.
	Model schemas.ModelRef
	// QueryModels, when set, loads the models of indexes built with another model than
	// Model, so that queries on them are embedded with the index's own (queryEmbedder); nil:
	// every query is embedded with Embedder (an embeddings server: its one model).
	QueryModels QueryModels
	// LLM judges and summarizes on the asof-llm queue; nil: the heuristic judge, extractive summary.
	LLM *llm.Client
	// HeuristicAutoJudge makes the auto judge the heuristic even with an LLM (llm.judge
	// heuristic; --llm local's default), which then only writes; --judge llm still asks it.
	HeuristicAutoJudge bool
	// JudgePerCall is how many candidates the LLM judge reads in one call (0: the whole batch;
	// llm.judge_per_call, 1 for --llm local).
	JudgePerCall int
	// LLMSlots, when positive, is the most activities the asof-llm queue runs at once in this
	// process (llm.slots): the requests the LLM serves at once.
	LLMSlots int
	// Reranker reorders the head of every answer's ranking (ask and eval alike) with
	// RerankOptions (zero fields: rerank.DefaultOptions); nil: no reranking.
	Reranker      rerank.Reranker
	RerankOptions rerank.Options
	// Identity names the worker process in results (host:pid by default).
	Identity string
	// Metrics records asof's own counters and timings (docs/metrics.md); nil records nothing.
	Metrics *metrics.Metrics
}

// QueryModels loads embedding models on demand, by id (modelcache.Cache, over the worker's
// models folder and backend).
type QueryModels interface {
	// Acquire returns the embedder of model id and its reference; release it when done.
	Acquire(ctx context.Context, id string) (e embed.Embedder, ref schemas.ModelRef, release func(), err error)
}

// Activities holds the dependencies every activity uses, and what activities share in one
// worker process (the shard cache).
type Activities struct {
	Deps
	// Shards caches loaded shards between queries (LRU by shard id); nil creates one of
	// ShardCacheBytes (default DefaultShardCacheBytes) on first use.
	Shards          *shard.Cache[*retrieve.Shard]
	ShardCacheBytes int64
	cacheOnce       sync.Once
	// judgePools: the heuristic judge's batches of one pool, in this process, share its facts.
	judgePools judge.PoolMemo
}

// Error types that a workflow's retry policy treats as final.
const (
	// ErrTypeInvalidInput marks input that no retry can fix.
	ErrTypeInvalidInput = "InvalidInput"
	// ErrTypeMismatch marks data that came back different from what was written.
	ErrTypeMismatch = "Mismatch"
	// ErrTypeConfig marks a worker that cannot do the task as configured (no model, …).
	ErrTypeConfig = "BadConfiguration"
	// ErrTypeBadSummary marks an LLM summary that failed its checks after the repair turn, at
	// temperature 0: the same prompt would get the same reply, so the caller falls back at once.
	ErrTypeBadSummary = "BadSummary"
)

// checkModel refuses to mix vectors of two models (modelchoice.Mismatch): an index built
// with built, queried or extended with vectors of used. The error is final (ErrTypeMismatch).
func checkModel(index string, built, used schemas.ModelRef) error {
	return mismatch(modelchoice.Mismatch(index, built, used))
}

// mismatch makes err final as ErrTypeMismatch when it is data that came back other than it was
// written (storeio.ErrMismatch), two embedding models (modelchoice.ErrMismatch) or a rebuilt
// index an append cannot rebase on (indexplan.ErrRebuilt); other errors stay as they are.
func mismatch(err error) error {
	if errors.Is(err, storeio.ErrMismatch) || errors.Is(err, modelchoice.ErrMismatch) || errors.Is(err, indexplan.ErrRebuilt) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeMismatch, err)
	}
	return err
}

// currentManifest reads the live manifest of index (layout.ReadLive); an index with no
// CURRENT yet is final as bad input (errors.Is layout.ErrIndexNotFound, in the worker's process).
func (a *Activities) currentManifest(ctx context.Context, index string) (schemas.Manifest, error) {
	m, err := layout.ReadLive(ctx, a.Bucket, index)
	if errors.Is(err, layout.ErrIndexNotFound) {
		return m, invalid(err)
	}
	return m, err
}

// invalid makes err final as bad input (ErrTypeInvalidInput).
func invalid(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeInvalidInput, err)
}

// invalidIfMissing makes a missing object (blob.ErrNotFound) final as a missing what file.
func invalidIfMissing(err error, what string) error {
	if errors.Is(err, blob.ErrNotFound) {
		return invalid(fmt.Errorf("%s file: %w", what, err))
	}
	return err
}

// noModel is the final error of a worker without an embedding model.
func noModel() error {
	return temporal.NewNonRetryableApplicationError("this worker has no embedding model (run `asof models pull`)", ErrTypeConfig, nil)
}

// llmError makes a configuration error final and leaves the rest to the retry policy.
func llmError(err error) error {
	if errors.Is(err, llm.ErrConfig) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, nil)
	}
	return err
}

// answer reads the answer an Ask run stored (layout.AnswerKey).
func (a *Activities) answer(ctx context.Context) func(runID string) (schemas.Answer, error) {
	return func(runID string) (schemas.Answer, error) {
		return storeio.GetJSON[schemas.Answer](ctx, a.Bucket, layout.AnswerKey(runID))
	}
}

// heartbeat records an activity's progress (activity.RecordHeartbeat), which a retry resumes from.
func heartbeat(ctx context.Context, details any) { activity.RecordHeartbeat(ctx, details) }

// eachShard runs one on each shard of a batch in turn, heartbeating after each, and returns
// their results in order, up to the first error (returned as it is, so a final one stays final).
func eachShard[I, O any](ctx context.Context, shards []I, one func(context.Context, I) (O, error)) ([]O, error) {
	out := make([]O, 0, len(shards))
	for i, s := range shards {
		r, err := one(ctx, s)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		heartbeat(ctx, i)
	}
	return out, nil
}

// keepAliveFor starts a keepalive.KeepAlive for ctx's activity at its heartbeat timeout.
func keepAliveFor(ctx context.Context) *keepalive.KeepAlive {
	return keepalive.Start(ctx, activity.GetInfo(ctx).HeartbeatTimeout, func(details any) { heartbeat(ctx, details) })
}

// DefaultShardCacheBytes bounds the shards a worker keeps loaded between queries.
const DefaultShardCacheBytes = 2 << 30

// shardCache returns the worker's shard cache, created on first use.
func (a *Activities) shardCache() *shard.Cache[*retrieve.Shard] {
	a.cacheOnce.Do(func() {
		if a.Shards == nil {
			budget := a.ShardCacheBytes
			if budget <= 0 {
				budget = DefaultShardCacheBytes
			}
			a.Shards = shard.NewCache[*retrieve.Shard](budget)
		}
	})
	return a.Shards
}

// Close releases the shards a loaded, removing their local folders, when the worker stops. It
// is a function so that it is no activity (a worker registers every exported method) that any
// client could start.
func Close(a *Activities) error {
	if a.Shards == nil {
		return nil
	}
	return a.Shards.Close()
}

// loadShards reads the live manifest of index, refuses vectors of another model than it was
// built with (when model is set), and loads through the worker's cache the shards that can
// hold chunks inside b (storeio.LoadShards), heartbeating each; a shard that does not match
// what was written (storeio.ErrMismatch) is final as ErrTypeMismatch. It returns the manifest's seq.
func (a *Activities) loadShards(ctx context.Context, index string, model *schemas.ModelRef, b retrieve.Bounds) (*storeio.Shards, int, error) {
	m, err := a.currentManifest(ctx, index)
	if err == nil && model != nil {
		err = checkModel(index, m.Model, *model)
	}
	if err != nil {
		return nil, m.Seq, err
	}
	s, err := storeio.LoadShards(ctx, a.Bucket, a.shardCache(), index, m, b, func(n int) { heartbeat(ctx, n) })
	return s, m.Seq, mismatch(err)
}

// rerankRanking reorders the head of r with the worker's reranker (rerank.Rank; nil: as it is)
// wherever asof ranks (Answer, Candidates, EvalBatch). A server that refuses the request (a
// 4xx: wrong URL, key or model), a reply that breaks the API (scores missing, duplicated, out
// of range: it answers the same again) and bad options are final; other failures are retried.
func (a *Activities) rerankRanking(ctx context.Context, query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
	out, err := rerank.Rank(ctx, a.Reranker, a.RerankOptions, query, o, r)
	switch {
	case errors.Is(err, llm.ErrConfig), errors.Is(err, llm.ErrInvalidReply):
		return r, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, err)
	case errors.Is(err, rerank.ErrOptions):
		return r, invalid(err)
	}
	return out, err
}
