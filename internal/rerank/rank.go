package rerank

import (
	"context"
	"fmt"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/retrieve"
)

// Rank reorders the head of r with rr (nil leaves r as it is): the first TopN of the folded
// ranking are scored against query and reordered (Heads.Apply with o, WithDefaults for the
// ranking's options ro), the rest keep their order after them, and the results are the first K
// of the new ranking. `asof ask` and `asof eval` both rank through it, so eval measures what
// ask serves.
//
// A reranker only reorders: what the as-of mask let through is all it sees, so nothing after
// the anchor can enter. Evolution rankings are left alone (their groups are chosen by date).
// When the results are not a prefix of the ranking (eval's systems without +dedup keep every
// copy), they are reordered the same way on their own. The reranker's errors are returned
// wrapped (a refused request matches llm.ErrConfig); bad options match ErrOptions.
func Rank(ctx context.Context, rr Reranker, o Options, query string, ro retrieve.Options, r answer.Ranking) (answer.Ranking, error) {
	if rr == nil || r.Evolution() || len(r.Ranked) == 0 {
		return r, nil
	}
	h := HeadsOf(r, WithDefaults(o, ro))
	scores, err := rr.Rerank(ctx, query, h.Texts)
	if err != nil {
		return r, fmt.Errorf("rerank: %w", err)
	}
	if len(scores) != len(h.Texts) {
		return r, fmt.Errorf("rerank: %d scores for %d documents (%s)", len(scores), len(h.Texts), rr.Describe())
	}
	return h.Apply(r, scores)
}
