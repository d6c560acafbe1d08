package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestQueryVectorsFromTheStore: EvalBatch reads a batch's query vectors from EvalVectorsKey
// (storeio's tests hold the round trip); a missing object is bad input, not a retry.
func TestQueryVectorsFromTheStore(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, Model: schemas.ModelRef{ID: "e5-small-v2-q"}}}
	key := layout.EvalVectorsKey("e1", 3)
	if key != "evals/e1/vectors/00003.f32" {
		t.Fatalf("key %q", key)
	}
	_, err = a.EvalBatch(ctx, EvalBatchInput{EvalID: "e1", Batch: 4, VectorsKey: layout.EvalVectorsKey("e1", 4)})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || !strings.Contains(err.Error(), "query vectors") {
		t.Fatalf("missing vectors: %v", err)
	}
}
