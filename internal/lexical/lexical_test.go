package lexical

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func build(t testing.TB, docs []Doc) *Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bm25")
	if err := Build(dir, docs); err != nil {
		t.Fatal(err)
	}
	if err := Build(dir, docs); err == nil {
		t.Fatal("Build over an existing index succeeded")
	}
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

var corpus = []Doc{
	{0, "The Bank of Russia raised the key rate to 16 percent.", "en", day(2023, 12, 15)},
	{1, "Football results from the weekend.", "en", day(2023, 12, 16)},
	{2, "Банк России повысил ключевую ставку до 16%.", "ru", day(2023, 12, 15)},
	{3, "ЦБ сохранил ключевую ставку на уровне 21%.", "ru", day(2025, 2, 14)},
	{4, "Central bank rates: the key rate was raised again and again.", "en", day(2024, 7, 26)},
}

func rows(hits []Hit) []int {
	var r []int
	for _, h := range hits {
		r = append(r, h.Row)
	}
	return r
}

func TestSearchLanguages(t *testing.T) {
	x := build(t, corpus)
	tests := []struct {
		name string
		q    string
		w    Window
		want []int
	}{
		{"english stems", "raising key rates", Window{}, []int{4, 0}},
		{"russian stems", "ключевая ставка", Window{}, []int{2, 3}},
		{"window excludes the future", "key rate", Window{To: day(2023, 12, 31)}, []int{0}},
		{"window from", "ключевую ставку", Window{From: day(2024, 1, 1)}, []int{3}},
		{"inclusive day bounds", "key rate", Window{From: day(2023, 12, 15), To: day(2023, 12, 15)}, []int{0}},
		{"nothing in window", "key rate", Window{From: day(2020, 1, 1), To: day(2020, 12, 31)}, nil},
		{"no match", "quantum chromodynamics", Window{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := x.Search(tt.q, 10, tt.w)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rows(hits)) != fmt.Sprint(tt.want) {
				t.Fatalf("Search(%q) = %v, want %v", tt.q, rows(hits), tt.want)
			}
		})
	}
	if _, err := x.Search("", 5, Window{}); !errors.Is(err, ErrEmptyQuery) {
		t.Fatalf("empty query: err = %v", err)
	}
}

// TestSearchCJK: Chinese, Japanese and Korean chunks are found through CJK bigrams, beside
// English and Russian ones, with the window applied.
func TestSearchCJK(t *testing.T) {
	x := build(t, append(slices.Clone(corpus),
		Doc{5, "中国人民银行宣布下调存款准备金率0.5个百分点", "zh", day(2024, 2, 5)},
		Doc{6, "央行维持贷款市场报价利率不变", "zh", day(2024, 3, 20)},
		Doc{7, "日本銀行は政策金利を引き上げた", "ja", day(2024, 3, 19)},
		Doc{8, "한국은행이 기준금리를 동결했다", "ko", day(2024, 2, 22)},
		Doc{9, "人民银行", "zh-CN", day(2024, 1, 2)},
	))
	tests := []struct {
		name string
		q    string
		w    Window
		want []int
	}{
		{"chinese bigrams", "存款准备金率", Window{}, []int{5}},
		{"chinese word in a longer text", "利率", Window{}, []int{6}},
		{"chinese query, two matching texts", "人民银行宣布", Window{}, []int{5, 9}},
		{"chinese window", "人民银行", Window{From: day(2024, 2, 1)}, []int{5}},
		{"a lone character matches no bigram", "率", Window{}, nil},
		{"japanese", "政策金利", Window{}, []int{7}},
		{"korean word with its particle", "기준금리를", Window{}, []int{8}},
		{"korean word without its particle: bleve's tokenizer does not bigram Hangul", "기준금리", Window{}, nil},
		{"english still stems", "raising key rates", Window{}, []int{4, 0}},
		{"russian still stems", "ключевая ставка", Window{}, []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := x.Search(tt.q, 10, tt.w)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rows(hits)) != fmt.Sprint(tt.want) {
				t.Fatalf("Search(%q) = %v, want %v", tt.q, rows(hits), tt.want)
			}
		})
	}
}

// TestUnionCount: distinct values over sorted lists, against a map.
func TestUnionCount(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]uint64
	}{
		{"none", nil},
		{"empty lists", [][]uint64{{}, nil}},
		{"one list", [][]uint64{{1, 5, 9}}},
		{"disjoint", [][]uint64{{1, 3}, {2, 4}, {5}}},
		{"overlapping", [][]uint64{{1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {}}},
		{"equal", [][]uint64{{7, 8}, {7, 8}}},
		{"extremes", [][]uint64{{0, 1 << 63, ^uint64(0)}, {0, ^uint64(0)}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var random [][]uint64
	for range 40 {
		var l []uint64
		for range rng.IntN(300) {
			l = append(l, rng.Uint64N(2000))
		}
		slices.Sort(l)
		random = append(random, slices.Compact(l))
	}
	tests = append(tests, struct {
		name  string
		lists [][]uint64
	}{"random", random})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[uint64]bool{}
			for _, l := range tt.lists {
				for _, v := range l {
					seen[v] = true
				}
			}
			if got := unionCount(tt.lists); got != len(seen) {
				t.Fatalf("unionCount = %d, want %d", got, len(seen))
			}
		})
	}
}

