package e5s1

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// A minimal writer of the ONNX protobuf messages an encoder graph needs (onnx/onnx.proto3:
// ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto), encoded
// field by field with protowire: the few messages used here do not justify generated code.

// ONNX tensor element types (TensorProto.DataType).
const (
	dtFloat = 1
	dtUint8 = 2
	dtInt8  = 3
	dtInt32 = 6
	dtInt64 = 7
)

// Attribute types (AttributeProto.AttributeType).
const (
	attrFloat = 1
	attrInt   = 2
	attrInts  = 7
)

type attr struct {
	name string
	typ  int
	f    float32
	i    int64
	ints []int64
}

func (a attr) encode() []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, a.name)
	switch a.typ {
	case attrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.f))
	case attrInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.i))
	case attrInts:
		for _, v := range a.ints {
			b = protowire.AppendTag(b, 8, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(v))
		}
	}
	b = protowire.AppendTag(b, 20, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(a.typ))
}

func intAttr(name string, v int64) attr     { return attr{name: name, typ: attrInt, i: v} }
func floatAttr(name string, v float32) attr { return attr{name: name, typ: attrFloat, f: v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, typ: attrInts, ints: v} }
func appendMsg(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

type node struct {
	op, domain, name string
	in, out          []string
	attrs            []attr
}

func (n node) encode() []byte {
	var b []byte
	for _, s := range n.in {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for _, s := range n.out {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendString(b, n.name)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendString(b, n.op)
	for _, a := range n.attrs {
		b = appendMsg(b, 5, a.encode())
	}
	if n.domain != "" {
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		b = protowire.AppendString(b, n.domain)
	}
	return b
}

type tensor struct {
	name  string
	dtype int
	dims  []int64
	raw   []byte
}

func (t tensor) encode() []byte {
	var b []byte
	if len(t.dims) > 0 {
		var packed []byte
		for _, d := range t.dims {
			packed = protowire.AppendVarint(packed, uint64(d))
		}
		b = appendMsg(b, 1, packed)
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.dtype))
	b = protowire.AppendTag(b, 8, protowire.BytesType)
	b = protowire.AppendString(b, t.name)
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	return protowire.AppendBytes(b, t.raw)
}

func f32Tensor(name string, dims []int64, v []float32) tensor {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return tensor{name: name, dtype: dtFloat, dims: dims, raw: raw}
}

func i64Tensor(name string, dims []int64, v ...int64) tensor {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return tensor{name: name, dtype: dtInt64, dims: dims, raw: raw}
}

// valueInfo is a graph input or output: a tensor of elem type with dims, each a size (> 0) or
// a symbolic name.
type valueInfo struct {
	name  string
	dtype int
	dims  []any // int64 or string
}

func (v valueInfo) encode() []byte {
	var shape []byte
	for _, d := range v.dims {
		var dim []byte
		switch d := d.(type) {
		case int64:
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d))
		case string:
			dim = protowire.AppendTag(dim, 2, protowire.BytesType)
			dim = protowire.AppendString(dim, d)
		}
		shape = appendMsg(shape, 1, dim)
	}
	var tt []byte
	tt = protowire.AppendTag(tt, 1, protowire.VarintType)
	tt = protowire.AppendVarint(tt, uint64(v.dtype))
	tt = appendMsg(tt, 2, shape)
	var typ []byte
	typ = appendMsg(typ, 1, tt)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, v.name)
	return appendMsg(b, 2, typ)
}

type opset struct {
	domain  string
	version int64
}

// graphModel encodes a ModelProto with one graph.
type graphModel struct {
	irVersion      int64
	opsets         []opset
	producer       string
	producerVer    string
	docString      string
	graphName      string
	nodes          []node
	initializers   []tensor
	inputs, output []valueInfo
}

func (g graphModel) encode() []byte {
	var graph []byte
	for _, n := range g.nodes {
		graph = appendMsg(graph, 1, n.encode())
	}
	graph = protowire.AppendTag(graph, 2, protowire.BytesType)
	graph = protowire.AppendString(graph, g.graphName)
	for _, t := range g.initializers {
		graph = appendMsg(graph, 5, t.encode())
	}
	for _, v := range g.inputs {
		graph = appendMsg(graph, 11, v.encode())
	}
	for _, v := range g.output {
		graph = appendMsg(graph, 12, v.encode())
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(g.irVersion))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, g.producer)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendString(b, g.producerVer)
	if g.docString != "" {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendString(b, g.docString)
	}
	b = appendMsg(b, 7, graph)
	for _, o := range g.opsets {
		var os []byte
		if o.domain != "" {
			os = protowire.AppendTag(os, 1, protowire.BytesType)
			os = protowire.AppendString(os, o.domain)
		}
		os = protowire.AppendTag(os, 2, protowire.VarintType)
		os = protowire.AppendVarint(os, uint64(o.version))
		b = appendMsg(b, 8, os)
	}
	return b
}
