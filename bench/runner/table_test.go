package main

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestPairedRow(t *testing.T) {
	m := func(vs ...float64) []measure {
		ms := make([]measure, len(vs))
		for i, v := range vs {
			ms[i].v = v
			if math.IsNaN(v) {
				ms[i] = measure{why: "failed: round " + string(rune('1'+i))}
			}
		}
		return ms
	}
	nan := math.NaN()
	tests := []struct {
		name        string
		asof, peer  []measure
		wantAsof    float64 // NaN: missing
		wantPeer    float64
		wantRatio   float64 // NaN: none
		wantRounds  []float64
		wantAsofWhy string
	}{
		{"one round is the plain ratio", m(100), m(50), 100, 50, 2, []float64{2}, ""},
		// The ratio is the median of the rounds' ratios (2.0, 0.5, 1.25 → 1.25), not the
		// ratio of the medians (100 / 80 = 1.25 here by chance, so the next case tells them apart).
		{"median of per-round ratios", m(100, 50, 100), m(50, 100, 80), 100, 80, 1.25, []float64{2, 0.5, 1.25}, ""},
		{"load swings between rounds cancel", m(100, 50, 60), m(100, 50, 20), 60, 50, 1, []float64{1, 1, 3}, ""},
		{"even count: mean of the middle two", m(1, 2, 3, 4), m(1, 1, 1, 1), 2.5, 1, 2.5, []float64{1, 2, 3, 4}, ""},
		{"a failed round is left out of the ratio", m(100, nan, 90), m(50, 50, 60), 95, 50, 1.75, []float64{2, 1.5}, ""},
		{"every round failed", m(nan, nan), m(50, 50), nan, 50, nan, nil, "failed: round 1"},
		{"peer zero has no ratio", m(10), m(0), 10, 0, nan, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := pairedRow("w", "queries/s", higher, tt.asof, "peer", tt.peer, "notes")
			check := func(what string, got *float64, want float64) {
				t.Helper()
				switch {
				case math.IsNaN(want) && got != nil:
					t.Errorf("%s = %v, want none", what, *got)
				case !math.IsNaN(want) && (got == nil || math.Abs(*got-want) > 1e-12):
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("asof", r.Asof, tt.wantAsof)
			check("peer", r.PeerValue, tt.wantPeer)
			check("ratio", r.Ratio, tt.wantRatio)
			if !slices.EqualFunc(r.RatioRounds, tt.wantRounds, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
				t.Errorf("rounds = %v, want %v", r.RatioRounds, tt.wantRounds)
			}
			if r.AsofMissing != tt.wantAsofWhy {
				t.Errorf("asof missing = %q, want %q", r.AsofMissing, tt.wantAsofWhy)
			}
			if got := strings.Contains(r.Notes, "ratio by round"); got != (len(tt.wantRounds) > 1) {
				t.Errorf("notes %q: rounds listed = %v, want %v", r.Notes, got, len(tt.wantRounds) > 1)
			}
		})
	}
}
