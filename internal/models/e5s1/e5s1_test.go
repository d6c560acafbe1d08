package e5s1

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// tiny describes a small synthetic model written in the E5S1 v1 layout.
type tiny struct {
	H, NL, NH, FF, VOC, MAXP, TVS int
	pieces                        []string
	scores                        []float32
	tensors                       []synthTensor
}

type synthTensor struct {
	name string
	kind int
	n    int
	data []byte
}

// newTiny makes a valid model: hidden 64, 2 layers, 2 heads, FFN 128, 12 rows of vocabulary.
func newTiny(seed uint64) *tiny {
	r := rand.New(rand.NewPCG(seed, 1))
	t := &tiny{H: 64, NL: 2, NH: 2, FF: 128, VOC: 12, MAXP: 16, TVS: 2,
		pieces: []string{"<s>", "<pad>", "</s>", "<unk>", "▁a", "▁b", "▁ставка", "年", "▁rate", ","}}
	for i := range t.pieces {
		t.scores = append(t.scores, -float32(i)/3)
	}
	m := &Model{Hidden: t.H, Layers: t.NL, FFN: t.FF, Vocab: t.VOC, MaxPos: t.MAXP, TypeVocab: t.TVS}
	names := make([]string, 0)
	shapes := m.shapes()
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := shapes[name]
		var data []byte
		if s[0] == KindF32 {
			for i := 0; i < s[1]; i++ {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(r.NormFloat64()*0.1)))
			}
		} else {
			for b := 0; b < s[1]/BlockSize; b++ {
				data = binary.LittleEndian.AppendUint16(data, 0x2000+uint16(r.IntN(0x800))) // small positive halves
				for j := 0; j < BlockSize/2; j++ {
					data = append(data, byte(r.IntN(256)))
				}
			}
		}
		t.tensors = append(t.tensors, synthTensor{name: name, kind: s[0], n: s[1], data: data})
	}
	return t
}

func (t *tiny) bytes() []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	i32 := func(v int) { u32(uint32(int32(v))) }
	b = append(b, Magic...)
	u32(1)
	for _, v := range []int{t.H, t.NL, t.NH, t.FF, t.VOC, t.MAXP, t.TVS} {
		i32(v)
	}
	u32(math.Float32bits(1e-12))
	i32(BlockSize)
	i32(len(t.pieces))
	for _, id := range []int{0, 2, 1, 3} {
		i32(id)
	}
	blob := strings.Join(t.pieces, "")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(blob)))
	off := 0
	i32(0)
	for _, p := range t.pieces {
		off += len(p)
		i32(off)
	}
	for _, s := range t.scores {
		u32(math.Float32bits(s))
	}
	b = append(b, blob...)
	i32(1) // one normalization entry: U+00A0 → ' '
	i32(4 + 1 + 4)
	b = binary.LittleEndian.AppendUint32(b, 0xA0)
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, ' ')
	i32(len(t.tensors))
	dirSize := 0
	for _, s := range t.tensors {
		dirSize += 2 + len(s.name) + 1 + 4 + 8 + 8
	}
	data := len(b) + dirSize
	for _, s := range t.tensors {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s.name)))
		b = append(b, s.name...)
		b = append(b, byte(s.kind))
		u32(uint32(s.n))
		b = binary.LittleEndian.AppendUint64(b, uint64(data))
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s.data)))
		data += len(s.data)
	}
	for _, s := range t.tensors {
		b = append(b, s.data...)
	}
	return b
}

func (t *tiny) tokenizerJSON() []byte {
	vocab := make([][2]any, len(t.pieces))
	for i, p := range t.pieces {
		vocab[i] = [2]any{p, float64(t.scores[i])}
	}
	data, _ := json.Marshal(map[string]any{"model": map[string]any{"type": "Unigram", "unk_id": 3, "vocab": vocab}})
	return data
}

