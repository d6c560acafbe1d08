package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestPeriodOf(t *testing.T) {
	tests := []struct {
		t, unit, key, start, end string
	}{
		{"2024-03-05T13:00:00Z", "day", "2024-03-05", "2024-03-05T00:00:00Z", "2024-03-06T00:00:00Z"},
		{"2024-03-05T13:00:00Z", "week", "2024-W10", "2024-03-04T00:00:00Z", "2024-03-11T00:00:00Z"},
		{"2024-03-10T23:59:59Z", "week", "2024-W10", "2024-03-04T00:00:00Z", "2024-03-11T00:00:00Z"},
		{"2021-01-01T00:00:00Z", "week", "2020-W53", "2020-12-28T00:00:00Z", "2021-01-04T00:00:00Z"},
		{"2024-03-05T13:00:00Z", "month", "2024-03", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"},
		{"2024-11-30T13:00:00Z", "quarter", "2024-Q4", "2024-10-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		{"2024-03-05T13:00:00Z", "year", "2024", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		{"2024-03-31T23:30:00-01:00", "month", "2024-04", "2024-04-01T00:00:00Z", "2024-05-01T00:00:00Z"}, // UTC decides
	}
	for _, tt := range tests {
		key, start, end := PeriodOf(at(tt.t), tt.unit)
		if key != tt.key || !start.Equal(at(tt.start)) || !end.Equal(at(tt.end)) {
			t.Errorf("PeriodOf(%s, %s) = %s [%s, %s), want %s [%s, %s)", tt.t, tt.unit, key, start, end, tt.key, tt.start, tt.end)
		}
		if tm := at(tt.t); tm.Before(start) || !tm.Before(end) {
			t.Errorf("%s is not inside its period", tt.t)
		}
	}
	if ValidUnit("fortnight") == nil || ValidUnit("quarter") != nil {
		t.Fatal("ValidUnit")
	}
}

func docs() []schemas.Document {
	return []schemas.Document{
		{DocID: "b", PublishedAt: at("2024-03-05T10:00:00Z"), Title: "Rate", Text: "The key rate was raised to 16 percent.", Lang: "en", Source: "x"},
		{DocID: "a", PublishedAt: at("2024-03-05T10:00:00Z"), Text: "Ставка повышена.", Lang: "ru", Source: "y"},
		{DocID: "c", PublishedAt: at("2024-04-01T00:00:00Z"), Text: strings.Repeat("Long text about inflation. ", 100), Lang: "en", Source: "x"},
	}
}

func TestGroupAndID(t *testing.T) {
	periods, groups := Group(docs(), "month")
	if strings.Join(periods, ",") != "2024-03,2024-04" || groups["2024-03"][0].DocID != "a" {
		t.Fatalf("Group = %v %+v", periods, groups)
	}
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	model := schemas.ModelRef{ID: "e5-small-v2", SHA256: "abc", Dim: 384}
	id := mustID(t, "2024-03", groups["2024-03"], cfg, model)
	if id != mustID(t, "2024-03", groups["2024-03"], cfg, model) {
		t.Fatal("ID is not stable")
	}
	edited := append([]schemas.Document(nil), groups["2024-03"]...)
	edited[0].Text += "!"
	other := model
	other.SHA256 = "def"
	cfg2 := cfg
	cfg2.Size = 800
	for name, got := range map[string]string{
		"edited document": mustID(t, "2024-03", edited, cfg, model),
		"other model":     mustID(t, "2024-03", groups["2024-03"], cfg, other),
		"other chunking":  mustID(t, "2024-03", groups["2024-03"], cfg2, model),
	} {
		if got == id {
			t.Errorf("%s kept the shard id", name)
		}
	}
}

func TestChunks(t *testing.T) {
	rows, trunc := Chunks(docs(), schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100})
	if trunc != 0 || len(rows) != 4 {
		t.Fatalf("%d rows, %d truncated", len(rows), trunc)
	}
	if rows[0].ChunkID != "b#0" || rows[2].ChunkID != "c#0" || rows[3].ChunkID != "c#1" || rows[3].Seq != 1 {
		t.Fatalf("ids: %s %s %s", rows[0].ChunkID, rows[2].ChunkID, rows[3].ChunkID)
	}
	if EmbedText(rows[0]) != "Rate. The key rate was raised to 16 percent." || EmbedText(rows[3]) != rows[3].Text {
		t.Fatalf("EmbedText: %q", EmbedText(rows[0]))
	}
	_, trunc = Chunks(docs(), schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100, MaxChunksPerDoc: 1})
	if trunc != 1 {
		t.Fatalf("truncated = %d, want 1", trunc)
	}
}