// TestWindowNeverLeaks indexes random dated documents that all match and checks that no hit
// falls outside a random window, whatever k is.
func TestWindowNeverLeaks(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{Row: i, Text: "inflation report " + fmt.Sprint(rng.IntN(5)), Lang: "en", PublishedAt: day(2020, 1, 1).AddDate(0, 0, rng.IntN(1500))})
	}
	x := build(t, docs)
	for iter := range 50 {
		from := day(2020, 1, 1).AddDate(0, 0, rng.IntN(1500))
		to := from.AddDate(0, 0, rng.IntN(120))
		want := 0
		for _, d := range docs {
			if !d.PublishedAt.Before(from) && !d.PublishedAt.After(to) {
				want++
			}
		}
		hits, err := x.Search("inflation", 500, Window{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Fatalf("iter %d: %d hits, %d documents in the window", iter, len(hits), want)
		}
		for _, h := range hits {
			if p := docs[h.Row].PublishedAt; p.Before(from) || p.After(to) {
				t.Fatalf("iter %d: row %d published %s outside [%s, %s]", iter, h.Row, p, from, to)
			}
		}
	}
}

// TestSearchAllMergesShards: several shards searched as one return one merged, deterministic
// ranking, the window applies in every shard, and scores use the collection's statistics: the
// same text scores the same in a shard where the query's terms are common and in one where
// they are rare (with per-shard document frequencies the rare shard's copy scored higher).
func TestSearchAllMergesShards(t *testing.T) {
	common := day(2024, 1, 10)
	a := build(t, []Doc{
		{0, "inflation report for the quarter", "en", common},
		{1, "inflation again", "en", common},
		{2, "inflation and rates", "en", common},
		{3, "inflation expectations", "en", common},
	})
	b := build(t, []Doc{
		{0, "inflation report for the quarter", "en", day(2024, 2, 10)},
		{1, "football results", "en", day(2024, 2, 11)},
		{2, "weather today", "en", day(2024, 2, 12)},
	})
	hits, err := SearchAll([]*Index{a, b}, "inflation report", 10, Window{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SearchAll([]*Index{a, b}, "inflation report", 10, Window{})
	if fmt.Sprint(hits) != fmt.Sprint(again) {
		t.Fatalf("two runs differ:\n%v\n%v", hits, again)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("not sorted by score: %+v", hits)
		}
	}
	if hits[0].Row != 0 || hits[1].Row != 0 || hits[0].Shard == hits[1].Shard {
		t.Fatalf("the two 'inflation report' texts should lead, one per shard: %+v", hits)
	}
	if hits[0].Score != hits[1].Score || hits[0].Shard != 0 {
		t.Fatalf("the same text scores differently by shard: %+v", hits[:2])
	}
	old, err := searchAll([]*Index{a, b}, "inflation report", 10, Window{}, shardDF)
	if err != nil {
		t.Fatal(err)
	}
	if old[0].Shard != 1 || old[0].Score <= old[1].Score {
		t.Fatalf("per-shard document frequencies: the rare shard's copy should lead: %+v", old[:2])
	}
	if len(hits) != 5 {
		t.Fatalf("got %d hits, want the 5 inflation documents", len(hits))
	}
	// The window applies across shards too.
	w := Window{From: day(2024, 2, 1), To: day(2024, 2, 28)}
	hits, err = SearchAll([]*Index{a, b}, "inflation", 10, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Shard != 1 {
		t.Fatalf("window February: %+v, want only shard 1's row", hits)
	}
	if _, err := SearchAll([]*Index{a, b}, "", 10, Window{}); !errors.Is(err, ErrEmptyQuery) {
		t.Fatalf("empty query: %v", err)
	}
}

// BenchmarkSearchRealtimeQA: one BM25 query with an as-of date range over a shard of the first
// 10,000 realtimeqa articles (skipped without ../shared/data).
func BenchmarkSearchRealtimeQA(b *testing.B) {
	src := filepath.Join("..", "..", "..", "shared", "data", "realtimeqa", "docs.parquet")
	type doc struct {
		Title       string    `parquet:"title"`
		Text        string    `parquet:"text"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
	}
	rows, err := parquet.ReadFile[doc](src)
	if err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	rows = rows[:min(10000, len(rows))]
	docs := make([]Doc, len(rows))
	for i, r := range rows {
		docs[i] = Doc{Row: i, Text: r.Title + "\n" + r.Text, Lang: "en", PublishedAt: r.PublishedAt}
	}
	x := build(b, docs)
	w := Window{From: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)}
	for b.Loop() {
		if _, err := x.Search("Rishi Sunak Brexit deal European Union", 500, w); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMappingOnlyNamesTheLanguagesItHolds: a shard of English and Russian text is written with
// the mapping binaries before AnalysisVersion 4 open (no Spanish, French or Italian analyzer
// named); a shard with Spanish text names the Spanish field only.
func TestMappingOnlyNamesTheLanguagesItHolds(t *testing.T) {
	at := time.Date(2011, 2, 17, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		docs  []Doc
		names []string
		not   []string
	}{
		{"english and russian", []Doc{{Row: 0, Text: "rebels took the city", Lang: "en", PublishedAt: at}, {Row: 1, Text: "повстанцы взяли город", Lang: "ru", PublishedAt: at}},
			nil, []string{"text_es", "text_fr", "text_it"}},
		{"spanish", []Doc{{Row: 0, Text: "los rebeldes tomaron la ciudad", Lang: "es", PublishedAt: at}},
			[]string{"text_es"}, []string{"text_fr", "text_it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bm25")
			if err := Build(dir, c.docs); err != nil {
				t.Fatal(err)
			}
			x, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			meta, err := json.Marshal(x.idx.Mapping())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range c.names {
				if !bytes.Contains(meta, []byte(n)) {
					t.Errorf("the mapping lacks %s", n)
				}
			}
			for _, n := range c.not {
				if bytes.Contains(meta, []byte(n)) {
					t.Errorf("the mapping names %s", n)
				}
			}
		})
	}
}
