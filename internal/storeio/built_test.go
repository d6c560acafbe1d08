package storeio

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
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
