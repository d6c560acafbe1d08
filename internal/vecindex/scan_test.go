package vecindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDotsMatchesDot checks the block scorer against Dot row by row, bit for bit, at every
// kernel level: dims on and off the kernels' 32-value step, and row counts on and off its
// two-row step; at the AVX-512 levels with and without the prefetch (floatAhead), whichever
// this CPU's vendor gets by default.
func TestDotsMatchesDot(t *testing.T) {
	defer func(a int) { floatAhead = a }(floatAhead)
	for _, ahead := range []int{0, 64, 4096} {
		floatAhead = ahead
		t.Run(fmt.Sprintf("ahead %d", ahead), testDotsMatchesDot)
	}
}

func testDotsMatchesDot(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		for _, tc := range []struct {
			name      string
			dim, rows int
		}{
			{"one value", 1, 3},
			{"below a step", 31, 5},
			{"one step", 32, 1},
			{"one step, two rows", 32, 2},
			{"step and one", 33, 7},
			{"two steps, odd rows", 64, 63},
			{"off the step", 100, 64},
			{"e5-small", 384, 64},
			{"e5-small, odd rows", 384, 9},
			{"e5-small and one", 385, 10},
			{"no rows", 384, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f := randomFlat(rng, tc.rows, tc.dim)
				q := randomFlat(rng, 1, tc.dim).Row(0)
				out := make([]float32, tc.rows+1)
				out[tc.rows] = 42 // past the rows: must stay
				dots(q, f.Data, out[:tc.rows])
				for r := range tc.rows {
					if want := Dot(q, f.Row(r)); out[r] != want {
						t.Fatalf("row %d: %v, Dot says %v", r, out[r], want)
					}
				}
				if out[tc.rows] != 42 {
					t.Fatalf("dots wrote past its %d rows", tc.rows)
				}
			})
		}
	})
}

// TestReadXOR checks the read-bandwidth kernel against the XOR of the words one by one, at
// every level, for lengths on and off its 256-byte step and unaligned starts.
func TestReadXOR(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 24))
		buf := make([]byte, 1<<14)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		for _, tc := range []struct {
			name     string
			off, len int
		}{
			{"empty", 0, 0},
			{"partial word", 0, 5},
			{"one word", 0, 8},
			{"below a step", 0, 255},
			{"one step", 0, 256},
			{"step and a byte", 0, 257},
			{"unaligned steps", 3, 4096},
			{"unaligned, odd", 7, 1 << 13},
			{"every byte", 0, 1 << 14},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := buf[tc.off : tc.off+tc.len]
				var want uint64
				for i, c := range b {
					want ^= uint64(c) << (8 * (i % 8))
				}
				if got := readXOR(b); got != want {
					t.Fatalf("readXOR = %#x, want %#x", got, want)
				}
			})
		}
	})
}

// tiedFlat is a shard whose values come from a few levels, so many rows score the same.
func tiedFlat(rng *rand.Rand, n, dim, levels int) *Flat {
	f := New(dim, "ties")
	v := make([]float32, dim)
	for range n {
		for j := range v {
			v[j] = float32(rng.IntN(levels)-levels/2) / 4
		}
		if err := f.Add(v); err != nil {
			panic(err)
		}
	}
	return f
}

// testMasks are the masks the search properties run under: none, random rows, long runs (an
// as-of window), one row, and none allowed.
func testMasks(rng *rand.Rand, n int) map[string]Mask {
	random, runs, one := NewMask(n), NewMask(n), NewMask(n)
	for i := range n {
		if rng.IntN(3) == 0 {
			random.Allow(i)
		}
		if (i/97)%2 == 0 {
			runs.Allow(i)
		}
	}
	one.Allow(n - 1)
	return map[string]Mask{"none": nil, "random": random, "runs": runs, "last row": one, "empty": NewMask(n)}
}

// bruteForce is the reference search: every allowed row scored by score, sorted by better, the
// first k.
func bruteForce(n, k int, mask Mask, score func(i int) float32) []Hit {
	var all []Hit
	for i := range n {
		if mask.Allowed(i) {
			all = append(all, Hit{i, score(i)})
		}
	}
	slices.SortFunc(all, compareHits)
	return all[:min(k, len(all))]
}