func TestParse(t *testing.T) {
	tm := newTiny(1)
	m, err := Parse(tm.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m.Hidden != 64 || m.Layers != 2 || m.Heads != 2 || m.FFN != 128 || m.Vocab != 12 || m.MaxPos != 16 || m.TypeVocab != 2 {
		t.Errorf("header %+v", m)
	}
	if m.BOS != 0 || m.EOS != 2 || m.PAD != 1 || m.UNK != 3 || m.Eps != 1e-12 {
		t.Errorf("specials %d %d %d %d eps %v", m.BOS, m.EOS, m.PAD, m.UNK, m.Eps)
	}
	if strings.Join(m.Pieces, "|") != strings.Join(tm.pieces, "|") || m.Scores[4] != tm.scores[4] {
		t.Errorf("pieces %q scores %v", m.Pieces, m.Scores)
	}
	if len(m.Tensors) != len(tm.tensors) {
		t.Errorf("%d tensors, want %d", len(m.Tensors), len(tm.tensors))
	}
	ln := m.Tensors["l1.oln.b"].F32()
	var want []float32
	for _, s := range tm.tensors {
		if s.name == "l1.oln.b" {
			for i := 0; i < s.n; i++ {
				want = append(want, math.Float32frombits(binary.LittleEndian.Uint32(s.data[4*i:])))
			}
		}
	}
	if fmt.Sprint(ln) != fmt.Sprint(want) {
		t.Errorf("F32 = %v, want %v", ln[:4], want[:4])
	}
}

func TestQ4(t *testing.T) {
	// One block: scale 0.5 (0x3800), byte j holds code j%16 low and 15−j%16 high.
	blk := binary.LittleEndian.AppendUint16(nil, 0x3800)
	for j := 0; j < 16; j++ {
		blk = append(blk, byte(j)|byte(15-j)<<4)
	}
	codes, scales := Tensor{Kind: KindQ4, N: 32, Data: blk}.Q4()
	if len(scales) != 1 || scales[0] != 0.5 {
		t.Fatalf("scales %v, want [0.5]", scales)
	}
	for j := 0; j < 16; j++ {
		if codes[j] != uint8(j) || codes[j+16] != uint8(15-j) {
			t.Fatalf("codes %v: weight j is the low nibble of byte j, weight j+16 the high one", codes)
		}
	}
}

func TestF16(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    uint16
		want float32
	}{
		{"zero", 0x0000, 0},
		{"one", 0x3C00, 1},
		{"minus two", 0xC000, -2},
		{"half", 0x3800, 0.5},
		{"largest", 0x7BFF, 65504},
		{"smallest subnormal", 0x0001, float32(math.Ldexp(1, -24))},
		{"largest subnormal", 0x03FF, float32(math.Ldexp(1023, -24))},
		{"infinity", 0x7C00, float32(math.Inf(1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := f16(tc.h); got != tc.want {
				t.Errorf("f16(%#04x) = %v, want %v", tc.h, got, tc.want)
			}
		})
	}
	if got := f16(0x7E00); !math.IsNaN(float64(got)) {
		t.Errorf("f16(NaN) = %v", got)
	}
}

// patch returns a copy of b with f applied.
func patch(b []byte, f func([]byte) []byte) []byte { return f(bytes.Clone(b)) }

func TestParseRejects(t *testing.T) {
	good := newTiny(2)
	b := good.bytes()
	dirAt := func(name string) int { // offset of a directory entry's name length
		return bytes.Index(b, append(binary.LittleEndian.AppendUint16(nil, uint16(len(name))), name...))
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"other magic", patch(b, func(x []byte) []byte { copy(x, "GGUF"); return x }), "magic"},
		{"version 2", patch(b, func(x []byte) []byte { x[4] = 2; return x }), "version 2"},
		{"block size 16", patch(b, func(x []byte) []byte { binary.LittleEndian.PutUint32(x[40:], 16); return x }), "block size"},
		{"hidden not a multiple of heads", patch(b, func(x []byte) []byte { binary.LittleEndian.PutUint32(x[16:], 3); return x }), "heads"},
		{"special id past the pieces", patch(b, func(x []byte) []byte { binary.LittleEndian.PutUint32(x[48:], 99); return x }), "special token"},
		{"piece offsets backwards", patch(b, func(x []byte) []byte { binary.LittleEndian.PutUint32(x[80:], 0); return x }), "piece 1 spans"},
		{"tensor past the end", patch(b, func(x []byte) []byte {
			i := dirAt("emb.word") + 2 + len("emb.word") + 1 + 4
			binary.LittleEndian.PutUint64(x[i:], uint64(len(x)))
			return x
		}), "emb.word"},
		{"tensor of another kind", patch(b, func(x []byte) []byte { x[dirAt("l0.q.b")+2+len("l0.q.b")] = 1; return x }), "l0.q.b"},
		{"unknown kind", patch(b, func(x []byte) []byte { x[dirAt("l0.q.b")+2+len("l0.q.b")] = 7; return x }), "unknown kind"},
		{"missing tensor", patch(b, func(x []byte) []byte { copy(x[dirAt("l1.fo.w")+2:], "l1.fx.w"); return x }), "missing tensor l1.fo.w"},
		{"truncated", b[:len(b)-1], "the file has"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want ErrFormat mentioning %q", err, tc.want)
			}
		})
	}
}

