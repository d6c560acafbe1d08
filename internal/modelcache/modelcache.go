// Package modelcache keeps the embedding models a worker loads on demand: the models of the
// indexes whose queries it embeds, besides the one it was started with. A model is loaded
// once however many queries ask for it at the same time, at most Keep models nobody is using
// stay loaded (the least recently used goes first), a model in use is never closed under its
// caller, and Close frees them all when the worker stops.
//
// It is shard.Cache (the worker's shard cache: loads shared, holders counted, least recently
// used evicted, closed on release after Close) with one unit of budget a model.
package modelcache

import (
	"context"
	"errors"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// DefaultKeep is how many models a worker keeps loaded besides its own when New is given 0:
// each is 35–200 MB in memory, and a worker seldom answers more than two kinds of index.
const DefaultKeep = 2

// Loader loads the model whose id is id: its embedder and its reference (id, the ONNX file's
// sha256, dim), as indexes record it. It is not called again for a model the cache holds.
type Loader func(id string) (embed.Embedder, schemas.ModelRef, error)

// ErrClosed is returned by Acquire after Close.
var ErrClosed = errors.New("modelcache: closed")

// Cache holds the models Loader loaded. The zero value is not usable; use New.
type Cache struct {
	load   Loader
	models *shard.Cache[loaded]
	closed chan struct{}
}

// loaded is one model in the cache.
type loaded struct {
	e   embed.Embedder
	ref schemas.ModelRef
}

// New returns a cache that loads models with load and keeps at most keep of them loaded while
// nobody uses them (0: DefaultKeep). Models in use are never closed, so while more than keep
// are in use at once, more are loaded.
func New(keep int, load Loader) *Cache {
	if keep <= 0 {
		keep = DefaultKeep
	}
	return &Cache{load: load, models: shard.NewCache[loaded](int64(keep)), closed: make(chan struct{})}
}

// Acquire returns the embedder of model id and its reference, loading it on first use (a
// load that fails is not remembered: the next Acquire tries again, after `asof models pull`
// say). Call release when done with the embedder: until then it stays open.
func (c *Cache) Acquire(ctx context.Context, id string) (e embed.Embedder, ref schemas.ModelRef, release func(), err error) {
	select {
	case <-c.closed:
		return nil, ref, nil, ErrClosed
	default:
	}
	m, release, err := c.models.Get(ctx, id, func(context.Context) (shard.Loaded[loaded], error) {
		e, ref, err := c.load(id)
		if err != nil {
			return shard.Loaded[loaded]{}, err
		}
		return shard.Loaded[loaded]{Value: loaded{e, ref}, Size: 1, Close: e.Close}, nil
	})
	if err != nil {
		return nil, ref, nil, err
	}
	return m.e, m.ref, release, nil
}

// Stats reports how many models are loaded (Entries) and the cache's hits, misses and evictions.
func (c *Cache) Stats() shard.CacheStats { return c.models.Stats() }

// Close frees every model nobody uses now; one in use is freed when its caller releases it.
// Acquire fails with ErrClosed afterwards. Call it once, when the worker has stopped.
func (c *Cache) Close() error {
	close(c.closed)
	return c.models.Close()
}
