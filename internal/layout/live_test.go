package layout_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestReadLive: the live manifest of a published index; a missing index is ErrIndexNotFound
// (not blob.ErrNotFound) saying how to build it; a damaged CURRENT is not mistaken for a
// missing index.
func TestReadLive(t *testing.T) {
	ctx := context.Background()
	b := bucket(t)
	ours := func(existing schemas.Manifest, m *schemas.Manifest) bool { return sameIDs(*m)(existing) }
	if _, err := layout.Publish(ctx, b, "news", add("a", "b"), ours); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "indexes/broken/CURRENT", strings.NewReader(`{"manifest":`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		index   string
		shards  int
		wantErr error
		notErr  error
		message string
	}{
		{name: "live", index: "news", shards: 2},
		{name: "missing", index: "nope", wantErr: layout.ErrIndexNotFound, notErr: blob.ErrNotFound,
			message: "index \"nope\" does not exist (build it with `asof index --index nope --corpus …`)"},
		{name: "damaged", index: "broken", wantErr: layout.ErrDamaged, notErr: layout.ErrIndexNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := layout.ReadLive(ctx, b, tc.index)
			if tc.wantErr == nil {
				if err != nil || len(m.Shards) != tc.shards || m.Seq != 1 {
					t.Fatalf("ReadLive = %d shards, seq %d, %v; want %d, 1", len(m.Shards), m.Seq, err, tc.shards)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || errors.Is(err, tc.notErr) || (tc.message != "" && err.Error() != tc.message) {
				t.Fatalf("err = %v; want %v, not %v, saying %q", err, tc.wantErr, tc.notErr, tc.message)
			}
		})
	}
}
