package lexical

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkSearchTop10 is the side-by-side with bm25s (bench/bm25_peer.py, `make bench`): the
// first 10,000 realtimeqa articles (title + "\n" + text) in one shard, and the first 200
// question strings of questions.parquet, each searched for its top 10 with no date window
// (bm25s has none). It reports ms/query over the 200 questions (after one warm-up pass), the
// process's CPU time per query (cpu-ms/query: user + system, all threads, garbage collection
// included; steadier than wall time on a shared machine) and the build rate (build-docs/s). ASOF_BENCH_BM25=FILE also writes the documents and queries as
// JSON ({"docs": [...], "queries": [...]}) for the peer: the same texts on both sides. Skipped
// without ../shared/data.
func BenchmarkSearchTop10(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "shared", "data", "realtimeqa")
	type doc struct {
		Title       string    `parquet:"title"`
		Text        string    `parquet:"text"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
	}
	type question struct {
		Question string `parquet:"question"`
	}
	rows, err := parquet.ReadFile[doc](filepath.Join(dir, "docs.parquet"))
	if err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	qs, err := parquet.ReadFile[question](filepath.Join(dir, "questions.parquet"))
	if err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	rows, qs = rows[:min(10000, len(rows))], qs[:min(200, len(qs))]
	docs := make([]Doc, len(rows))
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Title + "\n" + r.Text
		docs[i] = Doc{Row: i, Text: texts[i], Lang: "en", PublishedAt: r.PublishedAt}
	}
	queries := make([]string, len(qs))
	for i, q := range qs {
		queries[i] = q.Question
	}
	if p := os.Getenv("ASOF_BENCH_BM25"); p != "" {
		data, err := json.Marshal(map[string][]string{"docs": texts, "queries": queries})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	began := time.Now()
	x := build(b, docs)
	built := time.Since(began)
	for _, q := range queries { // warm up: every query once
		if _, err := x.Search(q, 10, Window{}); err != nil {
			b.Fatal(err)
		}
	}
	cpu0 := cpuTime(b)
	n := 0
	for b.Loop() {
		if _, err := x.Search(queries[n%len(queries)], 10, Window{}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(n), "ms/query")
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()*1e3/float64(n), "cpu-ms/query")
	b.ReportMetric(float64(len(docs))/built.Seconds(), "build-docs/s")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchMonthlyShards: the first 200 realtimeqa questions, each with its as-of window
// of 365 days, over the first 10,000 articles in monthly shards, top 500, searching the shards
// that hold articles of the window (as internal/retrieve does): collection statistics
// (SearchAll), the same with the union cardinalities counted afresh every query (uncached),
// and per-shard document frequencies (shardDF, SearchAll before); wall and process CPU time
// per query (see BenchmarkSearchTop10). Skipped without ../shared/data.
func BenchmarkSearchMonthlyShards(b *testing.B) {
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
		b.Skipf("shared data absent: %v", err)
	}
	qs, err := parquet.ReadFile[question](filepath.Join(dir, "questions.parquet"))
	if err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	rows, qs = rows[:min(10000, len(rows))], qs[:min(200, len(qs))]
	byMonth := map[string][]Doc{}
	for _, r := range rows {
		k := r.PublishedAt.UTC().Format("2006-01")
		byMonth[k] = append(byMonth[k], Doc{Row: len(byMonth[k]), Text: r.Title + "\n" + r.Text, Lang: "en", PublishedAt: r.PublishedAt})
	}
	type shard struct {
		x        *Index
		min, max time.Time
	}
	var shards []shard
	for _, k := range slices.Sorted(maps.Keys(byMonth)) {
		s := shard{x: build(b, byMonth[k]), min: byMonth[k][0].PublishedAt, max: byMonth[k][0].PublishedAt}
		for _, d := range byMonth[k] {
			s.min, s.max = minTime(s.min, d.PublishedAt), maxTime(s.max, d.PublishedAt)
		}
		shards = append(shards, s)
	}
	type search struct {
		q  string
		w  Window
		xs []*Index
	}
	var searches []search
	live := 0
	for _, q := range qs {
		w := asOfWindow(365)(q.QuestionDate)
		s := search{q: q.Question, w: w}
		for _, sh := range shards {
			if !sh.max.Before(w.From) && !sh.min.After(w.To) {
				s.xs = append(s.xs, sh.x)
			}
		}
		live += len(s.xs)
		searches = append(searches, s)
	}
	for _, bc := range []struct {
		name     string
		scope    dfScope
		uncached bool
	}{{"collection", collectionDF, false}, {"collection uncached", collectionDF, true}, {"per-shard", shardDF, false}} {
		b.Run(bc.name, func(b *testing.B) {
			n := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				s := searches[n%len(searches)]
				if bc.uncached {
					unionCards.Lock()
					clear(unionCards.m)
					unionCards.Unlock()
				}
				if _, err := searchAll(s.xs, s.q, 500, s.w, bc.scope); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(n), "ms/query")
			b.ReportMetric((cpuTime(b)-cpu0).Seconds()*1e3/float64(n), "cpu-ms/query")
			b.ReportMetric(float64(live)/float64(len(searches)), "shards/query")
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
