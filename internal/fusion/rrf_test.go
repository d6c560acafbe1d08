package fusion_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/fusion"
)

func w(v float64) *float64 { return &v }

func TestRRF(t *testing.T) {
	k30 := fusion.Options{K: 30}
	tests := []struct {
		name string
		n    int
		in   fusion.Input
		o    fusion.Options
		want []float64
	}{
		{name: "one list: reciprocal ranks", n: 3, o: fusion.DefaultOptions(),
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2, 3}}}},
			want: []float64{1.0 / 61, 1.0 / 62, 1.0 / 63}},
		{name: "weights multiply each list", n: 2, o: k30,
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2}}, {Weight: 0.75, Ranks: []int{2, 1}}}},
			want: []float64{1.0/31 + 0.75/32, 1.0/32 + 0.75/31}},
		{name: "an item a list did not rank gets nothing from it", n: 2, o: k30,
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 0}}, {Weight: 0.75, Ranks: []int{0, 5}}}},
			want: []float64{1.0 / 31, 0.75 / 35}},
		{name: "a branch that returned nothing adds nothing", n: 2, o: k30,
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1}, {Weight: 0.75, Ranks: []int{1, 2}}}},
			want: []float64{0.75 / 31, 0.75 / 32}},
		{name: "ties: a shared rank scores alike", n: 3, o: k30,
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 1, 3}}}},
			want: []float64{1.0 / 31, 1.0 / 31, 1.0 / 33}},
		{name: "ties across lists: mirrored ranks of equal weights score alike", n: 2, o: fusion.DefaultOptions(),
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 4}}, {Weight: 1, Ranks: []int{4, 1}}}},
			want: []float64{1.0/61 + 1.0/64, 1.0/64 + 1.0/61}},
		{name: "the time rank is one more list", n: 2, o: k30,
			in: fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2}}, {Weight: 0.75, Ranks: []int{2, 0}}},
				Time: fusion.List{Weight: 1, Ranks: []int{2, 1}}},
			want: []float64{1.0/31 + 0.75/32 + 1.0/32, 1.0/32 + 1.0/31}},
		{name: "time weight 0 leaves the relevance order", n: 2, o: k30,
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2}}}, Time: fusion.List{Ranks: []int{2, 1}}},
			want: []float64{1.0 / 31, 1.0 / 32}},
		{name: "base scores: one more list added to a ranking's own", n: 3, o: fusion.DefaultOptions(),
			in:   fusion.Input{Base: []float64{0.03, 0.02, 0.01}, Lists: []fusion.List{{Weight: 2, Ranks: []int{3, 1, 2}}}},
			want: []float64{0.03 + 2.0/63, 0.02 + 2.0/61, 0.01 + 2.0/62}},
		{name: "rank constant 0", n: 2, o: fusion.Options{},
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2}}}},
			want: []float64{1, 0.5}},
		{name: "fixed source weight", n: 3, o: fusion.Options{K: 30, Source: 0.01},
			in:   fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, 2, 3}}}, Sources: []*float64{w(1), w(0.5), nil}},
			want: []float64{1.0/31 + 0.01, 1.0/32 + 0.005, 1.0 / 33}},
		{name: "no items", n: 0, o: fusion.DefaultOptions(), in: fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{}}}},
			want: []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fusion.RRF(tc.n, tc.in, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d scores, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-15 {
					t.Fatalf("scores %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestRRFSumOrder: the terms are added as retrieval always added them, dense, BM25, time, so a
// fused score is the same float to the last bit (rankings that tie stay tied).
func TestRRFSumOrder(t *testing.T) {
	tests := []struct {
		name       string
		rd, rb, rt int
	}{
		{name: "every branch", rd: 3, rb: 7, rt: 2},
		{name: "no dense rank", rb: 1, rt: 40},
		{name: "no BM25 rank", rd: 12, rt: 1},
	}
	rrf := func(k float64, r int) float64 {
		if r == 0 {
			return 0
		}
		return 1 / (k + float64(r))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, wd, wb, wt := 30.0, 1.3, 0.75, 0.6
			got, err := fusion.RRF(1, fusion.Input{Lists: []fusion.List{{Weight: wd, Ranks: []int{tc.rd}}, {Weight: wb, Ranks: []int{tc.rb}}},
				Time: fusion.List{Weight: wt, Ranks: []int{tc.rt}}}, fusion.Options{K: k})
			if err != nil {
				t.Fatal(err)
			}
			if want := wd*rrf(k, tc.rd) + wb*rrf(k, tc.rb) + wt*rrf(k, tc.rt); got[0] != want {
				t.Fatalf("score %v, want exactly %v", got[0], want)
			}
		})
	}
}

func TestRRFRefuses(t *testing.T) {
	one := []fusion.List{{Weight: 1, Ranks: []int{1, 2}}}
	tests := []struct {
		name string
		n    int
		in   fusion.Input
		o    fusion.Options
		want string
	}{
		{name: "a list of another length", n: 3, in: fusion.Input{Lists: one}, o: fusion.DefaultOptions(), want: "list 0 has 2 ranks for 3 items"},
		{name: "a time rank of another length", n: 2, in: fusion.Input{Lists: one, Time: fusion.List{Weight: 1, Ranks: []int{1}}}, o: fusion.DefaultOptions(), want: "the time rank has 1 ranks"},
		{name: "a negative rank", n: 2, in: fusion.Input{Lists: []fusion.List{{Weight: 1, Ranks: []int{1, -2}}}}, o: fusion.DefaultOptions(), want: "ranks item 1 at -2"},
		{name: "a NaN weight", n: 2, in: fusion.Input{Lists: []fusion.List{{Weight: math.NaN(), Ranks: []int{1, 2}}}}, o: fusion.DefaultOptions(), want: "weight NaN"},
		{name: "an infinite time weight", n: 2, in: fusion.Input{Lists: one, Time: fusion.List{Weight: math.Inf(1), Ranks: []int{1, 2}}}, o: fusion.DefaultOptions(), want: "weight +Inf"},
		{name: "a negative rank constant", n: 2, in: fusion.Input{Lists: one}, o: fusion.Options{K: -1}, want: "rank constant -1"},
		{name: "a NaN rank constant", n: 2, in: fusion.Input{Lists: one}, o: fusion.Options{K: math.NaN()}, want: "rank constant NaN"},
		{name: "base scores of another length", n: 2, in: fusion.Input{Base: []float64{1}, Lists: one}, o: fusion.DefaultOptions(), want: "1 base scores for 2 items"},
		{name: "a NaN base score", n: 2, in: fusion.Input{Base: []float64{1, math.NaN()}, Lists: one}, o: fusion.DefaultOptions(), want: "base score 1 is NaN"},
		{name: "source weights of another length", n: 2, in: fusion.Input{Lists: one, Sources: []*float64{w(1)}}, o: fusion.DefaultOptions(), want: "1 source weights for 2 items"},
		{name: "a NaN source weight", n: 2, in: fusion.Input{Lists: one, Sources: []*float64{w(1), nil}}, o: fusion.Options{K: 60, Source: math.NaN()}, want: "source weight NaN"},
		{name: "negative items", n: -1, o: fusion.DefaultOptions(), want: "-1 items"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fusion.RRF(tc.n, tc.in, tc.o)
			if !errors.Is(err, fusion.ErrInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrInput saying %q", err, tc.want)
			}
		})
	}
}

