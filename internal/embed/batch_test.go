package embed

import (
	"reflect"
	"slices"
	"testing"

	"github.com/knights-analytics/hugot/backends"
)

func TestPlanBatches(t *testing.T) {
	for _, tc := range []struct {
		name              string
		lengths           []int
		maxTexts, maxToks int
		want              [][]int
	}{
		{"empty", nil, 4, 100, nil},
		{"longest first, ties in input order", []int{3, 9, 3, 9}, 8, 1000, [][]int{{1, 3, 0, 2}}},
		{"count bound", []int{5, 5, 5, 5, 5}, 2, 1000, [][]int{{0, 1}, {2, 3}, {4}}},
		{"token bound: 3 × 30 > 64, 2 × 30 fits", []int{30, 30, 30, 10, 10, 10, 10}, 8, 64, [][]int{{0, 1}, {2, 3}, {4, 5, 6}}},
		{"a text past the budget still goes, alone", []int{10, 500, 10}, 8, 100, [][]int{{1}, {0, 2}}},
		{"zero-length texts count as one token", []int{0, 0, 0}, 2, 100, [][]int{{0, 1}, {2}}},
		{"no token budget", []int{7, 8}, 0, 0, [][]int{{1, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanBatches(tc.lengths, tc.maxTexts, tc.maxToks)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("PlanBatches(%v, %d, %d) = %v, want %v", tc.lengths, tc.maxTexts, tc.maxToks, got, tc.want)
			}
		})
	}
}

// TestPlanBatchesProperties: every index exactly once, every call within both bounds (or a
// single text), and sorting pays: never more padding than fixed-size batches in input order.
func TestPlanBatchesProperties(t *testing.T) {
	seed := uint32(7)
	next := func() int { seed = seed*1664525 + 1013904223; return int(seed >> 16) }
	for trial := 0; trial < 200; trial++ {
		n := next() % 90
		lengths := make([]int, n)
		for i := range lengths {
			lengths[i] = 1 + next()%512
		}
		maxTexts, maxToks := 1+next()%40, 64+next()%8192
		plan := PlanBatches(lengths, maxTexts, maxToks)
		var seen []int
		for _, call := range plan {
			longest := 0
			for _, i := range call {
				longest = max(longest, lengths[i])
			}
			if len(call) == 0 || len(call) > maxTexts || (len(call) > 1 && len(call)*longest > maxToks) {
				t.Fatalf("trial %d: call %v breaks the bounds (%d texts, %d tokens)", trial, call, maxTexts, maxToks)
			}
			seen = append(seen, call...)
		}
		slices.Sort(seen)
		for i, v := range seen {
			if v != i {
				t.Fatalf("trial %d: indices %v, want 0..%d once each", trial, seen, n-1)
			}
		}
		var fixed [][]int
		for s := 0; s < n; s += maxTexts {
			var call []int
			for i := s; i < min(s+maxTexts, n); i++ {
				call = append(call, i)
			}
			fixed = append(fixed, call)
		}
		if n > 0 && PaddedTokens(lengths, plan) > PaddedTokens(lengths, fixed) {
			t.Fatalf("trial %d: sorted plan pads %d tokens, unsorted %d", trial, PaddedTokens(lengths, plan), PaddedTokens(lengths, fixed))
		}
	}
}

func TestTruncate(t *testing.T) {
	in := backends.TokenizedInput{
		Tokens:            []string{"[CLS]", "a", "b", "c", "d", "[SEP]"},
		TokenIDs:          []uint32{101, 1, 2, 3, 4, 102},
		TypeIDs:           []uint32{0, 0, 0, 0, 0, 0},
		AttentionMask:     []uint32{1, 1, 1, 1, 1, 1},
		SpecialTokensMask: []uint32{1, 0, 0, 0, 0, 1},
		Offsets:           [][2]uint{{0, 0}, {0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 0}},
		MaxAttentionIndex: 5,
	}
	got := truncate(in, 4)
	want := backends.TokenizedInput{
		Tokens:            []string{"[CLS]", "a", "b", "[SEP]"},
		TokenIDs:          []uint32{101, 1, 2, 102},
		TypeIDs:           []uint32{0, 0, 0, 0},
		AttentionMask:     []uint32{1, 1, 1, 1},
		SpecialTokensMask: []uint32{1, 0, 0, 1},
		Offsets:           [][2]uint{{0, 0}, {0, 1}, {2, 3}, {0, 0}},
		MaxAttentionIndex: 3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("truncate = %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(truncate(in, 6), in) || !reflect.DeepEqual(truncate(in, 0), in) {
		t.Fatal("a text within the limit (or no limit) changed")
	}
	if in.TokenIDs[3] != 3 {
		t.Fatal("truncate wrote into its input's arrays")
	}
}

func TestPool(t *testing.T) {
	tokens := [][]float32{{1, 0}, {3, 4}, {5, 8}}
	for _, tc := range []struct {
		name string
		mask []uint32
		how  string
		want []float32
	}{
		{"mean", []uint32{1, 1, 1}, PoolingMean, []float32{3, 4}},
		{"mean skips masked tokens", []uint32{1, 1, 0}, PoolingMean, []float32{2, 2}},
		{"cls", []uint32{1, 1, 1}, PoolingCLS, []float32{1, 0}},
		{"all masked", []uint32{0, 0, 0}, PoolingMean, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pool(tokens, tc.mask, tc.how); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("pool = %v, want %v", got, tc.want)
			}
		})
	}
	v := []float32{3, 4}
	if why := normalize(v); why != "" || v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("normalize = %v, %q", v, why)
	}
}
