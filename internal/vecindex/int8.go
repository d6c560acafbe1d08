package vecindex

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Int8 is a shard's vectors quantized to int8 with one scale per vector (symmetric: row i ≈
// Scales[i]·Codes[i], Scales[i] = max|row i|/127), kept next to the float32 rows it re-scores
// with. QuantizeInt8 builds it from a Flat; shards store it next to their float32 file
// (Int8.WriteTo, ReadInt8).
type Int8 struct {
	Flat   *Flat
	Codes  []int8    // Count rows of Dim codes
	Scales []float32 // one per row
}

// DefaultRerank is the re-scoring factor of Int8.Search: k·DefaultRerank candidates by the
// int8 score are re-scored in float32. 2 is the smallest with recall@10 and @500 of 1.000
// against the exact float scan for 400 realtimeqa questions and 200 Telegram queries
// embedded by E5 over their indexes (1 gives 0.965–0.985; docs/kernels.md).
const DefaultRerank = 2

// QuantizeInt8 quantizes every row of f.
func QuantizeInt8(f *Flat) *Int8 {
	x := &Int8{Flat: f, Codes: make([]int8, f.Count*f.Dim), Scales: make([]float32, f.Count)}
	for i := range f.Count {
		x.Scales[i] = quantize(x.Codes[i*f.Dim:(i+1)*f.Dim], f.Row(i))
	}
	return x
}

// quantize writes v's codes into dst (same length) and returns the scale: the largest |v| maps
// to ±127, each value to its nearest code. A zero vector has scale 0 and zero codes.
func quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		clear(dst)
		return 0
	}
	inv := 127 / m
	for i, x := range v {
		dst[i] = int8(max(-127, min(127, math.Round(float64(x*inv)))))
	}
	return m / 127
}

// DotInt8 is the inner product of a row's codes and a query's codes (equal length, values in
// [-127, 127]): the best kernel the CPU has (Kernel): AVX-512 with VNNI (VPDPBUSD) or without
// (VPMADDUBSW, VPMADDWD), 64 values a step; AVX2 (VPSIGNB, VPABSB, VPMADDUBSW, VPMADDWD: 32
// values a step); or the portable loop. It is exact: no rounding, and no overflow for fewer
// than 133,000 values.
func DotInt8(a, q []int8) int32 {
	q = q[:len(a)]
	if n := len(a) &^ 63; useAVX512 && n > 0 {
		var s int32
		if useVNNI {
			s = dotInt8VNNI(&a[0], &q[0], n)
		} else {
			s = dotInt8AVX512(&a[0], &q[0], n)
		}
		for i := n; i < len(a); i++ {
			s += int32(a[i]) * int32(q[i])
		}
		return s
	}
	if n := len(a) &^ 31; useAVX2 && n > 0 {
		s := dotInt8AVX2(&a[0], &q[0], n)
		for i := n; i < len(a); i++ {
			s += int32(a[i]) * int32(q[i])
		}
		return s
	}
	return dotInt8Generic(a, q)
}

// DotsInt8 writes out[r] = DotInt8(row r of codes, q) for every r < len(out), where codes
// holds rows of dim values: one kernel call for all of them where the CPU has AVX-512 and dim
// is a multiple of 64, or AVX2 and dim is a multiple of 32.
func DotsInt8(codes []int8, dim int, q []int8, out []int32) {
	codes, q = codes[:len(out)*dim], q[:dim]
	if useAVX512 && dim > 0 && dim%64 == 0 && len(out) > 0 {
		if useVNNI {
			dotsInt8VNNI(&codes[0], &q[0], dim, len(out), &out[0])
		} else {
			dotsInt8AVX512(&codes[0], &q[0], dim, len(out), &out[0])
		}
		return
	}
	if useAVX2 && dim > 0 && dim%32 == 0 && len(out) > 0 {
		dotsInt8AVX2(&codes[0], &q[0], dim, len(out), &out[0])
		return
	}
	for r := range out {
		out[r] = DotInt8(codes[r*dim:(r+1)*dim], q)
	}
}