func TestAddSource(t *testing.T) {
	tests := []struct {
		name    string
		scores  []float64
		sources []*float64
		w       float64
		want    []float64
	}{
		{name: "auto: 10% of the score spread per unit of weight spread", scores: []float64{1.0, 0.5, 0.2},
			sources: []*float64{w(0), w(1), nil}, w: -1, want: []float64{1.0, 0.58, 0.2}},
		{name: "equal source weights change nothing", scores: []float64{1, 0}, sources: []*float64{w(0.3), w(0.3)}, w: -1,
			want: []float64{1, 0}},
		{name: "no item with a source weight changes nothing", scores: []float64{1, 0}, sources: []*float64{nil, nil}, w: 5,
			want: []float64{1, 0}},
		{name: "fixed weight", scores: []float64{0.1, 0.1}, sources: []*float64{w(2), w(1)}, w: 0.01,
			want: []float64{0.12, 0.11}},
		{name: "weight 0 changes nothing", scores: []float64{0.1, 0.2}, sources: []*float64{w(2), w(1)},
			want: []float64{0.1, 0.2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.scores)
			if err := fusion.AddSource(got, tc.sources, tc.w); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("scores %v, want %v", got, tc.want)
				}
			}
		})
	}
	if err := fusion.AddSource([]float64{1}, nil, 1); !errors.Is(err, fusion.ErrInput) {
		t.Fatalf("missing source weights: err %v, want ErrInput", err)
	}
}

func TestRanks(t *testing.T) {
	tests := []struct {
		name   string
		values []int64
		ties   fusion.Ties
		want   []int
	}{
		{name: "highest first", values: []int64{10, 30, 20}, want: []int{3, 1, 2}},
		{name: "competition: a tie pushes the next value down", values: []int64{20, 30, 30, 10}, want: []int{3, 1, 1, 4}},
		{name: "dense: the next value after a tie is the next rank", values: []int64{20, 30, 30, 10}, ties: fusion.TiesDense, want: []int{2, 1, 1, 3}},
		{name: "dense: many equal values do not push the next one down", values: []int64{3, 3, 3, 2}, ties: fusion.TiesDense, want: []int{1, 1, 1, 2}},
		{name: "all equal", values: []int64{5, 5}, want: []int{1, 1}},
		{name: "empty", values: []int64{}, want: []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fusion.Ranks(tc.values, tc.ties); !slices.Equal(got, tc.want) {
				t.Fatalf("ranks %v, want %v", got, tc.want)
			}
		})
	}
	if got := fusion.Ranks([]float64{0.5, math.NaN(), 0.9, 0.5}, fusion.TiesCompetition); !slices.Equal(got, []int{2, 4, 1, 2}) {
		t.Fatalf("float ranks %v, want [2 4 1 2] (NaN last)", got)
	}
}

// ExampleRRF fuses a dense and a BM25 list with the time rank, as retrieval's recency mode
// does with its default weights.
func ExampleRRF() {
	// Three candidates: "a" is the dense branch's best, "b" BM25's, "c" the freshest and
	// found by BM25 alone.
	in := fusion.Input{
		Lists: []fusion.List{
			{Weight: 1, Ranks: []int{1, 2, 0}},    // dense
			{Weight: 0.75, Ranks: []int{3, 1, 2}}, // BM25
		},
		Time: fusion.List{Weight: 1, Ranks: fusion.Ranks([]int64{19700, 19710, 19725}, fusion.TiesDense)},
	}
	scores, err := fusion.RRF(3, in, fusion.Options{K: 30})
	if err != nil {
		panic(err)
	}
	for i, id := range []string{"a", "b", "c"} {
		fmt.Printf("%s %.4f\n", id, scores[i])
	}
	// Output:
	// a 0.0853
	// b 0.0867
	// c 0.0557
}
