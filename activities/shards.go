package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
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

// loadShard downloads one shard of index into a fresh local folder and opens it: chunk rows,
// vectors (checked against the manifest's model), their int8 codes where the shard's meta
// lists them (shards written before them are scanned in float32) and the BM25 index. Each
// file must have the size and sha256 the shard's meta records; a damaged one is a
// non-retryable ErrTypeMismatch error naming its key (errors.Is shard.ErrCorruptShard), and so
// are codes for other vectors than the shard's (errors.Is vecindex.ErrFormat).
func (a *Activities) loadShard(ctx context.Context, index string, m schemas.ShardMeta, model schemas.ModelRef) (shard.Loaded[*retrieve.Shard], error) {
	var none shard.Loaded[*retrieve.Shard]
	dir, err := os.MkdirTemp("", "asof-shard-"+m.ID+"-")
	if err != nil {
		return none, err
	}
	fail := func(err error) (shard.Loaded[*retrieve.Shard], error) {
		os.RemoveAll(dir)
		if _, ok := err.(*temporal.ApplicationError); !ok {
			// The cache returns this error as it is: a non-retryable one must stay on top.
			err = fmt.Errorf("load shard %s: %w", m.ID, err)
		}
		return none, err
	}
	prefix := path.Join(layout.IndexPrefix(index), layout.ShardPrefix(m.Period, m.ID))
	var size int64
	for _, name := range shard.Files(m) {
		n, sum, err := a.downloadTo(ctx, path.Join(prefix, name), filepath.Join(dir, name))
		if err != nil {
			return fail(err)
		}
		if err := shard.CheckObject(m, name, n, sum); err != nil {
			var ce *shard.CorruptError
			if errors.As(err, &ce) {
				ce.Key = path.Join(layout.IndexPrefix(index), ce.Key)
			}
			// No retry reads other bytes: the shard must be rebuilt.
			return fail(temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeMismatch, err))
		}
		size += n
	}
	chunks, err := shard.ReadChunks(filepath.Join(dir, shard.ChunksFile))
	if err != nil {
		return fail(err)
	}
	vec, err := shard.ReadVectors(filepath.Join(dir, shard.VectorsFile))
	if err != nil {
		return fail(err)
	}
	if vec.Model != model.ID || vec.Dim != model.Dim {
		return fail(fmt.Errorf("shard %s holds %s/%d vectors, the manifest says %s/%d", m.ID, vec.Model, vec.Dim, model.ID, model.Dim))
	}
	var codes *vecindex.Int8
	if shard.HasInt8(m) {
		if codes, err = shard.ReadInt8(filepath.Join(dir, shard.Int8File), vec); err != nil {
			err = fmt.Errorf("shard %s: %w", m.ID, err)
			return fail(temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeMismatch, err))
		}
	}
	lex, err := shard.OpenBM25(filepath.Join(dir, shard.BM25File), filepath.Join(dir, "bm25"))
	if err != nil {
		return fail(err)
	}
	os.Remove(filepath.Join(dir, shard.VectorsFile)) // in memory now
	os.Remove(filepath.Join(dir, shard.Int8File))
	s := &retrieve.Shard{ID: m.ID, Chunks: chunks, Vectors: vec, Int8: codes, Lexical: lex, MinDate: m.MinDate.UTC(), MaxDate: m.MaxDate.UTC()}
	return shard.Loaded[*retrieve.Shard]{Value: s, Size: size, Close: func() error {
		err := lex.Close()
		os.RemoveAll(dir)
		return err
	}}, nil
}

// downloadTo copies an object to a local file and returns its size and hex sha256.
func (a *Activities) downloadTo(ctx context.Context, key, dst string) (int64, string, error) {
	r, err := a.Bucket.Get(ctx, key)
	if err != nil {
		return 0, "", fmt.Errorf("read %s: %w", key, err)
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, "", fmt.Errorf("download %s: %w", key, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
