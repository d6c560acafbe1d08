package eval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestPairedDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	varied := make([]float64, 200)
	for i := range varied {
		varied[i] = r.Float64()
	}
	shifted := make([]float64, len(varied))
	for i, v := range varied {
		shifted[i] = v + 0.25
	}
	tests := []struct {
		name         string
		a, b         []float64
		iters        int
		mean, lo, hi float64
		tol          float64
	}{
		{"no queries", nil, nil, 100, 0, 0, 0, 0},
		{"identical inputs: zero-width interval at 0", varied, varied, 1000, 0, 0, 0, 0},
		{"constant shift: zero-width interval at the shift", varied, shifted, 1000, 0.25, 0.25, 0.25, 1e-12},
		// d = (0, 1): a resample mean is 0, 0.5 or 1 with odds 1/4, 1/2, 1/4, so the 2.5th
		// and 97.5th percentiles of 10,000 of them are 0 and 1.
		{"two queries", []float64{0, 0}, []float64{0, 1}, 10000, 0.5, 0, 1, 0},
		// d = (0, 0, 1): a resample mean is k/3 with k ~ Binomial(3, 1/3), P(k ≤ 2) = 26/27 ≈
		// 0.963 < 0.975, so the 97.5th percentile is 1 (the 95th would be 2/3).
		{"three queries", []float64{0, 0, 0}, []float64{0, 0, 1}, 10000, 1.0 / 3, 0, 1, 1e-15},
		{"b worse than a", []float64{1, 1}, []float64{1, 0}, 10000, -0.5, -1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := slices.Clone(tt.a), slices.Clone(tt.b)
			mean, lo, hi := PairedDelta(tt.a, tt.b, tt.iters, 42)
			if math.Abs(mean-tt.mean) > tt.tol || math.Abs(lo-tt.lo) > tt.tol || math.Abs(hi-tt.hi) > tt.tol {
				t.Errorf("PairedDelta = %v [%v, %v], want %v [%v, %v]", mean, lo, hi, tt.mean, tt.lo, tt.hi)
			}
			if !reflect.DeepEqual(a, tt.a) || !reflect.DeepEqual(b, tt.b) {
				t.Error("PairedDelta modified its input")
			}
		})
	}
}

func TestPairedDeltaSeed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := make([]float64, 300), make([]float64, 300)
	for i := range a {
		a[i], b[i] = r.Float64(), r.Float64()*1.2
	}
	m1, lo1, hi1 := PairedDelta(a, b, 2000, 1)
	m2, lo2, hi2 := PairedDelta(a, b, 2000, 1)
	if m1 != m2 || lo1 != lo2 || hi1 != hi2 {
		t.Errorf("same seed: %v [%v, %v] then %v [%v, %v]", m1, lo1, hi1, m2, lo2, hi2)
	}
	if !(lo1 < m1 && m1 < hi1) {
		t.Errorf("interval [%v, %v] does not straddle the mean %v", lo1, hi1, m1)
	}
	if _, lo3, hi3 := PairedDelta(a, b, 2000, 2); lo3 == lo1 && hi3 == hi1 {
		t.Errorf("seeds 1 and 2 gave the same interval [%v, %v]", lo1, hi1)
	}
	mD, loD, hiD := PairedDelta(a, b, 0, 9)
	mE, loE, hiE := PairedDelta(a, b, DefaultBootstrapIters, 9)
	if mD != mE || loD != loE || hiD != hiE {
		t.Errorf("iters 0 gave %v [%v, %v], DefaultBootstrapIters %v [%v, %v]", mD, loD, hiD, mE, loE, hiE)
	}
	// The standard error of a mean of 300 differences of spread ~0.45 is ~0.026: the 95%
	// interval is about 0.10 wide, nowhere near 0.04 nor 0.2.
	if w := hi1 - lo1; w < 0.04 || w > 0.2 {
		t.Errorf("interval width %v, want about 0.10", w)
	}
}

func TestPairedDeltaUnpaired(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("PairedDelta of 2 and 3 values did not panic")
		}
	}()
	PairedDelta([]float64{1, 2}, []float64{1, 2, 3}, 10, 1)
}

func BenchmarkPairedDelta(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := make([]float64, 800), make([]float64, 800)
	for i := range x {
		x[i], y[i] = r.Float64(), r.Float64()
	}
	for b.Loop() {
		PairedDelta(x, y, 1000, 1)
	}
}
