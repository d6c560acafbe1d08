// Package vecindex stores embedding vectors as flat float32 shards and searches them exactly.
//
// File format (vectors.f32), little-endian:
//
//	offset 0   magic "ASOFVEC1"
//	       8   uint32 format version (1)
//	      12   uint32 dim
//	      16   uint64 count
//	      24   uint16 model id length n, then n bytes of model id
//	       …   zero padding to a multiple of 64 bytes
//	  header   count × dim float32, row i = chunk i of the shard
//
// Search scores every row a Mask allows and keeps the top k by inner product (cosine, for
// L2-normalized vectors). Masked rows are never scored, so a row outside the as-of window can
// never be returned, whatever k is.
package vecindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// Magic opens every vector file.
const Magic = "ASOFVEC1"

// FormatVersion is the current file format.
const FormatVersion = 1

// ErrFormat is returned (wrapped) for a file that is not a valid vector shard.
var ErrFormat = errors.New("vecindex: bad vector file")

// Flat is a shard's vectors in memory.
type Flat struct {
	Dim   int
	Count int
	Model string
	// Data holds Count rows of Dim values.
	Data []float32
}

// New makes an empty shard for vectors of dim values from model.
func New(dim int, model string) *Flat { return &Flat{Dim: dim, Model: model} }

// Encode is vecs (each of dim values) of model in the file format (WriteTo).
func Encode(dim int, model string, vecs [][]float32) (*bytes.Buffer, error) {
	f := New(dim, model)
	for _, v := range vecs {
		if err := f.Add(v); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return nil, err
	}
	return &buf, nil
}

// Append adds part's vectors after f's. A part of another model or dimension is an error
// that names both ("<model>/<dim>, not <model>/<dim>").
func (f *Flat) Append(part *Flat) error {
	if part.Dim != f.Dim || part.Model != f.Model {
		return fmt.Errorf("%s/%d, not %s/%d: parts from two models", part.Model, part.Dim, f.Model, f.Dim)
	}
	f.Data = append(f.Data, part.Data...)
	f.Count += part.Count
	return nil
}

// Len is how many vectors f holds; 0 for a nil f.
func (f *Flat) Len() int {
	if f == nil {
		return 0
	}
	return f.Count
}

// Add appends one vector.
func (f *Flat) Add(v []float32) error {
	if len(v) != f.Dim {
		return fmt.Errorf("vecindex: vector has %d values, shard dim is %d", len(v), f.Dim)
	}
	f.Data = append(f.Data, v...)
	f.Count++
	return nil
}

// Row returns vector i (a view, not a copy).
func (f *Flat) Row(i int) []float32 { return f.Data[i*f.Dim : (i+1)*f.Dim] }

// WriteTo writes the shard in the file format.
func (f *Flat) WriteTo(w io.Writer) (int64, error) {
	if len(f.Model) > math.MaxUint16 {
		return 0, errors.New("vecindex: model id too long")
	}
	hdr := make([]byte, 26+len(f.Model))
	copy(hdr, Magic)
	binary.LittleEndian.PutUint32(hdr[8:], FormatVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(f.Dim))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(f.Count))
	binary.LittleEndian.PutUint16(hdr[24:], uint16(len(f.Model)))
	copy(hdr[26:], f.Model)
	hdr = append(hdr, make([]byte, pad(len(hdr)))...)
	bw := bufio.NewWriterSize(w, 1<<20)
	n, err := bw.Write(hdr)
	total := int64(n)
	if err != nil {
		return total, err
	}
	buf := make([]byte, 4)
	for _, x := range f.Data[:f.Count*f.Dim] {
		binary.LittleEndian.PutUint32(buf, math.Float32bits(x))
		if _, err := bw.Write(buf); err != nil {
			return total, err
		}
		total += 4
	}
	return total, bw.Flush()
}

func pad(n int) int { return (64 - n%64) % 64 }

// fixedHeader checks the first 26 bytes of a vector file and returns its dimension and count.
func fixedHeader(fixed []byte) (dim int, count uint64, err error) {
	if string(fixed[:8]) != Magic {
		return 0, 0, fmt.Errorf("%w: magic %q", ErrFormat, fixed[:8])
	}
	if v := binary.LittleEndian.Uint32(fixed[8:]); v != FormatVersion {
		return 0, 0, fmt.Errorf("%w: format version %d (this build reads %d)", ErrFormat, v, FormatVersion)
	}
	dim = int(binary.LittleEndian.Uint32(fixed[12:]))
	count = binary.LittleEndian.Uint64(fixed[16:])
	if dim <= 0 || dim > 1<<16 || count > 1<<32 {
		return 0, 0, fmt.Errorf("%w: dim %d, count %d", ErrFormat, dim, count)
	}
	return dim, count, nil
}

