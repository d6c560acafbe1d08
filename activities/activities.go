// Package activities holds every Temporal activity of asof: the only place that does I/O.
//
// One Activities struct carries the dependencies as small interfaces (a blob.Bucket now; an
// embedder and an LLM client as the pipeline grows). Workers register it once by pointer;
// workflows reference its methods through a nil *Activities. Each method takes ctx and one
// input struct and returns one result struct, declared next to it.
package activities

import (
	"errors"
	"sync"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// Deps are the dependencies activities run with: what a worker process builds (from its
// configuration) and hands to every activity. The worker package gives it to clients as
// worker.Deps.
type Deps struct {
	// Bucket is the object store all artifacts live in.
	Bucket blob.Bucket
	// Embedder embeds chunks; nil on workers that do not serve the asof-embed queue.
	Embedder embed.Embedder
	// Model identifies the embedding model (id, ONNX sha256, dim) for shard ids and manifests.
	Model schemas.ModelRef
	// LLM judges and summarizes on the asof-llm queue; nil: the heuristic judge and the
	// extractive summary.
	LLM *llm.Client
	// Reranker reorders the head of every answer's ranking (ask and eval alike) with
	// RerankOptions (zero fields: rerank.DefaultOptions); nil: no reranking.
	Reranker      rerank.Reranker
	RerankOptions rerank.Options
	// Identity names the worker process in results (host:pid by default).
	Identity string
	// Metrics records asof's own counters and timings (docs/metrics.md); nil records nothing.
	Metrics *metrics.Metrics
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
}

// Error types that a workflow's retry policy treats as final.
const (
	// ErrTypeInvalidInput marks input that no retry can fix.
	ErrTypeInvalidInput = "InvalidInput"
	// ErrTypeMismatch marks data that came back different from what was written.
	ErrTypeMismatch = "Mismatch"
	// ErrTypeConfig marks a worker that cannot do the task as configured (no model, …).
	ErrTypeConfig = "BadConfiguration"
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