// TestParseEveryPrefix: a file cut anywhere is an error, never a panic.
func TestParseEveryPrefix(t *testing.T) {
	b := newTiny(3).bytes()
	for n := 0; n < len(b); n += 1 + n/64 {
		if _, err := Parse(b[:n]); err == nil {
			t.Fatalf("Parse of the first %d of %d bytes succeeded", n, len(b))
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(newTiny(4).bytes())
	f.Add([]byte("E5S1\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err == nil {
			if err := m.check(); err != nil {
				t.Fatalf("Parse accepted a model that fails its check: %v", err)
			}
		}
	})
}

func TestONNX(t *testing.T) {
	m, err := Parse(newTiny(5).bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lin       Linear
		has, hasn []string
	}{
		{LinearInt8, []string{"Erf", "MatMulInteger", "QuantizeLinear"}, []string{"com.microsoft", "Gelu"}},
		{LinearF32, []string{"Erf"}, []string{"MatMulInteger", "QuantizeLinear", "com.microsoft", "Gelu"}},
		// The fused layout: no Erf pattern, no Cast of an int32 product, no bias Add before the
		// residual; K's bias gone, V's folded into the output projection's.
		{LinearInt8Fused, []string{"com.microsoft", "MatMulIntegerToFloat", "SkipLayerNormalization", "Gelu", "QuantizeLinear", "ReduceMin", "ao.b.folded"},
			[]string{"Erf", "Abs", "k.b", "v.b"}},
	} {
		a, err := m.ONNX(tc.lin)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.ONNX(tc.lin)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two conversions differ", tc.lin)
		}
		for _, want := range append([]string{"input_ids", "attention_mask", "last_hidden_state", "LayerNormalization"}, tc.has...) {
			if !bytes.Contains(a, []byte(want)) {
				t.Errorf("%s: the graph has no %s", tc.lin, want)
			}
		}
		for _, not := range tc.hasn {
			if bytes.Contains(a, []byte(not)) {
				t.Errorf("%s: the graph has %s", tc.lin, not)
			}
		}
	}
	if _, err := m.ONNX("q2"); err == nil {
		t.Error("an unknown mode converted")
	}
}

func TestCheckTokenizer(t *testing.T) {
	tm := newTiny(6)
	m, err := Parse(tm.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckTokenizer(tm.tokenizerJSON()); err != nil {
		t.Fatalf("the model's own vocabulary: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*tiny)
		json   string
		want   string
	}{
		{name: "a piece differs", change: func(x *tiny) { x.pieces[6] = "▁ставки" }, want: "piece 6"},
		{name: "a score differs", change: func(x *tiny) { x.scores[8] -= 0.001 }, want: "piece 8"},
		{name: "a piece missing", change: func(x *tiny) { x.pieces = x.pieces[:9]; x.scores = x.scores[:9] }, want: "9 pieces"},
		{name: "a BPE model", json: `{"model":{"type":"BPE","vocab":{}}}`, want: "Unigram"},
		{name: "not JSON", json: `{"model":`, want: "tokenizer.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.json)
			if tc.change != nil {
				other := newTiny(6)
				tc.change(other)
				data = other.tokenizerJSON()
			}
			if err := m.CheckTokenizer(data); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckTokenizer = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}
