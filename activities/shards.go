package activities

import (
	"context"

	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

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

// Close releases the shards a loaded, removing their local folders. Call it when the worker
// stops; without it every shard an ask or eval opened stays in the temp folder. It is a
// function, not a method: a worker registers every exported method of Activities as a Temporal
// activity, and emptying the shard cache must not be one that any client can start.
func Close(a *Activities) error {
	if a.Shards == nil {
		return nil
	}
	return a.Shards.Close()
}

// loadShards loads through the worker's cache the shards of manifest m that can hold chunks
// inside b (storeio.LoadShards), heartbeating each; a shard that does not match its meta.json
// is a non-retryable ErrTypeMismatch error naming its key (errors.Is shard.ErrCorruptShard),
// and so are codes for other vectors than the shard's (errors.Is vecindex.ErrFormat).
func (a *Activities) loadShards(ctx context.Context, index string, m schemas.Manifest, b retrieve.Bounds) (*storeio.Shards, error) {
	s, err := storeio.LoadShards(ctx, a.Bucket, a.shardCache(), index, m, b, func(n int) { heartbeat(ctx, n) })
	return s, mismatch(err)
}
