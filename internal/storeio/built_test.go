package storeio

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// TestBuiltShard: a shard counts as built only when its meta.json decodes and names it.
func TestBuiltShard(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		meta    string // "" writes nothing
		wantNil bool
	}{
		{name: "absent", wantNil: true},
		{name: "does not decode", meta: "{", wantNil: true},
		{name: "another shard", meta: `{"id":"other","period":"2024-01"}`, wantNil: true},
		{name: "built", meta: `{"id":"s1","period":"2024-01","chunks":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBucket(t)
			if tt.meta != "" {
				if _, err := b.Put(ctx, layout.ShardKey("news", "2024-01", "s1", shard.MetaFile), strings.NewReader(tt.meta)); err != nil {
					t.Fatal(err)
				}
			}
			m, err := BuiltShard(ctx, b, "news", "2024-01", "s1")
			if err != nil || (m == nil) != tt.wantNil || (m != nil && (m.ID != "s1" || m.Chunks != 3)) {
				t.Fatalf("BuiltShard = %+v, %v", m, err)
			}
		})
	}
}

// TestShardDocIDs: the doc_id column of a shard's chunk rows, in order; a missing file is
// blob.ErrNotFound.
func TestShardDocIDs(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	sm := schemas.ShardMeta{ID: "s1", Period: "2024-01"}
	rows := []schemas.Chunk{{ChunkID: "c1", DocID: "a"}, {ChunkID: "c2", DocID: "a"}, {ChunkID: "c3", DocID: "b"}}
	if err := PutParquet(ctx, b, layout.ShardKey("news", sm.Period, sm.ID, shard.ChunksFile), rows); err != nil {
		t.Fatal(err)
	}
	if ids, err := ShardDocIDs(ctx, b, "news", sm); err != nil || !reflect.DeepEqual(ids, []string{"a", "a", "b"}) {
		t.Fatalf("ShardDocIDs = %v, %v", ids, err)
	}
	if _, err := ShardDocIDs(ctx, b, "gone", sm); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("missing shard: %v", err)
	}
}

// TestEachShardDocIDs: each shard's doc ids in shard order; a shard that cannot be read stops
// the walk with its error after the shards before it.
func TestEachShardDocIDs(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	s1, s2, gone := schemas.ShardMeta{ID: "s1", Period: "2024-01"}, schemas.ShardMeta{ID: "s2", Period: "2024-02"}, schemas.ShardMeta{ID: "s3", Period: "2024-03"}
	for _, w := range []struct {
		sm   schemas.ShardMeta
		docs []string
	}{{s1, []string{"a", "b"}}, {s2, []string{"c"}}} {
		sm := w.sm
		var rows []schemas.Chunk
		for _, d := range w.docs {
			rows = append(rows, schemas.Chunk{ChunkID: d + "#0", DocID: d})
		}
		if err := PutParquet(ctx, b, layout.ShardKey("news", sm.Period, sm.ID, shard.ChunksFile), rows); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		shards  []schemas.ShardMeta
		want    []string
		wantErr error
	}{
		{name: "none", shards: nil},
		{name: "in order", shards: []schemas.ShardMeta{s2, s1}, want: []string{"s2:c", "s1:a", "s1:b"}},
		{name: "unreadable", shards: []schemas.ShardMeta{s1, gone, s2}, want: []string{"s1:a", "s1:b"}, wantErr: blob.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := EachShardDocIDs(ctx, b, "news", tt.shards, func(sm schemas.ShardMeta, ids []string) {
				for _, id := range ids {
					got = append(got, sm.ID+":"+id)
				}
			})
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestUploadShard: an uploaded shard reads back as built (its meta.json) and loads intact.
func TestUploadShard(t *testing.T) {
	ctx := context.Background()
	t.Setenv("TMPDIR", t.TempDir())
	b := newBucket(t)
	model := schemas.ModelRef{ID: "toy", Dim: 3}
	vec := vecindex.New(3, model.ID)
	vec.Add([]float32{1, 0, 0})
	chunks := []schemas.Chunk{{ChunkID: "a#0", DocID: "a", PublishedAt: day("2024-05-10"), Text: "key rate raised", Source: "cbr", Lang: "en", DedupKey: "a"}}
	dir := filepath.Join(t.TempDir(), "s")
	meta, err := shard.Write(dir, "2024", "id2024", 1, chunks, vec)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := BuiltShard(ctx, b, "toy", "2024", "id2024"); err != nil || m != nil {
		t.Fatalf("before the upload: %+v, %v", m, err)
	}
	if err := UploadShard(ctx, b, "toy", dir, meta); err != nil {
		t.Fatal(err)
	}
	if m, err := BuiltShard(ctx, b, "toy", "2024", "id2024"); err != nil || m == nil || m.ID != meta.ID {
		t.Fatalf("after the upload: %+v, %v", m, err)
	}
	loaded, err := LoadShard(ctx, b, "toy", meta, model)
	if err != nil {
		t.Fatal(err)
	}
	if err := loaded.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStagePeriods: a built shard is Done with its meta and nothing is staged for it; another
// period's documents are staged under its shard id, and a staged object is not written again.
func TestStagePeriods(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	if _, err := b.Put(ctx, layout.ShardKey("news", "2024-01", "s1", shard.MetaFile), strings.NewReader(`{"id":"s1","period":"2024-01","chunks":3}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, layout.StagingDocsKey("news", "s3"), strings.NewReader("staged before")); err != nil {
		t.Fatal(err)
	}
	groups := map[string][]schemas.Document{"2024-01": {{DocID: "a"}}, "2024-02": {{DocID: "b"}, {DocID: "c"}}, "2024-03": {{DocID: "d"}}}
	got, err := StagePeriods(ctx, b, "news", []string{"2024-01", "2024-02", "2024-03"}, []string{"s1", "s2", "s3"}, groups)
	if err != nil || len(got) != 3 {
		t.Fatalf("StagePeriods = %+v, %v", got, err)
	}
	tests := []struct {
		name, period, id string
		docs             int
		done             bool
		staged           []string // the doc ids at DocsKey; nil: not decodable (kept as it was) or absent
	}{
		{name: "built", period: "2024-01", id: "s1", docs: 1, done: true},
		{name: "staged now", period: "2024-02", id: "s2", docs: 2, staged: []string{"b", "c"}},
		{name: "staged before", period: "2024-03", id: "s3", docs: 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pp := got[i]
			if pp.Period != tt.period || pp.ShardID != tt.id || pp.Docs != tt.docs || pp.Done != tt.done || (pp.Meta != nil) != tt.done ||
				pp.DocsKey != layout.StagingDocsKey("news", tt.id) {
				t.Fatalf("plan %+v", pp)
			}
			docs, err := GetParquet[schemas.Document](ctx, b, pp.DocsKey)
			var ids []string
			for _, d := range docs {
				ids = append(ids, d.DocID)
			}
			if !reflect.DeepEqual(ids, tt.staged) {
				t.Fatalf("staged %v (%v), want %v", ids, err, tt.staged)
			}
			if tt.done && !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("a built shard's documents were staged: %v", err)
			}
		})
	}
}
