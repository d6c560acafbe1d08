package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
)

// rerankRanking reorders the head of r with the worker's reranker (rerank.Rank; a nil
// a.Reranker leaves r as it is). It runs where `asof ask` ranks (Answer, Candidates) and where
// `asof eval` does (EvalBatch). A server that refuses the request (a 4xx: wrong URL, key or
// model) fails the activity for good, and so do bad options; other failures are retried by
// its retry policy.
func (a *Activities) rerankRanking(ctx context.Context, query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
	out, err := rerank.Rank(ctx, a.Reranker, a.RerankOptions, query, o, r)
	switch {
	case errors.Is(err, llm.ErrConfig):
		return r, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, err)
	case errors.Is(err, rerank.ErrOptions):
		return r, invalid(err)
	}
	return out, err
}
