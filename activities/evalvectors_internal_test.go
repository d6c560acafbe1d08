package activities

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestQueryVectorsRoundTripThroughTheStore: the vectors EmbedTexts stores for a batch come
// back from EvalVectorsKey exactly, in order; a missing object is bad input, not a retry.
func TestQueryVectorsRoundTripThroughTheStore(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, Model: schemas.ModelRef{ID: "e5-small-v2-q"}}}
	want := [][]float32{{0.5, -0.25, 1e-7}, {-1, 0, 3.25}}
	key := layout.EvalVectorsKey("e1", 3)
	if key != "evals/e1/vectors/00003.f32" {
		t.Fatalf("key %q", key)
	}
	if err := a.putVectors(ctx, key, want); err != nil {
		t.Fatal(err)
	}
	got, err := a.getVectors(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Fatalf("read back %v, want %v", got, want)
	}
	_, err = a.getVectors(ctx, layout.EvalVectorsKey("e1", 4))
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || !strings.Contains(err.Error(), "query vectors") {
		t.Fatalf("missing vectors: %v", err)
	}
}
