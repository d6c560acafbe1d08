// Package purgetest is what the purge tests share: reading every object of a store back to
// find what still holds a document's text or vectors (asof docs delete --purge's done-when).
// Tests only.
package purgetest

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// DocVectors are the vectors of doc's rows in index's live shards.
func DocVectors(t testing.TB, b blob.Bucket, index, doc string) [][]float32 {
	t.Helper()
	m, err := layout.ReadLive(context.Background(), b, index)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	for _, sm := range m.Shards {
		chunks, err := storeio.GetParquet[schemas.Chunk](context.Background(), b, layout.ShardKey(index, sm.Period, sm.ID, "chunks.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := storeio.GetVectors(context.Background(), b, layout.ShardKey(index, sm.Period, sm.ID, "vectors.f32"))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range chunks {
			if c.DocID == doc {
				out = append(out, slices.Clone(v.Row(i)))
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("index %s holds no row of %s", index, doc)
	}
	return out
}

// Leftovers reads every object of b back and names those that hold marker (in any case) or one
// of vecs: Parquet values, BM25 indexes (searched for the word, and their files
// byte by byte), zip entries, vector files row by row, and any other object's bytes.
func Leftovers(t testing.TB, b blob.Bucket, marker string, vecs [][]float32) []string {
	t.Helper()
	ctx := context.Background()
	objs, err := blob.List(ctx, b, "")
	if err != nil {
		t.Fatal(err)
	}
	lower := []byte(strings.ToLower(marker))
	holds := func(data []byte) bool { return bytes.Contains(bytes.ToLower(data), lower) }
	var left []string
	for _, o := range objs {
		data, err := blob.ReadAll(ctx, b, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		why := ""
		switch path.Ext(o.Key) {
		case ".parquet":
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%s does not read as Parquet: %v", o.Key, err)
			}
			buf := make([]parquet.Row, 64)
			for _, rg := range f.RowGroups() {
				r := rg.Rows()
				for why == "" {
					n, err := r.ReadRows(buf)
					for _, row := range buf[:n] {
						for _, v := range row {
							if v.Kind() == parquet.ByteArray && holds(v.ByteArray()) {
								why = "a Parquet value"
							}
						}
					}
					if err != nil {
						break
					}
				}
				r.Close()
			}
		case ".zip":
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%s does not read as zip: %v", o.Key, err)
			}
			dir, err := os.MkdirTemp("", "asof-leftovers-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			for _, zf := range zr.File {
				rc, err := zf.Open()
				if err != nil {
					t.Fatal(err)
				}
				entry, _ := io.ReadAll(rc)
				rc.Close()
				if holds(entry) {
					why = "zip entry " + zf.Name
				}
				p := filepath.Join(dir, "x", zf.Name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, entry, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if path.Base(o.Key) == "bm25.zip" {
				x, err := lexical.Open(filepath.Join(dir, "x"))
				if err != nil {
					t.Fatalf("%s: %v", o.Key, err)
				}
				hits, err := x.Search(marker, 10, lexical.Window{})
				x.Close()
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) > 0 {
					why = "a BM25 term"
				}
			}
		case ".f32":
			v, err := vecindex.Read(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", o.Key, err)
			}
			for i := 0; i < v.Count && why == ""; i++ {
				for _, w := range vecs {
					if slices.Equal(v.Row(i), w) {
						why = "a vector of the document"
					}
				}
			}
		default:
			if holds(data) {
				why = "its bytes"
			}
		}
		if why != "" {
			left = append(left, o.Key+": "+why)
		}
	}
	return left
}
