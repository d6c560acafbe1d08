package client

import (
	"context"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/workflows"
)

// TestInFlightCounterCountsShortParts: the chunks of in-flight shards are counted from their
// stored parts exactly — full parts by the part size, each shard's last part by its header —
// so a batch of small shards (one short part each) is not counted as full parts.
func TestInFlightCounterCountsShortParts(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const partSize = 4
	put := func(shard string, part, n int) {
		vecs := make([][]float32, n)
		for i := range vecs {
			vecs[i] = []float32{1, 0}
		}
		buf, err := vecindex.Encode(2, "m", vecs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, layout.PartKey(layout.VectorsPrefix("news", shard), part), buf); err != nil {
			t.Fatal(err)
		}
	}
	// a: two full parts and a last one of 3; b: one part of 1; c: nothing stored yet.
	put("a", 0, 4)
	put("a", 1, 4)
	put("a", 2, 3)
	put("b", 0, 1)
	shards := []workflows.InFlightShard{{ShardID: "a"}, {ShardID: "b"}, {ShardID: "c"}}
	c := NewInFlightCounter(b, "news", partSize)
	for range 2 { // the second time from the read headers
		if got := c.Count(ctx, shards); got != 4+4+3+1 {
			t.Fatalf("in flight %d chunks, want 12 (counting whole parts said 16)", got)
		}
	}
	put("c", 0, 4) // c stores a full part
	if got := c.Count(ctx, shards); got != 12+4 {
		t.Fatalf("after c's first part: %d, want 16", got)
	}
}
