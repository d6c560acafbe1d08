package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// queryEmbedder is what embeds the queries of index, and its model's reference: the model the
// index was built with, so that a long-running worker (asof dev, serve, worker) answers indexes
// of any model it can load. It is the worker's own model (Embedder, Model) when index is ""
// (a workflow from before the field), when the worker loads no other model (QueryModels nil:
// an embeddings server serves its one model), when the index is not found or damaged (the
// retrieval step reports that), when the index records the worker's model id or a model from
// an embeddings server (the retrieval step's mismatch error then says what to pass); else the
// index's model, which QueryModels loads once and keeps. A model that cannot be loaded is a
// final error naming the index, the model and why. Call release when done with the embedder.
func (a *Activities) queryEmbedder(ctx context.Context, index string) (e embed.Embedder, ref schemas.ModelRef, release func(), err error) {
	own := func() (embed.Embedder, schemas.ModelRef, func(), error) {
		if a.Embedder == nil {
			return nil, a.Model, nil, noModel()
		}
		return a.Embedder, a.Model, func() {}, nil
	}
	if index == "" || a.QueryModels == nil {
		return own()
	}
	m, err := layout.ReadLive(ctx, a.Bucket, index)
	switch {
	case errors.Is(err, layout.ErrIndexNotFound), errors.Is(err, layout.ErrDamaged):
		return own()
	case err != nil:
		return nil, ref, nil, fmt.Errorf("read index %s: %w", index, err)
	}
	built := m.Model
	if built.ID == "" || built.ID == a.Model.ID || strings.HasPrefix(built.SHA256, schemas.RemoteModelPrefix) {
		return own()
	}
	e, ref, release, err = a.QueryModels.Acquire(ctx, built.ID)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ref, nil, err
	case err != nil:
		return nil, ref, nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("index %s was built with model %s, which this worker cannot load to embed its queries: %v", index, built.ID, err), ErrTypeConfig, err)
	}
	if err := checkModel(index, built, ref); err != nil { // the same id, other weights
		release()
		return nil, ref, nil, err
	}
	return e, ref, release, nil
}
