// Package retrievetest builds real in-memory shards (flat vectors and a bleve BM25 index in a
// test's temporary folder) for tests of the packages above retrieve.
package retrievetest

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// Doc is one single-chunk document of a test shard. Chunks with the same text share a dedup
// key (reposts).
type Doc struct {
	ID, Text, Source string
	PublishedAt      time.Time
	Vec              []float32
}

// Day parses YYYY-MM-DD as midnight UTC, panicking on a typo.
func Day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Unit returns v scaled to length 1.
func Unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / float32(math.Sqrt(n))
	}
	return out
}

// Shard builds a shard of docs (English, title = text); its index lives in t's temp folder and
// is closed when t ends.
func Shard(t testing.TB, id string, docs []Doc) *retrieve.Shard {
	t.Helper()
	s := &retrieve.Shard{ID: id, Vectors: vecindex.New(len(docs[0].Vec), "test")}
	var lex []lexical.Doc
	for i, d := range docs {
		c := schemas.Chunk{ChunkID: d.ID + "#0", DocID: d.ID, PublishedAt: d.PublishedAt, Title: d.Text, Text: d.Text, Source: d.Source, Lang: "en", DedupKey: d.Text}
		s.Chunks = append(s.Chunks, c)
		if err := s.Vectors.Add(d.Vec); err != nil {
			t.Fatal(err)
		}
		lex = append(lex, lexical.Doc{Row: i, Text: d.Text, Lang: "en", PublishedAt: c.PublishedAt})
		if i == 0 || c.PublishedAt.Before(s.MinDate) {
			s.MinDate = c.PublishedAt
		}
		if c.PublishedAt.After(s.MaxDate) {
			s.MaxDate = c.PublishedAt
		}
	}
	dir := filepath.Join(t.TempDir(), id)
	if err := lexical.Build(dir, lex); err != nil {
		t.Fatal(err)
	}
	x, err := lexical.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	s.Lexical = x
	return s
}
