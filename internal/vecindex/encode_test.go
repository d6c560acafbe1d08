package vecindex

import (
	"bytes"
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
		})
	}
}
