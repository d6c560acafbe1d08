// Package activities holds every Temporal activity of asof: the only place that does I/O.
//
// One Activities struct carries the dependencies as small interfaces (a blob.Bucket now; an
// embedder and an LLM client as the pipeline grows). Workers register it once by pointer;
// workflows reference its methods through a nil *Activities. Each method takes ctx and one
// input struct and returns one result struct, declared next to it.
package activities

import (
	"fmt"
	"strings"
	"sync"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
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
)

// checkModel refuses to mix vectors of two models: an index built with built, queried or
// extended with vectors of used. The error names both and says how to fix it.
func checkModel(index string, built, used schemas.ModelRef) error {
	if built.ID == used.ID && built.SHA256 == used.SHA256 {
		return nil
	}
	msg := fmt.Sprintf("index %s was built with model %s, this worker embeds with %s: pass --embed-model %s (or rebuild the index with --embed-model %s)",
		index, built.ID, used.ID, built.ID, used.ID)
	if strings.HasPrefix(built.SHA256, schemas.RemoteModelPrefix) && !strings.HasPrefix(used.SHA256, schemas.RemoteModelPrefix) {
		msg = fmt.Sprintf("index %s was built with model %s from an embeddings server, this worker embeds with %s: pass --embed-backend openai --embed-model %s and that server's embed.base_url",
			index, built.ID, used.ID, built.ID)
	}
	if built.ID == used.ID {
		msg = fmt.Sprintf("index %s was built with model %s (sha256 %.12s…), this worker's %s is other weights or another recipe (sha256 %.12s…): use the model folder the index was built with, or rebuild the index",
			index, built.ID, built.SHA256, used.ID, used.SHA256)
	}
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeMismatch, nil)
}
