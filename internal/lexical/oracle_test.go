package lexical

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/parquet-go/parquet-go"
)

// bleveRequest is the query as bleve ran it before score.go: both language fields, the
// window as a conjunction with a date range, ties by id.
func bleveRequest(q string, k int, w Window) *bleve.SearchRequest {
	mEN := bleve.NewMatchQuery(q)
	mEN.SetField("text_en")
	mEN.Analyzer = en.AnalyzerName
	mRU := bleve.NewMatchQuery(q)
	mRU.SetField("text_ru")
	mRU.Analyzer = ru.AnalyzerName
	var qq query.Query = bleve.NewDisjunctionQuery(mEN, mRU)
	if !w.From.IsZero() || !w.To.IsZero() {
		incl := true
		dr := bleve.NewDateRangeInclusiveQuery(w.From.UTC(), w.To.UTC(), &incl, &incl)
		dr.SetField("published_at")
		qq = bleve.NewConjunctionQuery(qq, dr)
	}
	req := bleve.NewSearchRequestOptions(qq, k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	return req
}

// bleveSearchAll is the oracle: bleve's own search, through an index alias with global
// scoring for several shards, as SearchAll ran before score.go.
func bleveSearchAll(t testing.TB, indexes []*Index, q string, k int, w Window) []ShardHit {
	t.Helper()
	byName := map[string]int{}
	var members []bleve.Index
	for i, x := range indexes {
		name := fmt.Sprintf("shard-%d-%p", i, x)
		x.idx.SetName(name)
		byName[name] = i
		members = append(members, x.idx)
	}
	var res *bleve.SearchResult
	var err error
	if len(indexes) == 1 {
		res, err = indexes[0].idx.Search(bleveRequest(q, k, w))
	} else {
		alias := bleve.NewIndexAlias(members...)
		if err := alias.SetIndexMapping(newMapping()); err != nil {
			t.Fatal(err)
		}
		ctx := context.WithValue(context.Background(), search.SearchTypeKey, search.GlobalScoring)
		res, err = alias.SearchInContext(ctx, bleveRequest(q, k, w))
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []ShardHit
	for _, h := range res.Hits {
		row, err := strconv.Atoi(h.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ShardHit{Shard: byName[h.Index], Row: row, Score: h.Score})
	}
	return out
}

// sameRanking reports how got differs from want, bleve's top k (wider is bleve's top k+20): the
// same scores rank by rank, to 1e-9 (relative), and every hit of got is a document bleve
// ranks near there with the same score. Where the documents at a rank differ, they tie in exact
// arithmetic and the last bits break the tie one way or the other (bleve sums a document's
// clause scores in another order), also at the cut after rank k (duplicate chunks in real
// shards).
func sameRanking(got, want, wider []ShardHit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	score := map[[2]int]float64{}
	for _, h := range wider {
		score[[2]int{h.Shard, h.Row}] = h.Score
	}
	for i := range got {
		if !near(got[i].Score, want[i].Score) {
			return fmt.Errorf("rank %d: score %v, want %v (%+v vs %+v)", i, got[i].Score, want[i].Score, got[i], want[i])
		}
		if s, ok := score[[2]int{got[i].Shard, got[i].Row}]; !ok || !near(s, got[i].Score) {
			return fmt.Errorf("rank %d: %+v, which bleve scores %v (ranked: %v)", i, got[i], s, ok)
		}
	}
	return nil
}

// syntheticDocs are n documents in both languages over a small vocabulary (many shared terms,
// repeated words, duplicate texts), published over two years.
func syntheticDocs(seed uint64, n int) []Doc {
	enWords := strings.Fields("bank rate inflation report central key raise cut market price oil gas election vote minister war peace trade deal court ruling")
	ruWords := strings.Fields("банк ставка инфляция отчёт центральный ключевой рынок цена нефть газ выборы министр война мир торговля сделка суд решение")
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := make([]Doc, n)
	for i := range docs {
		lang, words := "en", enWords
		if rng.IntN(4) == 0 {
			lang, words = "ru", ruWords
		}
		var b strings.Builder
		for range 3 + rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		text := b.String()
		if i > 0 && rng.IntN(20) == 0 { // a duplicate: equal scores, ties by row
			text, lang = docs[i-1].Text, docs[i-1].Lang
		}
		docs[i] = Doc{Row: i, Text: text, Lang: lang, PublishedAt: day(2022, 1, 1).Add(time.Duration(rng.IntN(730*24))*time.Hour + time.Duration(rng.IntN(100)))}
	}
	return docs
}

// TestSearchMatchesBleve: the term-at-a-time scorer ranks as bleve's own search does, on one
// shard and on several searched as one, in English, Russian and mixed queries, with repeated
// words and tied documents, without a window and with windows closed, open at either end,
// empty, one nanosecond wide and with bounds at odd nanoseconds (where the date range scores
// too, through terms of every precision).
func TestSearchMatchesBleve(t *testing.T) {
	docs := syntheticDocs(3, 3000)
	one := build(t, docs)
	var parts []*Index
	for i := 0; i < 3; i++ {
		var part []Doc
		for _, d := range docs[i*1000 : (i+1)*1000] {
			d.Row -= i * 1000
			part = append(part, d)
		}
		parts = append(parts, build(t, part))
	}
	queries := []string{
		"bank rate", "inflation report inflation", "the central bank raised its key rate", "ставка банк",
		"ключевая ставка инфляция", "oil банк war", "deal", "court ruling on the trade deal minister vote",
		"nothingmatches", "the of and",
	}
	windows := []Window{
		{From: day(2022, 6, 1), To: day(2023, 3, 31)},
		{To: day(2022, 8, 17).Add(24*time.Hour - 1)},
		{From: day(2023, 5, 2).Add(13 * time.Hour)},
		{From: day(2030, 1, 1)},
		{From: docs[7].PublishedAt.Add(-3), To: docs[1900].PublishedAt.Add(5)}, // odd nanoseconds: the finest date terms
		{From: docs[7].PublishedAt, To: docs[7].PublishedAt},
	}
	for _, q := range queries {
		for _, tc := range []struct {
			name    string
			indexes []*Index
		}{{"one shard", []*Index{one}}, {"three shards", parts}} {
			t.Run(tc.name+"/"+q, func(t *testing.T) {
				for _, k := range []int{1, 10, 100} {
					got, err := SearchAll(tc.indexes, q, k, Window{})
					if err != nil {
						t.Fatal(err)
					}
					if err := sameRanking(got, bleveSearchAll(t, tc.indexes, q, k, Window{}), bleveSearchAll(t, tc.indexes, q, k+20, Window{})); err != nil {
						t.Fatalf("k=%d: %v", k, err)
					}
				}
				for _, w := range windows {
					for _, k := range []int{10, 5000} {
						got, err := SearchAll(tc.indexes, q, k, w)
						if err != nil {
							t.Fatal(err)
						}
						if err := sameRanking(got, bleveSearchAll(t, tc.indexes, q, k, w), bleveSearchAll(t, tc.indexes, q, k+20, w)); err != nil {
							t.Fatalf("window %v, k=%d: %v", w, k, err)
						}
					}
				}
			})
		}
	}
}

// hitRows is hits' (shard, row) pairs in order.
func hitRows(hits []ShardHit) [][2]int {
	var out [][2]int
	for _, h := range hits {
		out = append(out, [2]int{h.Shard, h.Row})
	}
	return out
}

// TestSearchMatchesBleveRealtimeQA: the top 10 of the first 200 realtimeqa questions over the
// first 10,000 articles (BenchmarkSearchTop10's data; 2,000 under the race detector) are bleve's, without a window and with
// each question's as-of window (published up to the end of its day). Skipped without
// ../shared/data.
func TestSearchMatchesBleveRealtimeQA(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-article index")
	}
	dir := filepath.Join("..", "..", "..", "shared", "data", "realtimeqa")
	type doc struct {
		Title       string    `parquet:"title"`
		Text        string    `parquet:"text"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
	}
	type question struct {
		QuestionDate time.Time `parquet:"question_date,timestamp(millisecond)"`
		Question     string    `parquet:"question"`
	}
	rows, err := parquet.ReadFile[doc](filepath.Join(dir, "docs.parquet"))
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	qs, err := parquet.ReadFile[question](filepath.Join(dir, "questions.parquet"))
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	n := 10000
	if raceEnabled {
		n = 2000
	}
	rows, qs = rows[:min(n, len(rows))], qs[:min(200, len(qs))]
	docs := make([]Doc, len(rows))
	for i, r := range rows {
		docs[i] = Doc{Row: i, Text: r.Title + "\n" + r.Text, Lang: "en", PublishedAt: r.PublishedAt}
	}
	x := build(t, docs)
	t.Logf("%d articles, %d segments", len(docs), len(x.r.segs))
	for _, name := range []string{"no window", "as-of window"} {
		swaps, bits := 0, 0
		for _, q := range qs {
			w := Window{}
			if name == "as-of window" {
				w.To = q.QuestionDate.UTC().Truncate(24 * time.Hour).Add(24*time.Hour - 1)
			}
			got, err := SearchAll([]*Index{x}, q.Question, 10, w)
			if err != nil {
				t.Fatal(err)
			}
			want := bleveSearchAll(t, []*Index{x}, q.Question, 10, w)
			if err := sameRanking(got, want, bleveSearchAll(t, []*Index{x}, q.Question, 30, w)); err != nil {
				t.Errorf("%s, %q: %v", name, q.Question, err)
			}
			if fmt.Sprint(hitRows(got)) != fmt.Sprint(hitRows(want)) {
				swaps++
			} else if fmt.Sprint(got) != fmt.Sprint(want) {
				bits++
			}
		}
		t.Logf("%s: of %d top-10 lists, %d order equal scores differently, %d differ in a score's last bits only", name, len(qs), swaps, bits)
	}
}

// TestSearchConcurrent: searches running at once on the same shards (each with its own pooled
// scratch and dictionaries) return what they return alone.
func TestSearchConcurrent(t *testing.T) {
	docs := syntheticDocs(5, 2000)
	a, b := build(t, docs[:1000]), build(t, docs[1000:])
	queries := []string{"bank rate", "ставка банк", "oil war deal", "inflation report minister", "суд решение court"}
	want := make([]string, len(queries))
	for i, q := range queries {
		hits, err := SearchAll([]*Index{a, b}, q, 20, Window{To: day(2023, 1, 1)})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fmt.Sprint(hits)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for n := range 50 {
				i := (g + n) % len(queries)
				hits, err := SearchAll([]*Index{a, b}, queries[i], 20, Window{To: day(2023, 1, 1)})
				if err == nil && fmt.Sprint(hits) != want[i] {
					err = fmt.Errorf("%q: concurrent %v, alone %s", queries[i], hits, want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSearchMatchesBleveOnShards opens shards built by an index run (ASOF_TEST_BM25_DIRS: a
// glob of unzipped bm25 folders) and checks every realtimeqa question's top 10 over them as
// one (and over the first alone) against bleve's own search, without a window and with the
// question's as-of window. Skipped when unset.
func TestSearchMatchesBleveOnShards(t *testing.T) {
	glob := os.Getenv("ASOF_TEST_BM25_DIRS")
	if glob == "" {
		t.Skip("ASOF_TEST_BM25_DIRS not set")
	}
	dirs, err := filepath.Glob(glob)
	if err != nil || len(dirs) == 0 {
		t.Fatalf("ASOF_TEST_BM25_DIRS %q: %v, %d folders", glob, err, len(dirs))
	}
	var xs []*Index
	for _, d := range dirs {
		x, err := Open(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		xs = append(xs, x)
	}
	type question struct {
		QuestionDate time.Time `parquet:"question_date,timestamp(millisecond)"`
		Question     string    `parquet:"question"`
	}
	qs, err := parquet.ReadFile[question](filepath.Join("..", "..", "..", "shared", "data", "realtimeqa", "questions.parquet"))
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	n := 0
	for _, q := range qs[:min(300, len(qs))] {
		for _, w := range []Window{{}, {To: q.QuestionDate.UTC().Truncate(24 * time.Hour).Add(24*time.Hour - 1)}} {
			for _, set := range [][]*Index{xs, xs[:1]} {
				got, err := SearchAll(set, q.Question, 10, w)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameRanking(got, bleveSearchAll(t, set, q.Question, 10, w), bleveSearchAll(t, set, q.Question, 30, w)); err != nil {
					t.Fatalf("%q, window %v, %d shards: %v", q.Question, w, len(set), err)
				}
				n++
			}
		}
	}
	t.Logf("%d shards: %d searches rank as bleve's", len(xs), n)
}