// rescoreAhead is how many candidates ahead of the one being re-scored rescore asks the CPU to
// fetch: the candidates are scattered rows of a shard far larger than the caches, each a miss,
// so without it the re-scoring waits on memory row after row (BenchmarkRescore: 1,000
// candidates of 100,000 × 384 rows, ~420 µs without, ~300 µs with 4 on a Zen 3 EPYC; 8 is no
// better).
const rescoreAhead = 4

// rescore scores the candidates h in float32 against q (h is reordered) and returns the k best,
// best first, ties to the lower row: the k best are selected (selectBest) before only they are
// sorted.
func (f *Flat) rescore(q []float32, h []Hit, k int) []Hit {
	for j := range h {
		if j+rescoreAhead < len(h) && f.Dim > 0 {
			r := f.Row(h[j+rescoreAhead].Row)
			prefetch(&r[0], len(r))
		}
		h[j].Score = Dot(q, f.Row(h[j].Row))
	}
	selectBest(h, k)
	h = h[:min(k, len(h))]
	slices.SortFunc(h, compareHits)
	return slices.Clone(h)
}

// dotInt8Generic is the portable int8 inner product.
func dotInt8Generic(a, q []int8) int32 {
	q = q[:len(a)]
	var s0, s1 int32
	i := 0
	for ; i+2 <= len(a); i += 2 {
		s0 += int32(a[i]) * int32(q[i])
		s1 += int32(a[i+1]) * int32(q[i+1])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(q[i])
	}
	return s0 + s1
}

// Search returns up to k allowed rows with the highest inner product with q, best first (ties:
// lower row), as Flat.Search does, scanning the int8 codes: the k·rerank rows with the best
// int8 scores are re-scored in float32, and their float scores rank them. A row's int8 score is
// Scales[i]·(codes·query codes), so the result is exact unless a true top-k row falls outside
// the k·rerank candidates (rerank ≤ 0 means DefaultRerank). Masked rows are never scored. When
// the mask allows at most k·rerank rows, it is Flat.Search: every row would be re-scored.
func (x *Int8) Search(q []float32, k int, mask Mask, rerank int) ([]Hit, error) {
	f := x.Flat
	if len(q) != f.Dim {
		return nil, fmt.Errorf("vecindex: query has %d values, shard dim is %d", len(q), f.Dim)
	}
	if k <= 0 {
		return nil, nil
	}
	if rerank <= 0 {
		rerank = DefaultRerank
	}
	m := k * rerank
	if m >= allowedRows(mask, f.Count) {
		// Every allowed row would be re-scored: the float32 scan gives the same, sooner.
		return f.Search(q, k, mask)
	}
	codes := make([]int8, f.Dim)
	quantize(codes, q)
	t := newTopK(m, f.Count)
	var dots [64]int32
	var scores [64]float32
	for b0 := 0; b0 < f.Count; b0 += 64 { // blocks of 64 rows: one mask word, one kernel call
		w := blockWord(mask, b0, f.Count)
		if w == 0 { // an as-of window masks long runs
			continue
		}
		x.scoreBlock(b0, codes, &dots, &scores)
		t.offerBlock(b0, w, &scores)
	}
	return f.rescore(q, t.kept(), k), nil
}

// scoreBlock writes scores[j] = Scales[b0+j]·(codes of row b0+j · q's codes) for the rows of
// the block of 64 starting at b0 (all of them, one DotsInt8 call; the caller offers only the
// allowed ones).
func (x *Int8) scoreBlock(b0 int, codes []int8, dots *[64]int32, scores *[64]float32) {
	dim := x.Flat.Dim
	n := min(64, x.Flat.Count-b0)
	DotsInt8(x.Codes[b0*dim:(b0+n)*dim], dim, codes, dots[:n])
	j := 0
	if useAVX2 && n >= 8 {
		j = n &^ 7
		scaleAVX2(&dots[0], &x.Scales[b0], j, &scores[0])
	}
	for ; j < n; j++ {
		scores[j] = x.Scales[b0+j] * float32(dots[j])
	}
}

// allowedRows is Mask.Count by words: the rows m allows of n (n for a nil mask; a mask from
// NewMask(n) has no bit set past row n).
func allowedRows(m Mask, n int) int {
	if m == nil {
		return n
	}
	c := 0
	for _, w := range m {
		c += bits.OnesCount64(w)
	}
	return c
}
