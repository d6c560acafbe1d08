package vecindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopKIsTheExactTopK offers hits in ascending row order, scores drawn from few values (ties
// everywhere), and checks topK's kept set against a full sort, for many k and lengths: the
// buffer's cuts (selectBest) and threshold must never lose a top-k hit nor keep another.
func TestTopKIsTheExactTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n := 1 + rng.IntN(3000)
		k := 1 + rng.IntN(60)
		if trial%5 == 0 {
			k = 1 + rng.IntN(n) // k near n
		}
		values := 1 + rng.IntN(20)
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
