package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// roundTrip writes rows to Parquet and reads them back.
func roundTrip[T any](t *testing.T, rows []T) []T {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := parquet.NewGenericReader[T](bytes.NewReader(buf.Bytes()))
	defer r.Close()
	out := make([]T, r.NumRows())
	n, err := r.Read(out)
	if n != len(rows) || (err != nil && err.Error() != "EOF") {
		t.Fatalf("read %d of %d rows: %v", n, len(rows), err)
	}
	return out
}

func ms(y int, m time.Month, d, h, min, s, msec int) time.Time {
	return time.Date(y, m, d, h, min, s, msec*1e6, time.UTC)
}

func TestDocumentRoundTrip(t *testing.T) {
	w := 0.7
	rows := []Document{
		{DocID: "a", PublishedAt: ms(2024, 3, 1, 0, 0, 0, 0), Title: "T", Text: "body", Source: "ex.com", URL: "https://ex.com/a"},
		{DocID: "b", PublishedAt: ms(2025, 9, 4, 13, 5, 7, 123), Text: "ключевая ставка", Source: "@chan", SourceWeight: &w, Topic: "rates", Lang: "ru"},
	}
	got := roundTrip(t, rows)
	for i := range got {
		got[i].PublishedAt = got[i].PublishedAt.UTC()
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, rows)
	}
}

func TestChunkAndQuarantineRoundTrip(t *testing.T) {
	chunks := []Chunk{{ChunkID: "a#0", DocID: "a", Seq: 0, PublishedAt: ms(2024, 3, 1, 0, 0, 0, 0), Text: "x", Lang: "en", Start: 0, End: 1, DedupKey: "k"}}
	got := roundTrip(t, chunks)
	got[0].PublishedAt = got[0].PublishedAt.UTC()
	if !reflect.DeepEqual(got, chunks) {
		t.Fatalf("chunk round trip:\n got %+v\nwant %+v", got, chunks)
	}
	q := []QuarantineRow{{SourceFile: "f.parquet", RowNumber: 41, DocID: "x", Reason: ReasonBadDate, Detail: `"31/02/2024"`}}
	if gq := roundTrip(t, q); !reflect.DeepEqual(gq, q) {
		t.Fatalf("quarantine round trip: %+v", gq)
	}
}

func TestManifest(t *testing.T) {
	m := Manifest{
		Version: ManifestVersion, Index: "news", Seq: 3, CreatedAt: ms(2026, 11, 22, 7, 0, 0, 0),
		Model: ModelRef{ID: "e5-small-v2", SHA256: "abc", Dim: 384}, Period: "month",
		Chunk:  ChunkConfig{Size: 1600, Overlap: 200, Min: 100, MaxChunksPerDoc: 0},
		Shards: []ShardMeta{{ID: "s1", Period: "2024-03", MinDate: ms(2024, 3, 1, 0, 0, 0, 0), MaxDate: ms(2024, 3, 31, 0, 0, 0, 0), Docs: 2, Chunks: 3, Objects: []ObjectRef{{Key: "shards/2024-03/s1/chunks.parquet", Size: 10, SHA256: "d"}}}},
		Counts: IndexCounts{Read: 10, Indexed: 7, Quarantined: map[string]int64{ReasonBadDate: 1, ReasonEmptyText: 1}, Skipped: 1, Chunks: 9,
			Languages: map[string]int64{"ru": 5, "en": 2}},
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("manifest round trip:\n got %+v\nwant %+v", got, m)
	}
	if !m.Counts.Reconciles() {
		t.Fatal("10 = 7 + 2 + 1 should reconcile")
	}
	m.Counts.Indexed = 8
	if m.Counts.Reconciles() {
		t.Fatal("a row counted twice must not reconcile")
	}
	future := strings.Replace(string(data), `"version":1`, `"version":3`, 1)
	if _, err := DecodeManifest([]byte(future)); err == nil || !strings.Contains(err.Error(), "version 3") {
		t.Fatalf("future manifest: err = %v", err)
	}
	if _, err := DecodeManifest([]byte("{")); err == nil {
		t.Fatal("broken JSON accepted")
	}
}

func TestIndexCountsPlus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		a, b  IndexCounts
		langs map[string]int64
	}{
		{"both counted", IndexCounts{Indexed: 3, Languages: map[string]int64{"en": 3}}, IndexCounts{Indexed: 2, Languages: map[string]int64{"en": 1, "ru": 1}},
			map[string]int64{"en": 4, "ru": 1}},
		{"a new index: nothing to add to", IndexCounts{}, IndexCounts{Indexed: 2, Languages: map[string]int64{"zh": 2}}, map[string]int64{"zh": 2}},
		{"an index built before languages were counted", IndexCounts{Indexed: 5}, IndexCounts{Indexed: 2, Languages: map[string]int64{"ru": 2}}, nil},
		{"an append result from before they were counted", IndexCounts{Indexed: 5, Languages: map[string]int64{"en": 5}}, IndexCounts{Indexed: 2}, nil},
		{"nothing indexed", IndexCounts{}, IndexCounts{Read: 1, Skipped: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.a.Plus(tc.b)
			if !reflect.DeepEqual(got.Languages, tc.langs) {
				t.Fatalf("Languages = %v, want %v", got.Languages, tc.langs)
			}
			if got.Indexed != tc.a.Indexed+tc.b.Indexed || got.Read != tc.a.Read+tc.b.Read {
				t.Fatalf("Plus = %+v", got)
			}
		})
	}
	old := `{"version":1,"index":"news","counts":{"read":2,"indexed":2,"quarantined":{},"skipped":0,"chunks":2}}`
	m, err := DecodeManifest([]byte(old))
	if err != nil || m.Counts.Languages != nil {
		t.Fatalf("a manifest from before languages were counted: %+v, %v", m.Counts, err)
	}
}
