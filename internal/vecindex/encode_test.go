package vecindex

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// TestEncode writes what Flat.WriteTo writes, reads back the same vectors, and refuses a
// vector of another length.
func TestEncode(t *testing.T) {
	tests := []struct {
		name    string
		dim     int
		vecs    [][]float32
		wantErr bool
	}{
		{name: "two vectors", dim: 2, vecs: [][]float32{{1, 0}, {0.6, 0.8}}},
		{name: "none", dim: 0},
		{name: "a short vector", dim: 2, vecs: [][]float32{{1, 0}, {1}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf, err := Encode(tt.dim, "m", tt.vecs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			f := New(tt.dim, "m")
			for _, v := range tt.vecs {
				if err := f.Add(v); err != nil {
					t.Fatal(err)
				}
			}
			var want bytes.Buffer
			if _, err := f.WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want.Bytes()) {
				t.Fatal("Encode's bytes differ from WriteTo's")
			}
			if len(tt.vecs) == 0 {
				return // Read refuses an empty file; its bytes are WriteTo's all the same
			}
			back, err := Read(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if back.Count != len(tt.vecs) || back.Model != "m" || !reflect.DeepEqual(back.Row(1), tt.vecs[1]) {
				t.Errorf("read back %d vectors of %q", back.Count, back.Model)
			}
			if n, err := ReadCount(bytes.NewReader(buf.Bytes()[:26])); err != nil || n != len(tt.vecs) {
				t.Errorf("ReadCount of the header = %d, %v; want %d", n, err, len(tt.vecs))
			}
			if _, err := ReadCount(bytes.NewReader(append([]byte("ASOFVEX1"), buf.Bytes()[8:]...))); !errors.Is(err, ErrFormat) {
				t.Errorf("ReadCount of a wrong magic: %v, want ErrFormat", err)
			}
		})
	}
}

// TestAppendAndLen joins parts of one model and refuses a part of another.
func TestAppendAndLen(t *testing.T) {
	var none *Flat
	if none.Len() != 0 {
		t.Errorf("nil Len = %d", none.Len())
	}
	part := func(model string, dim int, vecs ...[]float32) *Flat {
		f := New(dim, model)
		for _, v := range vecs {
			if err := f.Add(v); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	tests := []struct {
		name    string
		part    *Flat
		wantLen int
		wantErr string
	}{
		{name: "same model", part: part("m", 2, []float32{0, 1}, []float32{1, 0}), wantLen: 3},
		{name: "empty part", part: part("m", 2), wantLen: 1},
		{name: "another model", part: part("n", 2, []float32{0, 1}), wantLen: 1, wantErr: "n/2, not m/2: parts from two models"},
		{name: "another dim", part: part("m", 3, []float32{0, 1, 0}), wantLen: 1, wantErr: "m/3, not m/2: parts from two models"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := part("m", 2, []float32{1, 1})
			err := f.Append(tt.part)
			if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if f.Len() != tt.wantLen || len(f.Data) != tt.wantLen*2 {
				t.Errorf("Len = %d with %d values, want %d", f.Len(), len(f.Data), tt.wantLen)
			}
		})
	}
}
