// Package rerank reorders the head of a ranking with a reranker: a model that reads the query
// and each document together (a cross-encoder) and scores how well the document answers it.
//
// Two kinds of reranker implement [Reranker]: [Client], for a server that speaks the rerank
// API (POST {base}/rerank: TEI, vLLM, llama.cpp server, Jina, Cohere, Voyage), and [Local], a
// cross-encoder model folder run in process through hugot. [Reorder] decides the new order from
// the reranker's scores: the first TopN items are reordered, either by the reranker's score
// alone or with its rank fused into the ranking's RRF score as one more list; the rest keep
// their order after them.
//
// A reranker only reorders what retrieval returned: it never adds an item, so the as-of mask
// (nothing published after the anchor) holds after reranking as it held before. Nothing here
// imports Temporal.
package rerank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/asofrag/asof/internal/fusion"
)

// Reranker scores documents against a query: one score per document, in the documents' order,
// higher meaning more relevant. Scores of one call are comparable with each other only.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
	// Describe is a one-line description for logs, without secrets.
	Describe() string
}

// Fuse is how the reranker's scores change the ranking.
type Fuse string

// Fusion modes.
const (
	// FuseRRF adds Weight/(KRRF + reranker rank) to each reranked item's fused score: the
	// reranker is one more list of the reciprocal rank fusion, so the time preference and the
	// other branches still count.
	FuseRRF Fuse = "rrf"
	// FuseReplace orders the reranked items by the reranker's score alone.
	FuseReplace Fuse = "replace"
)

// Defaults of [Options].
const (
	DefaultTopN   = 50
	DefaultWeight = 1.0
	DefaultKRRF   = 60.0
)

// ErrOptions marks options that cannot work.
var ErrOptions = errors.New("rerank: invalid options")

// Options says how the reranker's scores change a ranking.
type Options struct {
	// TopN is how many of the ranking's first items are reranked (the rest keep their order
	// after them).
	TopN int `json:"TopN"`
	// Fuse is rrf or replace.
	Fuse Fuse `json:"Fuse"`
	// Weight is the reranker list's weight in rrf fusion.
	Weight float64 `json:"Weight"`
	// KRRF is the rank constant of rrf fusion (the ranking's own, so the lists weigh alike).
	KRRF float64 `json:"KRRF"`
}

// DefaultOptions: the first 50 items, fused as one more RRF list of weight 1 with k 60.
func DefaultOptions() Options {
	return Options{TopN: DefaultTopN, Fuse: FuseRRF, Weight: DefaultWeight, KRRF: DefaultKRRF}
}

// Validate reports every option that cannot work.
func (o Options) Validate() error {
	var errs []error
	if o.TopN < 1 {
		errs = append(errs, fmt.Errorf("%w: top %d must be at least 1", ErrOptions, o.TopN))
	}
	if o.Fuse != FuseRRF && o.Fuse != FuseReplace {
		errs = append(errs, fmt.Errorf("%w: fuse %q: use rrf or replace", ErrOptions, o.Fuse))
	}
	if o.Fuse == FuseRRF && (!(o.Weight > 0) || math.IsInf(o.Weight, 0)) {
		errs = append(errs, fmt.Errorf("%w: weight %v must be a positive number", ErrOptions, o.Weight))
	}
	if o.Fuse == FuseRRF && (!(o.KRRF >= 0) || math.IsInf(o.KRRF, 0)) {
		errs = append(errs, fmt.Errorf("%w: k %v must be a number ≥ 0", ErrOptions, o.KRRF))
	}
	return errors.Join(errs...)
}

// Reorder returns the new order of a ranking of n items whose first len(scores) were scored
// by a reranker (len(scores) ≤ n, normally min(TopN, n)): order[i] is the input position of
// the item now at position i. It is always a permutation of 0..n-1, and positions from
// len(scores) on are unchanged.
//
// With FuseReplace the scored items are sorted by score. With FuseRRF each scored item's key
// is fusion.RRF's: its ranking score plus Weight/(KRRF + its rank among the scores); base holds
// the ranking's scores (an RRF sum: recency, hybrid and window modes); a nil base stands for a
// ranking on another scale (decay, dense, bm25), whose own list then counts by position,
// 1/(KRRF + position). Ties keep the input order, so equal scores change nothing.
func Reorder(n int, base, scores []float64, o Options) ([]int, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	m := len(scores)
	if m > n {
		return nil, fmt.Errorf("%w: %d scores for %d items", ErrOptions, m, n)
	}
	if base != nil && len(base) < m {
		return nil, fmt.Errorf("%w: %d ranking scores for %d reranked items", ErrOptions, len(base), m)
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("%w: score %d is %v", ErrOptions, i, s)
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	head := order[:m]
	key := scores
	if o.Fuse == FuseRRF {
		// The reranker's list ranks by score, tied scores sharing a rank (competition ranking,
		// so they add alike); the ranking's own scores are the base it is added to, or, on
		// another scale, its positions are one more list of weight 1.
		in := fusion.Input{Lists: []fusion.List{{Weight: o.Weight, Ranks: fusion.Ranks(scores, fusion.TiesCompetition)}}}
		if base != nil {
			in.Base = base[:m]
		} else {
			pos := make([]int, m)
			for i := range pos {
				pos[i] = i + 1
			}
			in.Lists = append([]fusion.List{{Weight: 1, Ranks: pos}}, in.Lists...)
		}
		var err error
		if key, err = fusion.RRF(m, in, fusion.Options{K: o.KRRF}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	slices.SortStableFunc(head, func(a, b int) int { return cmp.Compare(key[b], key[a]) })
	return order, nil
}
