package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	ro := a.rerankOptions(o)
	prefix := isPrefix(r.Results, r.Ranked)
	heads := [][]answer.Hit{r.Ranked[:min(ro.TopN, len(r.Ranked))]}
	if !prefix {
		heads = append(heads, r.Results[:min(ro.TopN, len(r.Results))])
	}
	// Each chunk is scored once, even when it heads both lists.
	at := map[string]int{}
	var texts []string
	for _, h := range heads {
		for _, hit := range h {
			if _, ok := at[hit.Chunk.ChunkID]; !ok {
				at[hit.Chunk.ChunkID] = len(texts)
				texts = append(texts, rerankText(hit))
			}
		}
	}
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
	rrf := r.Mode == retrieve.Recency || r.Mode == retrieve.Hybrid || r.Mode == retrieve.Window
	reorder := func(hits []answer.Hit) ([]answer.Hit, error) {
		m := min(ro.TopN, len(hits))
		s := make([]float64, m)
		var base []float64
		if rrf {
			base = make([]float64, m)
		}
		for i, h := range hits[:m] {
			s[i] = scores[at[h.Chunk.ChunkID]]
			if rrf {
				base[i] = h.Score
			}
		}
		order, err := rerank.Reorder(len(hits), base, s, ro)
		if err != nil {
			return nil, invalid(err)
		}
		out := make([]answer.Hit, len(hits))
		for i, p := range order {
			out[i] = hits[p]
		}
		return out, nil
	}
	ranked, err := reorder(r.Ranked)
	if err != nil {
		return r, err
	}
	results := r.Results
	if prefix {
		results = ranked[:len(results)]
	} else if results, err = reorder(results); err != nil {
		return r, err
	}
	r.Ranked, r.Results = ranked, results
	return r, nil
}

// rerankOptions are the worker's rerank options with defaults filled in; the RRF constant is
// the ranking's own, so the reranker's list weighs like the others.
func (a *Activities) rerankOptions(o retrieve.Options) rerank.Options {
	ro, d := a.RerankOptions, rerank.DefaultOptions()
	if ro.TopN == 0 {
		ro.TopN = d.TopN
	}
	if ro.Fuse == "" {
		ro.Fuse = d.Fuse
	}
	if ro.Weight == 0 {
		ro.Weight = d.Weight
	}
	ro.KRRF = o.KRRF
	return ro
}

// rerankText is what the reranker reads of a hit: its title, then its text.
func rerankText(h answer.Hit) string {
	t, body := strings.TrimSpace(h.Chunk.Title), h.Chunk.Text
	if t == "" || strings.HasPrefix(strings.TrimSpace(body), t) {
		return body
	}
	return t + "\n\n" + body
}

// isPrefix reports whether results are the ranking's first items (the folded results are;
// eval's unfolded ones are not).
func isPrefix(results, ranked []answer.Hit) bool {
	if len(results) > len(ranked) {
		return false
	}
	for i, h := range results {
		if h.Chunk.ChunkID != ranked[i].Chunk.ChunkID {
			return false
		}
	}
	return true
}