// ReadCount reads only the header of a vector file from r and returns how many vectors it
// holds: what a progress meter needs of a stored part without reading its vectors.
func ReadCount(r io.Reader) (int, error) {
	fixed := make([]byte, 26)
	if _, err := io.ReadFull(r, fixed); err != nil {
		return 0, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	_, count, err := fixedHeader(fixed)
	return int(count), err
}

// Read loads a shard written by WriteTo, checking the header and the length.
func Read(r io.Reader) (*Flat, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	fixed := make([]byte, 26)
	if _, err := io.ReadFull(br, fixed); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	dim, count, err := fixedHeader(fixed)
	if err != nil {
		return nil, err
	}
	model := make([]byte, binary.LittleEndian.Uint16(fixed[24:]))
	if _, err := io.ReadFull(br, model); err != nil {
		return nil, fmt.Errorf("%w: model id: %w", ErrFormat, err)
	}
	if _, err := br.Discard(pad(26 + len(model))); err != nil {
		return nil, fmt.Errorf("%w: padding: %w", ErrFormat, err)
	}
	f := &Flat{Dim: dim, Count: int(count), Model: string(model), Data: make([]float32, int(count)*dim)}
	buf := make([]byte, 4*dim)
	for i := 0; i < f.Count; i++ {
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("%w: row %d of %d: %w", ErrFormat, i, f.Count, err)
		}
		row := f.Data[i*dim : (i+1)*dim]
		for j := range row {
			row[j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		}
	}
	if n, _ := br.Read(buf[:1]); n != 0 {
		return nil, fmt.Errorf("%w: data after %d rows", ErrFormat, f.Count)
	}
	return f, nil
}

// Mask says which rows may be scored. A nil Mask allows every row.
type Mask []uint64

// NewMask returns a mask of n rows, all disallowed.
func NewMask(n int) Mask { return make(Mask, (n+63)/64) }

// Allow marks row i allowed.
func (m Mask) Allow(i int) { m[i/64] |= 1 << (i % 64) }

// Allowed reports whether row i is allowed.
func (m Mask) Allowed(i int) bool { return m == nil || m[i/64]&(1<<(i%64)) != 0 }

// Count is the number of allowed rows among the first n.
func (m Mask) Count(n int) int {
	if m == nil {
		return n
	}
	c := 0
	for i := 0; i < n; i++ {
		if m.Allowed(i) {
			c++
		}
	}
	return c
}

// Hit is one search result.
type Hit struct {
	Row   int
	Score float32
}

// Search returns up to k allowed rows with the highest inner product with q, best first;
// equal scores rank the lower row first, so results are deterministic.
//
// It scores the rows in blocks of 64 (one mask word): each run of allowed rows in a block is
// scored by one kernel call into a small buffer (dots, the same scores as Dot, bit for bit),
// then the scores are compared with the worst kept hit's, so after the first k rows the heap
// is touched only by a row that beats it.
func (f *Flat) Search(q []float32, k int, mask Mask) ([]Hit, error) {
	if len(q) != f.Dim {
		return nil, fmt.Errorf("vecindex: query has %d values, shard dim is %d", len(q), f.Dim)
	}
	if k <= 0 {
		return nil, nil
	}
	t := newTopK(k, f.Count)
	var scores [64]float32
	for b0 := 0; b0 < f.Count; b0 += 64 {
		w := blockWord(mask, b0, f.Count)
		if w == 0 { // 64 masked rows at once (an as-of window masks long runs)
			continue
		}
		f.scoreRuns(q, b0, w, &scores)
		t.offerBlock(b0, w, &scores)
	}
	return t.sorted(), nil
}

// blockWord is the allowed rows of the block of 64 starting at row b0 (a multiple of 64) of n
// rows: bit j for row b0+j, no bit past row n.
func blockWord(mask Mask, b0, n int) uint64 {
	w := ^uint64(0)
	if n-b0 < 64 {
		w = 1<<(n-b0) - 1
	}
	if mask != nil {
		w &= mask[b0>>6]
	}
	return w
}

// scoreRuns writes scores[j] = Dot(q, row b0+j) for every bit j of w, one dots call per run of
// consecutive allowed rows.
func (f *Flat) scoreRuns(q []float32, b0 int, w uint64, scores *[64]float32) {
	for r := w; r != 0; {
		lo := bits.TrailingZeros64(r)
		run := bits.TrailingZeros64(^(r >> lo))
		dots(q, f.Data[(b0+lo)*f.Dim:(b0+lo+run)*f.Dim], scores[lo:lo+run])
		r &^= (1<<run - 1) << lo
	}
}

// topK keeps the k best hits offered in ascending row order. A hit enters a buffer unless a
// threshold rules it out; when the buffer holds 2k hits it is cut back to its k best and the
// threshold becomes the k-th best's score. Only a score above the threshold enters (a tie never
// beats a kept, lower row), so the kept set is the exact top k, ties to the lower row, and a row
// below the threshold costs one comparison. The cut is a stable filter, so the buffer stays in
// ascending row order, which is what lets it settle ties by position (cut).
type topK struct {
	buf     []Hit
	scratch []float32 // the buffer's scores, for the cut's selection
	k       int
	thr     float32
	full    bool // thr is set: the buffer was cut at least once
}

// newTopK keeps the k best of at most n offered hits.
func newTopK(k, n int) topK {
	return topK{buf: make([]Hit, 0, min(2*k, n)), k: k}
}

// offerBlock offers the hits of the rows b0+j for every bit j of w, scored scores[j].
// Once the buffer has been cut, the rows at or below the threshold are dropped from w first,
// by one branch-free pass over the block (above), so the usual row costs no call and no
// mispredicted branch.
func (t *topK) offerBlock(b0 int, w uint64, scores *[64]float32) {
	if t.full {
		w &= above(scores, t.thr)
	}
	for r := w; r != 0; r &= r - 1 {
		j := bits.TrailingZeros64(r)
		t.offer(b0+j, scores[j])
	}
}

// above is the bits j with scores[j] > thr: the AVX2 kernel where the kernel level allows it,
// else aboveGeneric.
func above(scores *[64]float32, thr float32) uint64 {
	if useAVX2 {
		return aboveAVX2(&scores[0], thr)
	}
	return aboveGeneric(scores, thr)
}

// aboveGeneric is above's portable loop.
func aboveGeneric(scores *[64]float32, thr float32) uint64 {
	var m uint64
	for j, s := range scores {
		if s > thr {
			m |= 1 << j
		}
	}
	return m
}

// offer offers one hit; rows come in ascending order.
func (t *topK) offer(row int, s float32) {
	if t.full && !(s > t.thr) { // a tie never beats the kept, lower row
		return
	}
	t.buf = append(t.buf, Hit{row, s})
	if len(t.buf) >= 2*t.k {
		t.cut()
	}
}

// cut keeps the buffer's k best and sets the threshold to the k-th best's score v: it selects v
// among the scores alone (kthLargest on a float32 copy, a quarter of the hits' bytes and a plain
// comparison), then keeps, in one pass that preserves the buffer's row order, every hit above v
// and the first hits at v until k are kept. The buffer is in ascending row order, so those are
// the lowest rows at v: the k best by better, as a selection over the hits would keep.
func (t *topK) cut() {
	t.scratch = t.scratch[:0]
	for _, h := range t.buf {
		t.scratch = append(t.scratch, h.Score)
	}
	v := kthLargest(t.scratch, t.k)
	ties := t.k // how many hits at v are kept: k less those above v (at most k-1 of them)
	for _, s := range t.scratch[:t.k-1] {
		if s > v {
			ties--
		}
	}
	j := 0 // branch-free too: every hit is written, and j moves past it when it is kept
	for _, h := range t.buf {
		tie := b2i(h.Score == v) & b2i(ties > 0)
		t.buf[j] = h
		j += b2i(h.Score > v) | tie
		ties -= tie
	}
	t.buf = t.buf[:j]
	t.thr, t.full = v, true
}

// kthLargest reorders s so that s[:k] holds its k largest values and s[k-1] is the k-th largest,
// and returns it, for 0 < k <= len(s): every value above the k-th largest is in s[:k-1]. It is
// a quickselect whose partitions never branch on a comparison (a Lomuto pass that always swaps
// and advances by the comparison's 0 or 1), because the scores a scan buffers come in no order
// and a branch on each would be mispredicted half the time. Each round splits the range into
// the values above a median-of-three pivot, then those equal to it, so ties, however many,
// never make it quadratic.
func kthLargest(s []float32, k int) float32 {
	n := k - 1
	lo, hi := 0, len(s)
	for hi-lo > 1 {
		x := median3(s[lo], s[lo+(hi-lo)/2], s[hi-1])
		gt := lo // s[lo:gt] > x
		for i := lo; i < hi; i++ {
			v := s[i]
			s[i] = s[gt]
			s[gt] = v
			gt += b2i(v > x)
		}
		if n < gt {
			hi = gt
			continue
		}
		eq := gt // s[gt:eq] == x
		for i := gt; i < hi; i++ {
			v := s[i]
			s[i] = s[eq]
			s[eq] = v
			eq += b2i(v == x)
		}
		if n < eq || eq == gt { // eq == gt only for a NaN pivot (no stored score is NaN): stop
			break
		}
		lo = eq
	}
	return s[n]
}

// median3 is the median of three values.
func median3(a, b, c float32) float32 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	if a > b {
		return a
	}
	return b
}