// checkHits fails t unless got is want, hit for hit, and holds no row mask disallows.
func checkHits(t *testing.T, got, want []Hit, mask Mask) {
	t.Helper()
	for _, h := range got {
		if !mask.Allowed(h.Row) {
			t.Fatalf("masked row %d returned", h.Row)
		}
	}
	if !equalHits(got, want) {
		t.Fatalf("%d hits %v…, want %d %v…", len(got), head(got), len(want), head(want))
	}
}

// TestSearchExactUnderTies checks Flat.Search (and its two-halves split, merged) against a
// brute-force sort, at every kernel level, on shards with many tied scores, partial last
// blocks and every kind of mask: the same rows, scores and order, ties to the lower row, and
// no masked row.
func TestSearchExactUnderTies(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(25, 26))
		for _, tc := range []struct {
			name           string
			n, dim, levels int
		}{
			{"small dim, heavy ties", 300, 8, 3},
			{"one step", 257, 32, 3},
			{"off the step", 500, 45, 5},
			{"e5-small", 1000, 384, 3},
			{"e5-small and one", 130, 385, 5},
			{"one block", 64, 64, 2},
		} {
			f := tiedFlat(rng, tc.n, tc.dim, tc.levels)
			q := tiedFlat(rng, 1, tc.dim, tc.levels).Row(0)
			for mname, mask := range testMasks(rng, tc.n) {
				for _, k := range []int{1, 7, 64, 500, tc.n + 5} {
					t.Run(fmt.Sprintf("%s/%s/k%d", tc.name, mname, k), func(t *testing.T) {
						want := bruteForce(tc.n, k, mask, func(i int) float32 { return Dot(q, f.Row(i)) })
						got, err := f.Search(q, k, mask)
						if err != nil {
							t.Fatal(err)
						}
						checkHits(t, got, want, mask)
						if mask != nil {
							return
						}
						half := tc.n / 2
						lo := &Flat{Dim: f.Dim, Count: half, Data: f.Data[:half*f.Dim]}
						hi := &Flat{Dim: f.Dim, Count: tc.n - half, Data: f.Data[half*f.Dim:]}
						a, _ := lo.Search(q, k, nil)
						c, _ := hi.Search(q, k, nil)
						checkHits(t, mergeHits(a, c, half, k), want, nil)
					})
				}
			}
		}
	})
}

// TestInt8SearchExactUnderTies checks Int8.Search and Int8.SearchMany against the int8
// pipeline done by brute force (every allowed row's int8 score sorted by better, the first
// k·rerank re-scored with Dot and sorted, the first k), at every level, with ties and masks.
func TestInt8SearchExactUnderTies(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(27, 28))
		for _, tc := range []struct {
			name           string
			n, dim, levels int
		}{
			{"small dim, heavy ties", 700, 8, 3},
			{"e5-small", 1500, 384, 3},
			{"off the step", 900, 100, 5},
		} {
			f := tiedFlat(rng, tc.n, tc.dim, tc.levels)
			x := QuantizeInt8(f)
			q := tiedFlat(rng, 1, tc.dim, tc.levels).Row(0)
			codes := make([]int8, tc.dim)
			quantize(codes, q)
			for mname, mask := range testMasks(rng, tc.n) {
				for _, k := range []int{1, 10, 100} {
					t.Run(fmt.Sprintf("%s/%s/k%d", tc.name, mname, k), func(t *testing.T) {
						m := k * DefaultRerank
						var want []Hit
						if m >= mask.Count(tc.n) {
							want = bruteForce(tc.n, k, mask, func(i int) float32 { return Dot(q, f.Row(i)) })
						} else {
							cand := bruteForce(tc.n, m, mask, func(i int) float32 {
								return x.Scales[i] * float32(DotInt8(x.Codes[i*tc.dim:(i+1)*tc.dim], codes))
							})
							for j := range cand {
								cand[j].Score = Dot(q, f.Row(cand[j].Row))
							}
							slices.SortFunc(cand, compareHits)
							want = cand[:min(k, len(cand))]
						}
						got, err := x.Search(q, k, mask, 0)
						if err != nil {
							t.Fatal(err)
						}
						checkHits(t, got, want, mask)
						many, err := x.SearchMany([][]float32{q, q}, k, []Mask{mask}, 0)
						if err != nil {
							t.Fatal(err)
						}
						checkHits(t, many[1], want, mask)
					})
				}
			}
		}
	})
}