// TestIDVersions: the id hashes the cleaning version for every shard and the BM25 analysis
// version only for a shard with CJK documents. With both versions at 0 it is the id the code
// gave before either existed (so the versions are the only change), and each version that
// applies changes it: a shard built before is rebuilt by a rerun.
func TestIDVersions(t *testing.T) {
	_, groups := Group(docs(), "month")
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	model := schemas.ModelRef{ID: "e5-small-v2", SHA256: "abc", Dim: 384}
	withLang := func(lang string) []schemas.Document {
		return append(slices.Clone(groups["2024-03"]), schemas.Document{DocID: "z", PublishedAt: at("2024-03-06T10:00:00Z"), Text: "中国人民银行宣布下调存款准备金率", Lang: lang, Source: "x"})
	}
	tests := []struct {
		name    string
		period  string
		docs    []schemas.Document
		lexical int
		// before is the id the code before the versioning gave these documents.
		before string
	}{
		{"english and russian", "2024-03", groups["2024-03"], 0, "0f706f20447206809b6a44c5"},
		{"english only", "2024-04", groups["2024-04"], 0, "184c8633fd5b91b2d50f1bdd"},
		{"with a chinese document", "2024-03", withLang("zh"), 3, "2e9f00168d61a3a2d3d49253"},
		{"with a japanese document", "2024-03", withLang("ja"), 3, ""},
		{"with a zh-Hant document", "2024-03", withLang("zh-Hant"), 3, ""},
		{"with a spanish document", "2024-03", withLang("es"), 4, ""},
		{"with an italian document", "2024-03", withLang("it"), 4, ""},
	}
	hash := func(t *testing.T, docs []schemas.Document, period string, lex int) string {
		t.Helper()
		s, err := id(period, docs, cfg, model, lex)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if v := LexicalVersion(tt.docs); v != tt.lexical {
				t.Fatalf("LexicalVersion = %d, want %d", v, tt.lexical)
			}
			got := mustID(t, tt.period, tt.docs, cfg, model)
			if got != mustID(t, tt.period, tt.docs, cfg, model) {
				t.Fatal("ID is not stable")
			}
			if want := hash(t, tt.docs, tt.period, tt.lexical); got != want {
				t.Fatalf("ID = %s, want the hash with lexical %d, %s", got, tt.lexical, want)
			}
			if old := hash(t, tt.docs, tt.period, 0); tt.before != "" && old != tt.before {
				t.Fatalf("with no version the id is %s; before the versions it was %s", old, tt.before)
			}
			if noLex := hash(t, tt.docs, tt.period, 0); (got == noLex) != (tt.lexical == 0) {
				t.Fatalf("ID %s, without the lexical version %s: want equal only for a shard of English and Russian", got, noLex)
			}
		})
	}
}

