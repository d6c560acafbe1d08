package storeio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestLoadShards writes a one-shard index the way WriteShard does and loads it: an intact
// shard loads through the cache with its chunks, vectors and codes; a shard outside the
// bounds is skipped, not read; a damaged file is ErrMismatch (and shard.ErrCorruptShard)
// naming its key from the store's root; vectors of another model are an error naming the
// shard that is not ErrMismatch (a rebuild with the right model fixes it, not the shard).
func TestLoadShards(t *testing.T) {
	model := schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}
	chunks := []schemas.Chunk{
		{ChunkID: "a#0", DocID: "a", PublishedAt: day("2024-05-10"), Text: "key rate raised to 16 percent", Source: "cbr", Lang: "en", DedupKey: "a"},
		{ChunkID: "b#0", DocID: "b", PublishedAt: day("2024-05-11"), Text: "apple pie recipe", Source: "food", Lang: "en", DedupKey: "b"},
	}
	tests := []struct {
		name     string
		damage   string // the file to flip a byte of
		model    schemas.ModelRef
		bounds   retrieve.Bounds
		searched int
		skipped  int
		mismatch bool
		want     string // in the error
	}{
		{name: "intact", model: model, bounds: retrieve.Bounds{Hi: day("2024-12-31")}, searched: 1},
		{name: "outside the bounds", damage: shard.VectorsFile, model: model, bounds: retrieve.Bounds{Hi: day("2024-05-01")}, skipped: 1},
		{name: "vectors damaged", damage: shard.VectorsFile, model: model, bounds: retrieve.Bounds{Hi: day("2024-12-31")}, mismatch: true,
			want: "indexes/toy/shards/2024/id2024/vectors.f32 is damaged"},
		{name: "chunks damaged", damage: shard.ChunksFile, model: model, bounds: retrieve.Bounds{Hi: day("2024-12-31")}, mismatch: true,
			want: "indexes/toy/shards/2024/id2024/chunks.parquet is damaged"},
		{name: "another model", model: schemas.ModelRef{ID: "other", Dim: 3}, bounds: retrieve.Bounds{Hi: day("2024-12-31")},
			want: "load shard id2024: shard id2024 holds toy/3 vectors, the manifest says other/3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			t.Setenv("TMPDIR", t.TempDir())
			b := newBucket(t)
			vec := vecindex.New(3, model.ID)
			vec.Add([]float32{1, 0, 0})
			vec.Add([]float32{0, 0, 1})
			dir := filepath.Join(t.TempDir(), "s")
			meta, err := shard.Write(dir, "2024", "id2024", 2, chunks, vec)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range shard.Files(meta) {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if name == tc.damage {
					data[len(data)-1] ^= 0x01
				}
				if _, err := b.Put(ctx, path.Join(layout.IndexPrefix("toy"), layout.ShardPrefix("2024", meta.ID), name), bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
			}
			cache := shard.NewCache[*retrieve.Shard](1 << 30)
			defer cache.Close()
			m := schemas.Manifest{Model: tc.model, Shards: []schemas.ShardMeta{meta}}
			beats := 0
			got, err := LoadShards(ctx, b, cache, "toy", m, tc.bounds, func(n int) { beats = n })
			if tc.want != "" {
				if err == nil || errors.Is(err, ErrMismatch) != tc.mismatch || errors.Is(err, shard.ErrCorruptShard) != tc.mismatch || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v; want one saying %q, ErrMismatch %v", err, tc.want, tc.mismatch)
				}
				if st := cache.Stats(); st.Bytes != 0 {
					t.Fatalf("a failed load left %d bytes in the cache", st.Bytes)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if got.Searched != tc.searched || got.Skipped != tc.skipped || len(got.Shards) != tc.searched || beats != tc.searched {
				t.Fatalf("searched %d skipped %d (%d shards, %d beats); want %d, %d", got.Searched, got.Skipped, len(got.Shards), beats, tc.searched, tc.skipped)
			}
			if tc.searched == 1 {
				s := got.Shards[0]
				if s.ID != "id2024" || len(s.Chunks) != 2 || s.Vectors.Count != 2 || s.Int8 == nil || !s.MinDate.Equal(day("2024-05-10")) {
					t.Fatalf("loaded %+v", s)
				}
			}
		})
	}
}
