package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// DefaultBootstrapIters is the number of resamples PairedDelta draws when given iters < 1.
const DefaultBootstrapIters = 10000

// pcgStream is the second PCG seed word; the caller's seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

// PairedDelta compares two systems scored on the same queries: a[i] and b[i] must be the
// same query's metric under systems A and B. It returns the mean of the paired differences
// b[i] − a[i] and a 95% paired-bootstrap confidence interval of that mean: iters times, n
// differences are drawn with replacement and averaged, and lo95 and hi95 are the nearest-rank
// 2.5th and 97.5th percentiles of those means (see Percentile). The draws come from a
// math/rand/v2 PCG seeded with seed, so the same inputs and seed give the same interval.
// iters < 1 means DefaultBootstrapIters. No queries give 0, 0, 0. The inputs must be finite
// and are not modified; PairedDelta panics when their lengths differ, since the values
// would then not be paired.
func PairedDelta(a, b []float64, iters int, seed uint64) (mean, lo95, hi95 float64) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("eval: PairedDelta of %d and %d values: not paired", len(a), len(b)))
	}
	n := len(a)
	if n == 0 {
		return 0, 0, 0
	}
	if iters < 1 {
		iters = DefaultBootstrapIters
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = b[i] - a[i]
		mean += d[i]
	}
	mean /= float64(n)

	r := rand.New(rand.NewPCG(seed, pcgStream))
	means := make([]float64, iters)
	for it := range means {
		var sum float64
		for range n {
			sum += d[r.IntN(n)]
		}
		means[it] = sum / float64(n)
	}
	slices.Sort(means)
	return mean, nearestRank(means, 2.5), nearestRank(means, 97.5)
}