// TestWriteRecordsLexicalVersion: meta.json carries the analysis version of a shard with CJK
// chunks, whose text is indexed as bigrams, and nothing new for an English and Russian one
// (the same Chinese text, labelled Russian, is indexed as single characters); every shard
// records the cleaning version.
func TestWriteRecordsLexicalVersion(t *testing.T) {
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	for _, tc := range []struct {
		name string
		lang string
		want int
	}{{"chinese", "zh", 3}, {"french", "fr", lexical.AnalysisVersion}, {"russian", "ru", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			g := []schemas.Document{{DocID: "a", PublishedAt: at("2024-03-05T10:00:00Z"), Text: "中国人民银行宣布下调存款准备金率", Lang: tc.lang, Source: "x"}}
			rows, _ := Chunks(g, cfg)
			vec := vecindex.New(3, "test-model")
			vec.Add([]float32{1, 0, 0})
			dir := filepath.Join(t.TempDir(), "s")
			meta, err := Write(dir, "2024-03", mustID(t, "2024-03", g, cfg, schemas.ModelRef{ID: "test-model"}), 1, rows, vec)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, MetaFile))
			if err != nil {
				t.Fatal(err)
			}
			if meta.Lexical != tc.want || bytes.Contains(data, []byte(`"lexical"`)) != (tc.want > 0) {
				t.Fatalf("meta.Lexical = %d, want %d; meta.json:\n%s", meta.Lexical, tc.want, data)
			}
			var onDisk struct{ Clean int }
			if err := json.Unmarshal(data, &onDisk); err != nil || meta.Clean != textnorm.CleanVersion || onDisk.Clean != textnorm.CleanVersion {
				t.Fatalf("meta.Clean = %d, want %d; meta.json:\n%s", meta.Clean, textnorm.CleanVersion, data)
			}
			x, err := OpenBM25(filepath.Join(dir, BM25File), filepath.Join(t.TempDir(), "bm25"))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			// Both characters are in the text, never side by side: single characters (the
			// Russian and French analyzers) match, bigrams do not.
			hits, err := x.Search("金存", 5, lexical.Window{})
			if want := tc.lang != "zh"; err != nil || (len(hits) == 1) != want {
				t.Fatalf("%q: %v hits, %v; want a hit: %v", "金存", hits, err, want)
			}
			if hits, err := x.Search("存款准备金", 5, lexical.Window{}); err != nil || len(hits) != 1 {
				t.Fatalf("%q: %v hits, %v", "存款准备金", hits, err)
			}
		})
	}
}

