package storeio

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func newBucket(t *testing.T) blob.Bucket {
	t.Helper()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type probe struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// TestJSON: a value comes back as written (compact or indented, byte for byte as
// encoding/json writes it); a missing object is blob.ErrNotFound, a damaged one ErrDecode
// naming its key, and a value JSON cannot encode is an error before anything is written.
func TestJSON(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	want := probe{Name: "a", Count: 2}
	tests := []struct {
		name     string
		put      func(key string) error
		raw      string // what the object holds; "" when put fails
		wantErr  error  // GetJSON's error
		putFails bool
	}{
		{name: "compact", put: func(k string) error { return PutJSON(ctx, b, k, want) }, raw: `{"name":"a","count":2}`},
		{name: "indented", put: func(k string) error { return PutIndentedJSON(ctx, b, k, want) }, raw: "{\n  \"name\": \"a\",\n  \"count\": 2\n}"},
		{name: "missing", put: func(string) error { return nil }, wantErr: blob.ErrNotFound},
		{name: "damaged", put: func(k string) error { _, err := b.Put(ctx, k, strings.NewReader(`{"name":`)); return err }, raw: `{"name":`, wantErr: ErrDecode},
		{name: "cannot encode", put: func(k string) error { return PutJSON(ctx, b, k, map[string]any{"f": func() {}}) }, putFails: true, wantErr: blob.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "j/" + strings.ReplaceAll(tc.name, " ", "-") + ".json"
			if err := tc.put(key); (err != nil) != tc.putFails {
				t.Fatalf("put: %v, want failure %v", err, tc.putFails)
			}
			if tc.raw != "" {
				data, err := blob.ReadAll(ctx, b, key)
				if err != nil || string(data) != tc.raw {
					t.Fatalf("stored %q (%v), want %q", data, err, tc.raw)
				}
			}
			got, err := GetJSON[probe](ctx, b, key)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && got != want) {
				t.Fatalf("GetJSON = %+v, %v; want %+v, %v", got, err, want, tc.wantErr)
			}
			if errors.Is(err, ErrDecode) && !strings.Contains(err.Error(), key) {
				t.Fatalf("decode error %q does not name %s", err, key)
			}
		})
	}
}