// b2i is 1 for true and 0 for false (the compiler makes it a SETcc, not a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kept is the kept hits (the exact top k of those offered, or all of them if fewer), in
// ascending row order (the order they were offered in; cut keeps it).
func (t *topK) kept() []Hit {
	if len(t.buf) > t.k {
		t.cut()
	}
	return t.buf
}

// sorted is the kept hits, best first.
func (t *topK) sorted() []Hit {
	out := slices.Clone(t.kept())
	slices.SortFunc(out, compareHits)
	return out
}

// selectBest reorders h so that h[:k] holds its k best hits (better) and h[k-1] is the k-th
// best, for 0 < k < len(h), in O(len(h)) on average (Hoare's FIND; better is a strict total
// order on hits of distinct rows).
func selectBest(h []Hit, k int) {
	if k <= 0 || k >= len(h) {
		return
	}
	n := k - 1
	lo, hi := 0, len(h)-1
	for lo < hi {
		x := h[n]
		i, j := lo, hi
		for i <= j {
			for better(h[i], x) {
				i++
			}
			for better(x, h[j]) {
				j--
			}
			if i <= j {
				h[i], h[j] = h[j], h[i]
				i++
				j--
			}
		}
		if j < n {
			lo = i
		}
		if n < i {
			hi = j
		}
	}
}

