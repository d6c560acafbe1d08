package vecindex

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInt8FileRoundTrip writes codes and reads them back for the same float32 rows: scales,
// codes and the 64-byte layout survive, and the loaded codes search as the quantized ones do.
func TestInt8FileRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name       string
		count, dim int
	}{
		{name: "aligned", count: 100, dim: 64},
		{name: "scales not a multiple of 64 bytes", count: 7, dim: 5},
		{name: "one row", count: 1, dim: 384},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := randomFlat(rand.New(rand.NewPCG(5, 6)), tc.count, tc.dim)
			x := QuantizeInt8(f)
			var buf bytes.Buffer
			n, err := x.WriteTo(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(buf.Len()) {
				t.Errorf("WriteTo says %d bytes, wrote %d", n, buf.Len())
			}
			scales := 4 * tc.count
			if want := 64 + scales + pad(scales) + tc.count*tc.dim; buf.Len() != want {
				t.Errorf("file is %d bytes, want %d", buf.Len(), want)
			}
			got, err := ReadInt8(bytes.NewReader(buf.Bytes()), f)
			if err != nil {
				t.Fatal(err)
			}
			if got.Flat != f || !slices.Equal(got.Scales, x.Scales) || !slices.Equal(got.Codes, x.Codes) {
				t.Fatal("read codes differ from the written ones")
			}
			q := f.Row(0)
			a, _ := x.Search(q, 5, nil, 1)
			b, _ := got.Search(q, 5, nil, 1)
			if !slices.Equal(a, b) {
				t.Errorf("search over read codes %v, over quantized %v", b, a)
			}
		})
	}
}

// TestReadInt8RejectsDamagedFiles: a code file that is cut, padded, of another version, or for
// other vectors (count or dim) is ErrFormat, never a panic or a silently wrong index.
func TestReadInt8RejectsDamagedFiles(t *testing.T) {
	f := randomFlat(rand.New(rand.NewPCG(7, 8)), 10, 32)
	var buf bytes.Buffer
	QuantizeInt8(f).WriteTo(&buf)
	good := buf.Bytes()
	edit := func(at int, b ...byte) []byte {
		d := slices.Clone(good)
		copy(d[at:], b)
		return d
	}
	tests := []struct {
		name string
		data []byte
		f    *Flat
	}{
		{name: "empty", data: nil, f: f},
		{name: "short header", data: good[:20], f: f},
		{name: "bad magic", data: edit(0, []byte("ASOFVEC1")...), f: f},
		{name: "future version", data: edit(8, 9), f: f},
		{name: "truncated codes", data: good[:len(good)-3], f: f},
		{name: "truncated scales", data: good[:64+8], f: f},
		{name: "extra bytes", data: append(slices.Clone(good), 1), f: f},
		{name: "other count", data: good, f: randomFlat(rand.New(rand.NewPCG(7, 8)), 11, 32)},
		{name: "other dim", data: good, f: randomFlat(rand.New(rand.NewPCG(7, 8)), 10, 16)},
		{name: "negative scale", data: edit(64+3, 0x80), f: f},
		{name: "code -128", data: edit(len(good)-1, 0x80), f: f},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadInt8(bytes.NewReader(tc.data), tc.f); !errors.Is(err, ErrFormat) {
				t.Errorf("err = %v, want ErrFormat", err)
			}
		})
	}
	if _, err := ReadInt8(bytes.NewReader(good[:len(good)-3]), f); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: err = %v, want io.ErrUnexpectedEOF in the chain", err)
	}
}