// TestParquet: rows round-trip; a damaged object fails with an error that still says why
// (errors.Is finds parquet's ErrCorrupted under ErrDecode), and one that is not Parquet at all
// is an error, not a panic.
// TestGetParquetAll: the rows of every key, in key order; a missing or damaged part fails the
// whole read.
func TestGetParquetAll(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	for k, ids := range map[string][]string{"p1": {"a", "b"}, "p2": {"c"}, "p3": nil} {
		var rows []probe
		for _, id := range ids {
			rows = append(rows, probe{Name: id})
		}
		if err := PutParquet(ctx, b, k, rows); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Put(ctx, "bad", strings.NewReader("not parquet")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		keys    []string
		want    []string
		wantErr error
	}{
		{name: "none"},
		{name: "in key order", keys: []string{"p2", "p1", "p3"}, want: []string{"c", "a", "b"}},
		{name: "missing part", keys: []string{"p1", "gone"}, wantErr: blob.ErrNotFound},
		{name: "damaged part", keys: []string{"bad", "p1"}, wantErr: ErrDecode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := GetParquetAll[probe](ctx, b, tc.keys)
			var got []string
			for _, r := range rows {
				got = append(got, r.Name)
			}
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	// GetParquetIfSet: no key reads nothing; a key reads as GetParquet, errors included.
	for _, tc := range []struct {
		key     string
		want    []string
		wantErr error
	}{{key: ""}, {key: "p1", want: []string{"a", "b"}}, {key: "gone", wantErr: blob.ErrNotFound}} {
		rows, err := GetParquetIfSet[probe](ctx, b, tc.key)
		var got []string
		for _, r := range rows {
			got = append(got, r.Name)
		}
		if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) || !slices.Equal(got, tc.want) {
			t.Fatalf("GetParquetIfSet(%q) = %v, %v; want %v, %v", tc.key, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParquet(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	docs := []schemas.Document{
		{DocID: "a", PublishedAt: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Text: "The key rate was raised."},
		{DocID: "b", PublishedAt: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC), Text: "Oil prices fell."},
	}
	if err := PutParquet(ctx, b, "docs.parquet", docs); err != nil {
		t.Fatal(err)
	}
	data, err := blob.ReadAll(ctx, b, "docs.parquet")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	col := f.Metadata().RowGroups[0].Columns[0].MetaData
	damaged := slices.Clone(data)
	damaged[col.DataPageOffset+col.TotalCompressedSize-1] ^= 0xff // the last byte of the first page
	tests := []struct {
		name    string
		data    []byte // nil: no object
		want    int
		wantErr []error
	}{
		{name: "intact", data: data, want: 2},
		{name: "page damaged", data: damaged, wantErr: []error{ErrDecode, parquet.ErrCorrupted}},
		{name: "not parquet", data: []byte("not parquet"), wantErr: []error{ErrDecode}},
		{name: "missing", wantErr: []error{blob.ErrNotFound}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "p/" + strings.ReplaceAll(tc.name, " ", "-") + ".parquet"
			if tc.data != nil {
				if _, err := b.Put(ctx, key, bytes.NewReader(tc.data)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := GetParquet[schemas.Document](ctx, b, key)
			for _, w := range tc.wantErr {
				if !errors.Is(err, w) {
					t.Fatalf("err = %v, want %v in the chain", err, w)
				}
			}
			if tc.wantErr == nil && (err != nil || len(got) != tc.want || got[1].DocID != "b" || !got[0].PublishedAt.Equal(docs[0].PublishedAt)) {
				t.Fatalf("read %d rows %+v, %v; want %d", len(got), got, err, tc.want)
			}
		})
	}
}

// TestVectors: vectors come back exactly, in order, with the model they were labelled with;
// rows of mixed lengths are refused before anything is written.
func TestVectors(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	tests := []struct {
		name    string
		vecs    [][]float32
		putErr  bool
		wantDim int
	}{
		{name: "two rows", vecs: [][]float32{{0.5, -0.25, 1e-7}, {-1, 0, 3.25}}, wantDim: 3},
		{name: "mixed lengths", vecs: [][]float32{{1, 2}, {1}}, putErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "v/" + strings.ReplaceAll(tc.name, " ", "-") + ".f32"
			err := PutVectors(ctx, b, key, "toy", tc.vecs)
			if tc.putErr {
				if err == nil {
					t.Fatal("PutVectors took rows of mixed lengths")
				}
				if ok, _ := b.Exists(ctx, key); ok {
					t.Fatal("a refused write left an object")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f, err := GetVectors(ctx, b, key)
			if err != nil {
				t.Fatal(err)
			}
			got := Rows(f)
			if f.Model != "toy" || f.Dim != tc.wantDim || len(got) != len(tc.vecs) {
				t.Fatalf("read %s/%d, %d rows; want toy/%d, %d", f.Model, f.Dim, len(got), tc.wantDim, len(tc.vecs))
			}
			for i := range got {
				if !slices.Equal(got[i], tc.vecs[i]) {
					t.Fatalf("row %d = %v, want %v", i, got[i], tc.vecs[i])
				}
			}
		})
	}
	if _, err := b.Put(ctx, "v/junk.f32", strings.NewReader("junk")); err != nil {
		t.Fatal(err)
	}
	if _, err := GetVectors(ctx, b, "v/junk.f32"); !errors.Is(err, ErrDecode) {
		t.Fatalf("junk vectors: %v, want ErrDecode", err)
	}
	if _, err := GetVectors(ctx, b, "v/none.f32x"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("missing vectors: %v, want blob.ErrNotFound", err)
	}
}

// TestFiles: a local file uploaded comes back through Download, DownloadTo (with its size and
// sha256) and ReadLocal, whose temporary file is gone afterwards; DeletePrefix deletes only
// what is under the prefix.
func TestFiles(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	dir := t.TempDir()
	content := []byte("chunk rows, or any bytes at all\n")
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := Upload(ctx, b, "f/a/one", src)
	if err != nil || info.Size != int64(len(content)) {
		t.Fatalf("Upload: %+v, %v", info, err)
	}
	local, err := Download(ctx, b, "f/a/one")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(local)
	if got, _ := os.ReadFile(local); !bytes.Equal(got, content) {
		t.Fatalf("Download: %q", got)
	}
	n, sum, err := DownloadTo(ctx, b, "f/a/one", filepath.Join(dir, "dst"))
	want := sha256.Sum256(content)
	if err != nil || n != int64(len(content)) || sum != hex.EncodeToString(want[:]) {
		t.Fatalf("DownloadTo: %d %s %v", n, sum, err)
	}
	var seen string
	err = ReadLocal(ctx, b, "f/a/one", func(r io.ReaderAt, size int64) error {
		seen = r.(*os.File).Name()
		buf := make([]byte, size)
		_, err := r.ReadAt(buf, 0)
		if !bytes.Equal(buf, content) {
			t.Errorf("ReadLocal: %q", buf)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Fatalf("ReadLocal left %s behind (%v)", seen, err)
	}
	if err := ReadLocal(ctx, b, "f/missing", func(io.ReaderAt, int64) error { return nil }); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("ReadLocal of a missing object: %v", err)
	}
	for _, k := range []string{"f/a/two", "f/ab/three"} {
		if _, err := Upload(ctx, b, k, src); err != nil {
			t.Fatal(err)
		}
	}
	if err := DeletePrefix(ctx, b, "f/a/"); err != nil {
		t.Fatal(err)
	}
	if err := DeletePrefix(ctx, b, "f/a/"); err != nil { // again: nothing left, no error
		t.Fatal(err)
	}
	left, err := blob.List(ctx, b, "f/")
	if err != nil || len(left) != 1 || left[0].Key != "f/ab/three" {
		t.Fatalf("after DeletePrefix: %+v, %v", left, err)
	}
}

// TestVectorParts: parts are read in order into one set; a part of another dim is
// ErrMismatch naming it; a missing part names it; no parts is nil.
func TestVectorParts(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	put := func(key string, dim int, rows ...[]float32) {
		t.Helper()
		buf, err := vecindex.Encode(dim, "toy", rows)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, key, buf); err != nil {
			t.Fatal(err)
		}
	}
	put("ok/0", 2, []float32{1, 0}, []float32{0, 1})
	put("ok/1", 2, []float32{0.5, 0.5})
	put("mixed/0", 2, []float32{1, 0})
	put("mixed/1", 3, []float32{1, 0, 0})
	tests := []struct {
		name     string
		prefix   string
		n        int
		rows     int
		mismatch bool
		want     string
	}{
		{name: "two parts", prefix: "ok", n: 2, rows: 3},
		{name: "no parts", prefix: "ok", n: 0},
		{name: "another dim", prefix: "mixed", n: 2, mismatch: true, want: "vector part 1 is"},
		{name: "a part missing", prefix: "ok", n: 3, want: "vector part 2:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vec, err := GetVectorParts(ctx, b, tc.n, func(i int) string { return fmt.Sprintf("%s/%d", tc.prefix, i) })
			if tc.want != "" {
				if err == nil || errors.Is(err, ErrMismatch) != tc.mismatch || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v; want one saying %q, ErrMismatch %v", err, tc.want, tc.mismatch)
				}
				return
			}
			if err != nil || vec.Len() != tc.rows || (tc.rows > 0 && !slices.Equal(vec.Row(2), []float32{0.5, 0.5})) {
				t.Fatalf("read %d rows, %v; want %d", vec.Len(), err, tc.rows)
			}
		})
	}
}

// TestPutWritten: what the writer wrote is stored; a writer that fails stores nothing.
func TestPutWritten(t *testing.T) {
	ctx := context.Background()
	b := newBucket(t)
	if err := PutWritten(ctx, b, "page.html", func(w io.Writer) error { _, err := io.WriteString(w, "<p>hi</p>"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, err := blob.ReadAll(ctx, b, "page.html"); err != nil || string(data) != "<p>hi</p>" {
		t.Fatalf("stored %q, %v", data, err)
	}
	bad := errors.New("template broke")
	if err := PutWritten(ctx, b, "bad.html", func(w io.Writer) error { io.WriteString(w, "<p>"); return bad }); !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the writer's", err)
	}
	if ok, _ := b.Exists(ctx, "bad.html"); ok {
		t.Fatal("a failed render stored an object")
	}
}