// compareHits orders hits best first (better), for slices.SortFunc.
func compareHits(a, b Hit) int {
	if better(a, b) {
		return -1
	}
	if better(b, a) {
		return 1
	}
	return 0
}

// better orders hits: higher score first, then lower row.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Row < b.Row
}

// Dot is the inner product of two equal-length vectors: the best kernel the CPU has (Kernel):
// AVX-512 (64 floats a step in four accumulators, then 16 a step), AVX2+FMA (32 floats a
// step, four accumulators), or the portable loop.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	if n := len(a) &^ 15; useAVX512 && n > 0 {
		return dotTail(dotAVX512(&a[0], &b[0], n), a, b, n)
	}
	if n := len(a) &^ 31; useAVX2 && n > 0 {
		return dotTail(dotAVX2(&a[0], &b[0], n), a, b, n)
	}
	return dotGeneric(a, b)
}

// dotTail adds a[i]·b[i] for i from from to len(a) to s, in order: the values after a kernel's
// last step.
func dotTail(s float32, a, b []float32, from int) float32 {
	b = b[:len(a)]
	for i := from; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

// dots writes out[r] = Dot(q, row r) for r < len(out), bit for bit, where rows holds len(out)
// rows of len(q) values: one kernel call for all of them, the rows one after the other, where
// Dot runs a kernel (dotsAVX512 as dotAVX512, dotsAVX2 as dotAVX2), Dot row by row otherwise.
func dots(q, rows []float32, out []float32) {
	dim := len(q)
	rows = rows[:len(out)*dim]
	n := 0
	switch {
	case len(out) == 0:
		return
	case useAVX512 && dim >= 16:
		n = dim &^ 15
		dotsAVX512(&q[0], &rows[0], dim, n, len(out), floatAhead, &out[0])
	case useAVX2 && dim >= 32:
		n = dim &^ 31
		dotsAVX2(&q[0], &rows[0], dim, n, len(out), &out[0])
	default:
		for r := range out {
			out[r] = Dot(q, rows[r*dim:(r+1)*dim])
		}
		return
	}
	if n < dim {
		for r := range out {
			out[r] = dotTail(out[r], q, rows[r*dim:(r+1)*dim], n)
		}
	}
}

// dotGeneric is the portable inner product (unrolled by 4).
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
