package vecindex

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestInt8SearchManyMatchesSearch: for every query, Int8.SearchMany returns what Int8.Search
// returns (rows, order, scores), with no mask, a shared mask or one per query, k past the
// allowed rows, empty masks and queries whose candidates cover their allowed rows (the float
// scan); at every kernel level the CPU offers.
func TestInt8SearchManyMatchesSearch(t *testing.T) {
	forEachLevel(t, int8SearchManyMatchesSearch)
}

func int8SearchManyMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 16))
	tests := []struct {
		name    string
		rows    int
		dim     int
		queries int
		k       int
		rerank  int
		masks   string // none, shared, each, empty
		// sparse, when set, makes query 1's mask allow only its first rows: k·rerank covers
		// them, and Search scans that query in float32.
		sparse int
	}{
		{name: "no mask", rows: 700, dim: 384, queries: 5, k: 10, masks: "none"},
		{name: "shared mask", rows: 700, dim: 384, queries: 9, k: 20, rerank: 2, masks: "shared"},
		{name: "a mask per query", rows: 1000, dim: 64, queries: 11, k: 30, masks: "each"},
		{name: "k past the allowed rows", rows: 150, dim: 384, queries: 3, k: 400, masks: "each"},
		{name: "some queries float, some int8", rows: 2000, dim: 64, queries: 9, k: 40, rerank: 4, masks: "each", sparse: 100},
		{name: "empty masks", rows: 200, dim: 384, queries: 4, k: 10, masks: "empty"},
		{name: "dim off the 32 step", rows: 300, dim: 40, queries: 3, k: 10, masks: "each"},
		{name: "k zero", rows: 50, dim: 384, queries: 2, k: 0, masks: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := QuantizeInt8(randomFlat(rng, tt.rows, tt.dim))
			qs := make([][]float32, tt.queries)
			for i := range qs {
				qs[i] = randomFlat(rng, 1, tt.dim).Data
			}
			mask := func(keep float64) Mask {
				m := NewMask(tt.rows)
				for i := range tt.rows {
					if rng.Float64() < keep {
						m.Allow(i)
					}
				}
				return m
			}
			var masks []Mask
			switch tt.masks {
			case "shared":
				masks = []Mask{mask(0.5)}
			case "each":
				for range qs {
					masks = append(masks, mask(rng.Float64()))
				}
				masks[0] = nil
			case "empty":
				for range qs {
					masks = append(masks, NewMask(tt.rows))
				}
			}
			if tt.sparse > 0 {
				masks[1] = NewMask(tt.rows)
				for i := range tt.sparse {
					masks[1].Allow(i)
				}
			}
			got, err := x.SearchMany(qs, tt.k, masks, tt.rerank)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range qs {
				var m Mask
				if len(masks) == 1 {
					m = masks[0]
				} else if len(masks) > 0 {
					m = masks[i]
				}
				want, err := x.Search(q, tt.k, m, tt.rerank)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Fatalf("query %d: Int8.SearchMany differs from Int8.Search\n got %v\nwant %v", i, head(got[i]), head(want))
				}
			}
		})
	}
}
