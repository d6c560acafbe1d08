package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/retrieve"
)

// rerankRanking reorders the head of r with the worker's reranker (a.Reranker; nil leaves r
// as it is): the first TopN of the folded ranking are scored against query and reordered
// (rerank.Reorder), the rest keep their order after them, and the results are the first K of
// the new ranking. It runs where `asof ask` ranks (Answer, Candidates) and where `asof eval`
// does (EvalBatch), so eval measures what ask serves.
//
// A reranker only reorders: what the as-of mask let through is all it sees, so nothing after
// the anchor can enter. Evolution rankings are left alone (their groups are chosen by date).
// When the results are not a prefix of the ranking (eval's systems without +dedup keep every
// copy), they are reordered the same way on their own. A server that refuses the request (a
// 4xx: wrong URL, key or model) fails the activity for good; other failures are retried by
// its retry policy.
func (a *Activities) rerankRanking(ctx context.Context, query string, o retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
	if a.Reranker == nil || r.Evolution() || len(r.Ranked) == 0 {
		return r, nil
	}
	h := rerank.HeadsOf(r, rerank.WithDefaults(a.RerankOptions, o))
	texts := h.Texts
	scores, err := a.Reranker.Rerank(ctx, query, texts)
	if err != nil {
		if errors.Is(err, llm.ErrConfig) {
			return r, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, err)
		}
		return r, fmt.Errorf("rerank: %w", err)
	}
	if len(scores) != len(texts) {
		return r, fmt.Errorf("rerank: %d scores for %d documents (%s)", len(scores), len(texts), a.Reranker.Describe())
	}
	out, err := h.Apply(r, scores)
	if err != nil {
		return r, invalid(err)
	}
	return out, nil
}
