package vecindex

import (
	"errors"
	"fmt"
)

// MaxBlock is how many queries SearchMany scores per pass over the rows.
const MaxBlock = 8

// ErrMasks is returned (wrapped) when SearchMany gets neither no mask, one shared mask nor one
// mask per query.
var ErrMasks = errors.New("vecindex: masks must be none, one, or one per query")

// SearchMany is Search for many queries at once, with the same results: for each query i,
// SearchMany's hits are Search(qs[i], k, mask i)'s, the same rows in the same order with the
// same scores, bit for bit. masks is nil (every row allowed), one mask shared by every query,
// or one mask per query (the queries of an evaluation batch have different as-of anchors).
//
// It reads the rows once per block of up to MaxBlock queries instead of once per query: each
// row is loaded once and scored against the whole block (an AVX2+FMA kernel that keeps the
// block's accumulators in registers, dotmulti_amd64.s; elsewhere the row, then in cache, is
// scored by Dot for each query). A block of one query is Search. The kernel reproduces the
// AVX2 Dot's accumulation order exactly; where Dot uses another kernel (AVX-512, whose order
// differs), SearchMany scores each row with Dot per query instead, from cache, and stays
// identical.
func (f *Flat) SearchMany(qs [][]float32, k int, masks []Mask) ([][]Hit, error) {
	if err := checkMany(qs, f.Dim, masks); err != nil {
		return nil, err
	}
	out := make([][]Hit, len(qs))
	if k <= 0 {
		return out, nil
	}
	maskOf := func(i int) Mask { return maskFor(masks, i) }
	var s searcher
	for lo := 0; lo < len(qs); lo += MaxBlock {
		hi := min(lo+MaxBlock, len(qs))
		if hi-lo == 1 {
			h, err := f.Search(qs[lo], k, maskOf(lo))
			if err != nil {
				return nil, err
			}
			out[lo] = h
			continue
		}
		bm := make([]Mask, hi-lo)
		for j := range bm {
			bm[j] = maskOf(lo + j)
		}
		copy(out[lo:hi], s.block(f, qs[lo:hi], k, bm))
	}
	return out, nil
}

// searcher holds one block's scratch: the packed queries and the kernel's accumulators.
type searcher struct {
	packed []float32
	acc    [MaxBlock * 32]float32
	scores [MaxBlock]float32
}

// block searches f for the queries of one block (2 to MaxBlock), masks[j] for query j.
func (s *searcher) block(f *Flat, qs [][]float32, k int, masks []Mask) [][]Hit {
	b := len(qs)
	n := f.Dim &^ 31
	kernel := 0 // 0: Dot per query; 4 or 8: that kernel, the block padded with zero queries
	if multiKernel(f.Dim) {
		kernel = 8
		if b <= 4 {
			kernel = 4
		}
		s.packed = s.packed[:0]
		for j := range kernel {
			if j < b {
				s.packed = append(s.packed, qs[j]...)
			} else {
				s.packed = append(s.packed, make([]float32, f.Dim)...)
			}
		}
	}
	ts := make([]topK, b)
	for j := range ts {
		ts[j] = newTopK(k, f.Count)
	}
	for i := 0; i < f.Count; i++ {
		allowed := uint(1)<<b - 1 // bit j: row i is allowed for query j
		var any uint64
		for j, m := range masks {
			if m == nil {
				any = ^uint64(0)
				continue
			}
			w := m[i>>6]
			any |= w
			if w&(1<<(i&63)) == 0 {
				allowed &^= 1 << j
			}
		}
		if any == 0 { // 64 rows masked for every query of the block
			i |= 63
			continue
		}
		if allowed == 0 {
			continue
		}
		row := f.Data[i*f.Dim : (i+1)*f.Dim]
		switch kernel {
		case 4:
			dotMulti4AVX2(&row[0], &s.packed[0], f.Dim, n, &s.acc[0], &s.scores[0])
		case 8:
			dotMulti8AVX2(&row[0], &s.packed[0], f.Dim, n, &s.acc[0], &s.scores[0])
		}
		for j, q := range qs {
			if allowed&(1<<j) == 0 {
				continue
			}
			var sc float32
			if kernel == 0 {
				sc = Dot(q, row)
			} else {
				sc = s.scores[j]
				for x := n; x < len(q); x++ { // Dot's own tail
					sc += q[x] * row[x]
				}
			}
			ts[j].offer(i, sc)
		}
	}
	out := make([][]Hit, b)
	for j := range ts {
		out[j] = ts[j].sorted()
	}
	return out
}

// multiKernel reports whether the multi-query kernels score rows of dim values exactly as Dot
// does: when Dot runs dotAVX2 on them (AVX2 in use, not AVX-512, at least 32 values).
func multiKernel(dim int) bool {
	return useAVX2 && !useAVX512 && dim >= 32
}

// checkMany refuses queries of another dimension than the shard's, and a mask list that is
// neither empty, one shared mask, nor one mask per query.
func checkMany(qs [][]float32, dim int, masks []Mask) error {
	for i, q := range qs {
		if len(q) != dim {
			return fmt.Errorf("vecindex: query %d has %d values, shard dim is %d", i, len(q), dim)
		}
	}
	if len(masks) > 1 && len(masks) != len(qs) {
		return fmt.Errorf("%w: %d masks for %d queries", ErrMasks, len(masks), len(qs))
	}
	return nil
}

// maskFor is query i's mask in a SearchMany mask list: none, one shared, or one per query.
func maskFor(masks []Mask, i int) Mask {
	switch len(masks) {
	case 0:
		return nil
	case 1:
		return masks[0]
	}
	return masks[i]
}
