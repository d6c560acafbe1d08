package rerank

import (
	"strings"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/retrieve"
)

// WithDefaults is o (a worker's rerank options) with its zero fields set from DefaultOptions;
// the RRF constant is the ranking's own (ro.KRRF), so the reranker's list weighs like the others.
func WithDefaults(o Options, ro retrieve.Options) Options {
	d := DefaultOptions()
	if o.TopN == 0 {
		o.TopN = d.TopN
	}
	if o.Fuse == "" {
		o.Fuse = d.Fuse
	}
	if o.Weight == 0 {
		o.Weight = d.Weight
	}
	o.KRRF = ro.KRRF
	return o
}

// Heads is what a reranker scores of a ranking: the texts of the first TopN of its folded
// ranking and, when its results are not a prefix of that ranking (eval's systems without
// +dedup keep every copy), of the first TopN results too; each chunk once.
type Heads struct {
	// Texts are what the reranker reads (Text), in order; Scores must answer them in order.
	Texts  []string
	at     map[string]int
	prefix bool
	o      Options
}

// HeadsOf lists what a reranker must score to reorder r with o (o.TopN set: WithDefaults).
func HeadsOf(r answer.Ranking, o Options) Heads {
	h := Heads{at: map[string]int{}, prefix: isPrefix(r.Results, r.Ranked), o: o}
	heads := [][]answer.Hit{r.Ranked[:min(o.TopN, len(r.Ranked))]}
	if !h.prefix {
		heads = append(heads, r.Results[:min(o.TopN, len(r.Results))])
	}
	for _, hs := range heads {
		for _, hit := range hs {
			if _, ok := h.at[hit.Chunk.ChunkID]; !ok {
				h.at[hit.Chunk.ChunkID] = len(h.Texts)
				h.Texts = append(h.Texts, Text(hit))
			}
		}
	}
	return h
}

// Apply reorders r by scores, one per text of h (Reorder: fused with the ranking's score in
// the RRF modes, recency, hybrid and window): the head of the ranking is reordered, the rest
// keeps its order after it, and the results are the first ones of the new ranking (or, when
// they were not its prefix, reordered the same way on their own).
func (h Heads) Apply(r answer.Ranking, scores []float64) (answer.Ranking, error) {
	rrf := r.Mode == retrieve.Recency || r.Mode == retrieve.Hybrid || r.Mode == retrieve.Window
	reorder := func(hits []answer.Hit) ([]answer.Hit, error) {
		m := min(h.o.TopN, len(hits))
		s := make([]float64, m)
		var base []float64
		if rrf {
			base = make([]float64, m)
		}
		for i, hit := range hits[:m] {
			s[i] = scores[h.at[hit.Chunk.ChunkID]]
			if rrf {
				base[i] = hit.Score
			}
		}
		order, err := Reorder(len(hits), base, s, h.o)
		if err != nil {
			return nil, err
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
	if h.prefix {
		results = ranked[:len(results)]
	} else if results, err = reorder(results); err != nil {
		return r, err
	}
	r.Ranked, r.Results = ranked, results
	return r, nil
}

// Text is what the reranker reads of a hit: its title, then its text.
func Text(h answer.Hit) string {
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
