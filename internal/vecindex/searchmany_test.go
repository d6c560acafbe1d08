package vecindex

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSearchManyMatchesSearch: for every query, SearchMany returns what Search returns (same
// rows, order and scores, bit for bit), with no mask, one shared mask or one mask per query,
// block sizes that do and do not divide the query count, k past the allowed rows, empty masks,
// and dimensions on and off the kernel's 32-value step; at every kernel level the CPU offers.
func TestSearchManyMatchesSearch(t *testing.T) {
	forEachLevel(t, searchManyMatchesSearch)
}

// forEachLevel runs f at every kernel level this CPU offers (sub-tests named after the level;
// the others are skipped, saying so).
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for _, l := range allLevels {
		t.Run(l.String(), func(t *testing.T) {
			if l > cpuLevel {
				t.Skipf("this CPU lacks %s (its best is %s)", l, cpuLevel)
			}
			withLevel(l, func() { f(t) })
		})
	}
}

func searchManyMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	randomMask := func(n int, keep float64) Mask {
		m := NewMask(n)
		for i := range n {
			if rng.Float64() < keep {
				m.Allow(i)
			}
		}
		return m
	}
	tests := []struct {
		name    string
		rows    int
		dim     int
		queries int
		k       int
		masks   string // none, shared, each, empty, runs
		// distinct, when set, repeats that many vectors over the rows: ties everywhere.
		distinct int
	}{
		{name: "no mask, 8 queries", rows: 500, dim: 384, queries: 8, k: 10, masks: "none"},
		{name: "no mask, 4 queries", rows: 500, dim: 384, queries: 4, k: 10, masks: "none"},
		{name: "one query", rows: 300, dim: 384, queries: 1, k: 5, masks: "each"},
		{name: "3 queries: the 4-block padded", rows: 300, dim: 64, queries: 3, k: 7, masks: "each"},
		{name: "13 queries: 8 then 5", rows: 700, dim: 384, queries: 13, k: 50, masks: "each"},
		{name: "17 queries: 8, 8, then one", rows: 400, dim: 96, queries: 17, k: 20, masks: "shared"},
		{name: "k past the allowed rows", rows: 200, dim: 384, queries: 6, k: 1000, masks: "each"},
		{name: "empty masks", rows: 200, dim: 384, queries: 5, k: 10, masks: "empty"},
		{name: "masked runs of 64 rows", rows: 1000, dim: 384, queries: 8, k: 30, masks: "runs"},
		{name: "dim off the 32 step", rows: 300, dim: 40, queries: 8, k: 15, masks: "each"},
		{name: "dim below the 32 step", rows: 100, dim: 7, queries: 5, k: 15, masks: "each"},
		{name: "duplicate rows: ties go to the lower row", rows: 600, dim: 384, queries: 8, k: 25, masks: "each", distinct: 7},
		{name: "k zero", rows: 50, dim: 384, queries: 3, k: 0, masks: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := randomFlat(rng, tt.rows, tt.dim)
			if tt.distinct > 0 {
				for i := tt.distinct; i < tt.rows; i++ {
					copy(f.Row(i), f.Row(i%tt.distinct))
				}
			}
			qs := make([][]float32, tt.queries)
			for i := range qs {
				qs[i] = randomFlat(rng, 1, tt.dim).Data
			}
			if tt.queries > 1 {
				qs[1] = f.Row(tt.rows / 2) // a query equal to a row: a score tie elsewhere is unlikely, an exact 1 is not
			}
			var masks []Mask
			switch tt.masks {
			case "shared":
				masks = []Mask{randomMask(tt.rows, 0.5)}
			case "each":
				for range qs {
					masks = append(masks, randomMask(tt.rows, rng.Float64()))
				}
				masks[0] = nil // nil among masks: every row allowed for that query
			case "empty":
				for range qs {
					masks = append(masks, NewMask(tt.rows))
				}
			case "runs": // as-of windows: query i allows rows [64i, 64i+300)
				for i := range qs {
					m := NewMask(tt.rows)
					for r := 64 * i; r < min(tt.rows, 64*i+300); r++ {
						m.Allow(r)
					}
					masks = append(masks, m)
				}
			}
			got, err := f.SearchMany(qs, tt.k, masks)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(qs) {
				t.Fatalf("%d results for %d queries", len(got), len(qs))
			}
			for i, q := range qs {
				var m Mask
				if len(masks) == 1 {
					m = masks[0]
				} else if len(masks) > 0 {
					m = masks[i]
				}
				want, err := f.Search(q, tt.k, m)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Fatalf("query %d: SearchMany differs from Search\n got %v\nwant %v", i, head(got[i]), head(want))
				}
			}
		})
	}
}

func head(h []Hit) []Hit { return h[:min(len(h), 5)] }

// TestSearchManyKernelsMatchDot: the 4- and 8-query kernels give the AVX2 Dot's score bit for
// bit (SearchMany's equivalence depends on it).
func TestSearchManyKernelsMatchDot(t *testing.T) {
	if cpuLevel < levelAVX2 {
		t.Skip("no AVX2+FMA on this CPU: SearchMany scores with Dot")
	}
	withLevel(levelAVX2, func() { checkMultiKernels(t) })
}

func checkMultiKernels(t *testing.T) {
	if !multiKernel(384) {
		t.Fatal("the multi-query kernels are not used at the AVX2 level")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{32, 64, 384, 1024} {
		qs := make([]float32, 8*dim)
		for i := range qs {
			qs[i] = float32(rng.NormFloat64()) * 100
		}
		row := randomFlat(rng, 1, dim).Data
		var acc [MaxBlock * 32]float32
		var got [MaxBlock]float32
		dotMulti8AVX2(&row[0], &qs[0], dim, dim, &acc[0], &got[0])
		for j := range 8 {
			if want := Dot(qs[j*dim:(j+1)*dim], row); got[j] != want {
				t.Fatalf("dim %d, query %d of 8: %v, Dot %v", dim, j, got[j], want)
			}
		}
		dotMulti4AVX2(&row[0], &qs[0], dim, dim, &acc[0], &got[0])
		for j := range 4 {
			if want := Dot(qs[j*dim:(j+1)*dim], row); got[j] != want {
				t.Fatalf("dim %d, query %d of 4: %v, Dot %v", dim, j, got[j], want)
			}
		}
	}
}

func TestSearchManyRejects(t *testing.T) {
	f := randomFlat(rand.New(rand.NewPCG(1, 1)), 10, 8)
	q := make([]float32, 8)
	tests := []struct {
		name  string
		qs    [][]float32
		masks []Mask
		want  error
	}{
		{name: "wrong dim", qs: [][]float32{q, make([]float32, 7)}},
		{name: "two masks for three queries", qs: [][]float32{q, q, q}, masks: []Mask{nil, nil}, want: ErrMasks},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.SearchMany(tt.qs, 3, tt.masks)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
