package vecindex

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// topKCase draws a top-k test case: n rows, k kept (near n every fifth trial), and scores from
// few distinct values, so that ties are everywhere.
func topKCase(rng *rand.Rand, trial int) (n, k, values int) {
	n = 1 + rng.IntN(3000)
	k = 1 + rng.IntN(60)
	if trial%5 == 0 {
		k = 1 + rng.IntN(n) // k near n
	}
	return n, k, 1 + rng.IntN(20)
}

// TestTopKIsTheExactTopK offers hits in ascending row order, scores drawn from few values (ties
// everywhere), and checks topK's kept set against a full sort, for many k and lengths: the
// buffer's cuts (selectBest) and threshold must never lose a top-k hit nor keep another.
func TestTopKIsTheExactTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n, k, values := topKCase(rng, trial)
		hits := make([]Hit, n)
		for i := range hits {
			hits[i] = Hit{Row: i, Score: float32(rng.IntN(values)) / 4}
		}
		tk := newTopK(k, n)
		for _, h := range hits {
			tk.offer(h.Row, h.Score)
		}
		got := tk.sorted()
		want := slices.Clone(hits)
		slices.SortFunc(want, compareHits)
		want = want[:min(k, n)]
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, k %d, %d values): got %v, want %v", trial, n, k, values, got, want)
		}
	}
}

// TestSelectBest checks that h[:k] are the k best and h[k-1] the k-th, on shuffled input.
func TestSelectBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		n := 2 + rng.IntN(500)
		k := 1 + rng.IntN(n-1)
		h := make([]Hit, n)
		for i := range h {
			h[i] = Hit{Row: i, Score: float32(rng.IntN(7))}
		}
		rng.Shuffle(n, func(i, j int) { h[i], h[j] = h[j], h[i] })
		want := slices.Clone(h)
		slices.SortFunc(want, compareHits)
		selectBest(h, k)
		if h[k-1] != want[k-1] {
			t.Fatalf("n %d k %d: h[k-1] = %v, want %v", n, k, h[k-1], want[k-1])
		}
		best := slices.Clone(h[:k])
		slices.SortFunc(best, compareHits)
		if !slices.Equal(best, want[:k]) {
			t.Fatalf("n %d k %d: the first k are not the k best", n, k)
		}
	}
}

// TestTopKByBlocksIsTheExactTopK is TestTopKIsTheExactTopK through offerBlock, the path every
// scan takes: blocks of 64 scores under random masks, with stale scores in the masked slots
// (as scans leave them). The threshold filter (above) must drop only rows that cannot enter,
// and never let a masked row in.
func TestTopKByBlocksIsTheExactTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		n, k, values := topKCase(rng, trial)
		tk := newTopK(k, n)
		var allowed []Hit
		var scores [64]float32
		for b0 := 0; b0 < n; b0 += 64 {
			w := blockWord(nil, b0, n)
			if trial%2 == 1 {
				w &= rng.Uint64()
			}
			for j := range 64 {
				if w&(1<<j) == 0 {
					scores[j] = float32(values) // stale: better than any real score
					continue
				}
				scores[j] = float32(rng.IntN(values)) / 4
				allowed = append(allowed, Hit{Row: b0 + j, Score: scores[j]})
			}
			tk.offerBlock(b0, w, &scores)
		}
		got := tk.sorted()
		want := slices.Clone(allowed)
		slices.SortFunc(want, compareHits)
		want = want[:min(k, len(want))]
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n %d, k %d, %d values): got %v, want %v", trial, n, k, values, got, want)
		}
	}
}

// TestAbove checks the threshold filter bit by bit at every kernel level, at and around the
// threshold, with signed zeros, infinities and NaN (never above, as Go's > says).
func TestAbove(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		special := []float32{float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
		for trial := range 300 {
			var scores [64]float32
			for j := range scores {
				scores[j] = float32(rng.IntN(9)-4) / 2
				if rng.IntN(8) == 0 {
					scores[j] = special[rng.IntN(len(special))]
				}
			}
			thr := float32(rng.IntN(9)-4) / 2
			if trial%10 == 0 {
				thr = special[rng.IntN(len(special)-1)] // not NaN: a threshold is a kept score
			}
			m := above(&scores, thr)
			for j, s := range scores {
				if got, want := m&(1<<j) != 0, s > thr; got != want {
					t.Fatalf("score %v, threshold %v: bit %d is %v, want %v", s, thr, j, got, want)
				}
			}
		}
	})
}

// BenchmarkOfferBlock is the top-k bookkeeping of a 100,000-row scan without the scan: normal
// scores in blocks of 64 (in cache), kept k = 20 and 1,000 (the int8 path's top 10 and top
// 500 with re-scoring factor 2).
func BenchmarkOfferBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	scores := make([][64]float32, 100000/64)
	for i := range scores {
		for j := range scores[i] {
			scores[i][j] = float32(rng.NormFloat64())
		}
	}
	for _, k := range []int{20, 1000} {
		b.Run(fmt.Sprintf("k%d", k), func(b *testing.B) {
			for b.Loop() {
				tk := newTopK(k, len(scores)*64)
				for i := range scores {
					tk.offerBlock(i*64, ^uint64(0), &scores[i])
				}
				tk.kept()
			}
		})
	}
}

// TestKthLargest checks the cut's selection against a sort: the returned value is the k-th
// largest, s[:k] holds the k largest values (as a multiset) and nothing after k-1 is above it,
// on random, sorted, reversed and all-equal inputs, for every k of small lengths and random k of
// long ones; and a NaN among the values ends it (bounded) instead of hanging.
func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	shapes := map[string]func(n int) []float32{
		"random": func(n int) []float32 {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
			return s
		},
		"few values": func(n int) []float32 {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(rng.IntN(4))
			}
			return s
		},
		"ascending": func(n int) []float32 {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(i)
			}
			return s
		},
		"descending": func(n int) []float32 {
			s := make([]float32, n)
			for i := range s {
				s[i] = float32(n - i)
			}
			return s
		},
		"all equal": func(n int) []float32 { return slices.Repeat([]float32{0.5}, n) },
	}
	for _, name := range []string{"random", "few values", "ascending", "descending", "all equal"} {
		for _, n := range []int{1, 2, 3, 7, 64, 2000} {
			ks := []int{1, n, (n + 1) / 2}
			if n <= 7 {
				ks = nil
				for k := 1; k <= n; k++ {
					ks = append(ks, k)
				}
			} else {
				ks = append(ks, 1+rng.IntN(n), 1+rng.IntN(n))
			}
			for _, k := range ks {
				s := shapes[name](n)
				want := slices.Clone(s)
				slices.SortFunc(want, func(a, b float32) int { return cmp.Compare(b, a) })
				got := kthLargest(s, k)
				if got != want[k-1] || s[k-1] != got {
					t.Fatalf("%s n=%d k=%d: got %v (s[k-1] %v), want %v", name, n, k, got, s[k-1], want[k-1])
				}
				top := slices.Clone(s[:k])
				slices.SortFunc(top, func(a, b float32) int { return cmp.Compare(b, a) })
				if !slices.Equal(top, want[:k]) {
					t.Fatalf("%s n=%d k=%d: s[:k] is not the k largest", name, n, k)
				}
				for _, v := range s[k:] {
					if v > got {
						t.Fatalf("%s n=%d k=%d: %v after k-1 is above the k-th largest %v", name, n, k, v, got)
					}
				}
			}
		}
	}
	s := []float32{3, float32(math.NaN()), 1, 2, float32(math.NaN()), 5}
	kthLargest(s, 3) // must return: no stored score is NaN, but a bad one must not hang a query
}