func TestWriteAndReadBack(t *testing.T) {
	_, groups := Group(docs(), "month")
	g := groups["2024-03"]
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	rows, _ := Chunks(g, cfg)
	vec := vecindex.New(3, "test-model")
	vec.Add([]float32{1, 0, 0})
	vec.Add([]float32{0, 1, 0})
	dir := t.TempDir()
	id := mustID(t, "2024-03", g, cfg, schemas.ModelRef{ID: "test-model"})
	meta, err := Write(filepath.Join(dir, "s"), "2024-03", id, len(g), rows, vec)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Chunks != 2 || meta.Docs != 2 || len(meta.Objects) != 4 || !meta.MinDate.Equal(at("2024-03-05T10:00:00Z")) {
		t.Fatalf("meta = %+v", meta)
	}
	if meta.Objects[0].Key != "shards/2024-03/"+id+"/chunks.parquet" || len(meta.Objects[0].SHA256) != 64 {
		t.Fatalf("object ref %+v", meta.Objects[0])
	}
	got, err := ReadChunks(filepath.Join(dir, "s", ChunksFile))
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("chunks round trip: %v\n got %+v\nwant %+v", err, got, rows)
	}
	v, err := ReadVectors(filepath.Join(dir, "s", VectorsFile))
	if err != nil || v.Count != 2 || v.Model != "test-model" {
		t.Fatalf("vectors: %+v %v", v, err)
	}
	if !HasInt8(meta) || !slices.Equal(Files(meta), []string{ChunksFile, VectorsFile, BM25File, Int8File}) {
		t.Fatalf("meta does not list the int8 codes: %+v", meta.Objects)
	}
	codes, err := ReadInt8(filepath.Join(dir, "s", Int8File), v)
	if want := vecindex.QuantizeInt8(v); err != nil || !slices.Equal(codes.Codes, want.Codes) || !slices.Equal(codes.Scales, want.Scales) {
		t.Fatalf("int8 codes: %+v %v, want %+v", codes, err, want)
	}
	x, err := OpenBM25(filepath.Join(dir, "s", BM25File), filepath.Join(dir, "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	hits, err := x.Search("ставка", 5, lexical.Window{})
	if err != nil || len(hits) != 1 || rows[hits[0].Row].DocID != "a" {
		t.Fatalf("bm25 hits %+v, %v", hits, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s", MetaFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(filepath.Join(dir, "t"), "2024-03", id, 2, rows, vecindex.New(3, "m")); err == nil {
		t.Fatal("Write accepted fewer vectors than chunks")
	}
}

// TestReadChunksKeepsTheCause: a damaged chunks.parquet fails with an error that still says
// why (errors.Is finds parquet's ErrCorrupted under ReadChunks' own words).
func TestReadChunksKeepsTheCause(t *testing.T) {
	_, groups := Group(docs(), "month")
	rows, _ := Chunks(groups["2024-03"], schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100})
	p := filepath.Join(t.TempDir(), ChunksFile)
	if err := writeChunks(p, rows); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	col := f.Metadata().RowGroups[0].Columns[0].MetaData
	data[col.DataPageOffset+col.TotalCompressedSize-1] ^= 0xff // the last byte of the first page
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadChunks(p); !errors.Is(err, parquet.ErrCorrupted) {
		t.Fatalf("err = %v, want parquet.ErrCorrupted in the chain", err)
	}
	// Not Parquet at all: an error, not a panic.
	if err := os.WriteFile(p, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadChunks(p); err == nil {
		t.Fatal("ReadChunks read a file that is not Parquet")
	}
}

// TestVerify: a shard folder passes only with the bytes its meta records; a damaged file is an
// ErrCorruptShard naming its key.
func TestVerify(t *testing.T) {
	_, groups := Group(docs(), "month")
	rows, _ := Chunks(groups["2024-03"], schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100})
	vec := vecindex.New(3, "test-model")
	vec.Add([]float32{1, 0, 0})
	vec.Add([]float32{0, 1, 0})
	tests := []struct {
		name   string
		file   string
		damage func([]byte) []byte
	}{
		{"intact", "", nil},
		{"vectors one byte changed", VectorsFile, func(b []byte) []byte { b[len(b)/2] ^= 0x80; return b }},
		{"bm25 truncated", BM25File, func(b []byte) []byte { return b[:len(b)-1] }},
		{"chunks one byte added", ChunksFile, func(b []byte) []byte { return append(b, 0) }},
		{"int8 codes one byte changed", Int8File, func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			meta, err := Write(dir, "2024-03", "sid", 2, rows, vec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.file != "" {
				p := filepath.Join(dir, tc.file)
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, tc.damage(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err = Verify(dir, meta)
			if tc.file == "" {
				if err != nil {
					t.Fatalf("intact shard: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), "shards/2024-03/sid/"+tc.file+" is damaged") {
				t.Fatalf("err = %v, want ErrCorruptShard naming %s", err, tc.file)
			}
		})
	}
}

func mustID(t *testing.T, period string, docs []schemas.Document, cfg schemas.ChunkConfig, model schemas.ModelRef) string {
	t.Helper()
	id, err := ID(period, docs, cfg, model)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestIDRefusesWhatJSONCannotEncode: a document whose JSON encoding fails is an error, not
// left out of the hash (which gave a shard and its edited copy the same id).
func TestIDRefusesWhatJSONCannotEncode(t *testing.T) {
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	model := schemas.ModelRef{ID: "e5-small-v2", SHA256: "abc", Dim: 384}
	weight := func(w float64) *float64 { return &w }
	tests := []struct {
		name    string
		weight  *float64
		date    time.Time
		wantErr bool
	}{
		{"no weight", nil, at("2024-03-05T10:00:00Z"), false},
		{"finite weight", weight(0.5), at("2024-03-05T10:00:00Z"), false},
		{"negative weight", weight(-2), at("2024-03-05T10:00:00Z"), false},
		{"NaN weight", weight(math.NaN()), at("2024-03-05T10:00:00Z"), true},
		{"+Inf weight", weight(math.Inf(1)), at("2024-03-05T10:00:00Z"), true},
		{"-Inf weight", weight(math.Inf(-1)), at("2024-03-05T10:00:00Z"), true},
		{"year 10000", nil, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs := []schemas.Document{{DocID: "a", PublishedAt: tc.date, Text: "original", SourceWeight: tc.weight}}
			edited := []schemas.Document{docs[0]}
			edited[0].Text = "edited"
			id1, err1 := ID("p", docs, cfg, model)
			id2, err2 := ID("p", edited, cfg, model)
			if tc.wantErr {
				if err1 == nil || err2 == nil || !strings.Contains(err1.Error(), `document "a"`) {
					t.Fatalf("ids %q, %q, errors %v, %v: want an error naming document a", id1, id2, err1, err2)
				}
				return
			}
			if err1 != nil || err2 != nil || id1 == id2 {
				t.Fatalf("ids %q, %q, errors %v, %v: want two ids", id1, id2, err1, err2)
			}
		})
	}
}

// TestShardWithoutInt8: a shard written before int8 codes (meta.json without vectors.i8, no
// file) verifies and lists only its three files; codes for other vectors are refused by
// ReadInt8 with vecindex.ErrFormat naming the file.
func TestShardWithoutInt8(t *testing.T) {
	_, groups := Group(docs(), "month")
	rows, _ := Chunks(groups["2024-03"], schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100})
	vec := vecindex.New(3, "test-model")
	vec.Add([]float32{1, 0, 0})
	vec.Add([]float32{0, 1, 0})
	dir := filepath.Join(t.TempDir(), "s")
	meta, err := Write(dir, "2024-03", "sid", 2, rows, vec)
	if err != nil {
		t.Fatal(err)
	}
	old := stripInt8(t, dir, meta)
	if HasInt8(old) || !slices.Equal(Files(old), []string{ChunksFile, VectorsFile, BM25File}) {
		t.Fatalf("old meta: HasInt8 %v, Files %v", HasInt8(old), Files(old))
	}
	if err := Verify(dir, old); err != nil {
		t.Fatalf("old shard: %v", err)
	}
	if err := Verify(dir, meta); err == nil {
		t.Fatal("Verify passed a meta that lists a missing vectors.i8")
	}

	other := vecindex.New(3, "test-model")
	other.Add([]float32{1, 0, 0})
	p := filepath.Join(t.TempDir(), Int8File)
	if err := writeTo(p, vecindex.QuantizeInt8(other)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInt8(p, vec); !errors.Is(err, vecindex.ErrFormat) || !strings.Contains(err.Error(), p) {
		t.Fatalf("codes of 1 vector for 2: err = %v, want vecindex.ErrFormat naming the file", err)
	}
}

// stripInt8 makes the shard in dir one written before int8 codes: no vectors.i8, and a
// meta.json (returned) that does not list it.
func stripInt8(t *testing.T, dir string, meta schemas.ShardMeta) schemas.ShardMeta {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, Int8File)); err != nil {
		t.Fatal(err)
	}
	old := meta
	old.Objects = slices.DeleteFunc(slices.Clone(meta.Objects), func(o schemas.ObjectRef) bool { return strings.HasSuffix(o.Key, "/"+Int8File) })
	data, _ := json.MarshalIndent(old, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, MetaFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return old
}
