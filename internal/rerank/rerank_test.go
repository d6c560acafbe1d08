package rerank_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/asofrag/asof/internal/rerank"
)

func TestReorder(t *testing.T) {
	opts := func(f rerank.Fuse, top int) rerank.Options {
		o := rerank.DefaultOptions()
		o.Fuse, o.TopN = f, top
		return o
	}
	tests := []struct {
		name   string
		n      int
		base   []float64
		scores []float64
		o      rerank.Options
		want   []int
	}{
		{name: "replace sorts the head by score", n: 4, scores: []float64{0.1, 0.9, 0.5}, o: opts(rerank.FuseReplace, 3),
			want: []int{1, 2, 0, 3}},
		{name: "replace: ties keep the ranking's order", n: 3, scores: []float64{0.5, 0.5, 0.7}, o: opts(rerank.FuseReplace, 3),
			want: []int{2, 0, 1}},
		{name: "items past the head keep their order after it, even when their score would win", n: 5,
			base: []float64{0.05, 0.04, 0.03, 0.9, 0.8}, scores: []float64{0, 1, 2}, o: opts(rerank.FuseReplace, 3),
			want: []int{2, 1, 0, 3, 4}},
		{name: "rrf: a strong ranking lead survives one reranker list", n: 3,
			// 1/61 + 1/63 = 0.0323 beats 0.01 + 1/61 = 0.0264
			base: []float64{1.0/61 + 1.0/62, 0.01, 0.005}, scores: []float64{0.1, 0.9, 0.5}, o: opts(rerank.FuseRRF, 3),
			want: []int{0, 1, 2}},
		{name: "rrf: near ties are decided by the reranker", n: 3,
			base: []float64{0.0330, 0.0329, 0.0328}, scores: []float64{0.1, 0.5, 0.9}, o: opts(rerank.FuseRRF, 3),
			want: []int{2, 1, 0}},
		{name: "rrf: weight 0.001 barely counts", n: 3,
			base: []float64{0.0330, 0.0320, 0.0310}, scores: []float64{0.1, 0.5, 0.9},
			o: rerank.Options{TopN: 3, Fuse: rerank.FuseRRF, Weight: 0.001, KRRF: 60}, want: []int{0, 1, 2}},
		{name: "rrf without ranking scores fuses positions", n: 4, scores: []float64{0, 0, 1},
			// position 3, reranker rank 1: 1/63 + 1/61 = 0.03227 passes position 2, rank 2:
			// 1/62 + 1/62 = 0.03226, not position 1: 1/61 + 1/62 = 0.03252
			o: opts(rerank.FuseRRF, 3), want: []int{0, 2, 1, 3}},
		{name: "rrf: tied reranker scores share a rank", n: 3, scores: []float64{1, 1, 1}, o: opts(rerank.FuseRRF, 3),
			want: []int{0, 1, 2}},
		{name: "no scores changes nothing", n: 3, o: opts(rerank.FuseRRF, 3), want: []int{0, 1, 2}},
		{name: "empty ranking", n: 0, o: opts(rerank.FuseReplace, 3), want: []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rerank.Reorder(tc.n, tc.base, tc.scores, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("order %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReorderRefuses(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		base   []float64
		scores []float64
		o      rerank.Options
	}{
		{"more scores than items", 1, nil, []float64{1, 2}, rerank.DefaultOptions()},
		{"fewer ranking scores than reranked items", 3, []float64{1}, []float64{1, 2}, rerank.DefaultOptions()},
		{"NaN score", 2, nil, []float64{math.NaN(), 1}, rerank.DefaultOptions()},
		{"infinite score", 2, nil, []float64{math.Inf(1), 1}, rerank.DefaultOptions()},
		{"top 0", 2, nil, nil, rerank.Options{Fuse: rerank.FuseRRF, Weight: 1, KRRF: 60}},
		{"unknown fuse", 2, nil, nil, rerank.Options{TopN: 2, Fuse: "max"}},
		{"weight 0 in rrf", 2, nil, nil, rerank.Options{TopN: 2, Fuse: rerank.FuseRRF, KRRF: 60}},
		{"NaN k", 2, nil, nil, rerank.Options{TopN: 2, Fuse: rerank.FuseRRF, Weight: 1, KRRF: math.NaN()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := rerank.Reorder(tc.n, tc.base, tc.scores, tc.o); !errors.Is(err, rerank.ErrOptions) {
				t.Fatalf("err %v, want ErrOptions", err)
			}
		})
	}
}

// TestReorderIsAPermutation is the property the as-of mask rests on: whatever the scores,
// reranking returns each input item exactly once (nothing added, so nothing after the anchor
// can enter), and the items past the reranked head stay where they were.
func TestReorderIsAPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	for trial := range 2000 {
		n := rng.IntN(80)
		o := rerank.DefaultOptions()
		o.TopN = 1 + rng.IntN(60)
		if rng.IntN(2) == 0 {
			o.Fuse = rerank.FuseReplace
		}
		o.Weight = 0.1 + 3*rng.Float64()
		m := min(n, o.TopN)
		scores := make([]float64, m)
		for i := range scores {
			scores[i] = float64(rng.IntN(5)) - 2 // many ties
		}
		var base []float64
		if rng.IntN(2) == 0 {
			base = make([]float64, n)
			for i := range base {
				base[i] = 1 / (60 + float64(i) + rng.Float64())
			}
		}
		order, err := rerank.Reorder(n, base, scores, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != n {
			t.Fatalf("trial %d: %d positions for %d items", trial, len(order), n)
		}
		seen := make([]bool, n)
		for i, p := range order {
			if p < 0 || p >= n || seen[p] {
				t.Fatalf("trial %d: order %v is not a permutation of 0..%d", trial, order, n-1)
			}
			seen[p] = true
			if i < m && p >= m {
				t.Fatalf("trial %d: item %d from past the head entered it at %d", trial, p, i)
			}
			if i >= m && p != i {
				t.Fatalf("trial %d: item %d past the head moved to %d", trial, p, i)
			}
		}
		if o.Fuse == rerank.FuseReplace {
			for i := 1; i < m; i++ {
				if scores[order[i]] > scores[order[i-1]] {
					t.Fatalf("trial %d: replace order %v is not by score %v", trial, order, scores)
				}
			}
		}
	}
}
