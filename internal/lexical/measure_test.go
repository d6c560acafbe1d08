package lexical_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// TestMeasureBM25Statistics measures what collection statistics change in asof's BM25 branch,
// with no embedding model: the public sets indexed as asof indexes them (corpus loader,
// internal/chunk's default chunking, the shard's BM25 text), each question searched over the
// shards holding chunks of its as-of window (published up to the end of its day, 365 days
// back: what internal/retrieve searches), top 100 chunks scored by internal/eval, with
// per-shard document frequencies (SearchAll before) and collection statistics (SearchAll
// now), in monthly and yearly shards. realtimeqa: the 785 judged questions, nDCG@10 over all
// of them and over the 632 with a grade-2 article, MRR, Recall@10. ru-xquad-r: the 1,190
// Russian questions, Recall@10 and MRR, in the one shard asof makes of it (every sentence is
// dated 2020-01-01) and cut by article (48 shards), and with the English analyzer for
// comparison. Set ASOF_MEASURE_BM25=1 to run it (a few minutes on 2 cores); skipped without
// ../shared/data.
func TestMeasureBM25Statistics(t *testing.T) {
	if os.Getenv("ASOF_MEASURE_BM25") == "" {
		t.Skip("set ASOF_MEASURE_BM25=1 to measure BM25 statistics on the public sets")
	}
	data := filepath.Join("..", "..", "..", "shared", "data")
	t.Run("realtimeqa", func(t *testing.T) {
		dir := filepath.Join(data, "realtimeqa")
		docs := loadDocs(t, filepath.Join(dir, "docs.parquet"))
		qs, judged := loadQuestions(t, dir)
		var rows []string
		for _, unit := range []string{"month", "year"} {
			_, groups := shard.Group(docs, unit)
			set := buildSet(t, unit, byPeriod(groups), nil)
			for _, sc := range scopes {
				rows = append(rows, set.measure(t, sc, qs, judged))
			}
		}
		t.Logf("realtimeqa, %d documents, %d judged questions:\n%s\n%s", len(docs), len(qs), header, strings.Join(rows, "\n"))
	})
	t.Run("ru-xquad-r", func(t *testing.T) {
		dir := filepath.Join(data, "ru-xquad-r")
		docs := loadDocs(t, filepath.Join(dir, "docs.parquet"))
		qs, judged := loadQuestions(t, dir)
		langs := map[string]int{}
		for _, d := range docs {
			langs[d.Lang]++
		}
		_, months := shard.Group(docs, "month")
		articles := map[string][]schemas.Document{}
		for _, d := range docs { // doc_id ru-AA-PP-SS: article AA
			parts := strings.SplitN(d.DocID, "-", 3)
			articles[parts[1]] = append(articles[parts[1]], d)
		}
		english := func(c *schemas.Chunk) { c.Lang = "en" }
		var rows []string
		for _, set := range []*shardSet{
			buildSet(t, "month (one shard)", byPeriod(months), nil),
			buildSet(t, "article", byPeriod(articles), nil),
			buildSet(t, "month, English analyzer", byPeriod(months), english),
		} {
			for _, sc := range scopes {
				rows = append(rows, set.measure(t, sc, qs, judged))
			}
		}
		t.Logf("ru-xquad-r, %d sentences (languages detected %v), %d questions:\n%s\n%s", len(docs), langs, len(qs), header, strings.Join(rows, "\n"))
	})
}

// header is the table's head.
const header = "| shards | document frequencies | shards/query | nDCG@10 | nDCG@10 grade-2 | MRR | R@10 | leaked | ms/query |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"

// scope is one way to search a question's shards.
type scope struct {
	name   string
	search func([]*lexical.Index, string, int, lexical.Window) ([]lexical.ShardHit, error)
}

var scopes = []scope{
	{"per shard (before)", lexical.SearchAllPerShard},
	{"collection (now)", lexical.SearchAll},
}

// loadDocs reads a docs.parquet as asof's corpus loader does (cleaned text, detected language).
func loadDocs(t *testing.T, path string) []schemas.Document {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	l := corpus.NewLoader(corpus.Options{})
	var docs []schemas.Document
	err = l.ReadFile(context.Background(), f, st.Size(), path,
		func(d schemas.Document) error { docs = append(docs, d); return nil },
		func(q schemas.QuarantineRow) error { return fmt.Errorf("quarantined: %+v", q) })
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// loadQuestions reads the questions with a judgment and their judgments.
func loadQuestions(t *testing.T, dir string) ([]schemas.EvalQuestion, map[string][]eval.Judged) {
	t.Helper()
	type qrel struct {
		QuestionID string `parquet:"question_id"`
		DocID      string `parquet:"doc_id"`
		Grade      int64  `parquet:"grade"`
	}
	qrels, err := parquet.ReadFile[qrel](filepath.Join(dir, "qrels.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string][]eval.Judged{}
	for _, r := range qrels {
		judged[r.QuestionID] = append(judged[r.QuestionID], eval.Judged{DocID: r.DocID, Grade: int(r.Grade)})
	}
	all, err := parquet.ReadFile[schemas.EvalQuestion](filepath.Join(dir, "questions.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []schemas.EvalQuestion
	for _, q := range all {
		if judged[q.QuestionID] != nil {
			qs = append(qs, q)
		}
	}
	return qs, judged
}

// byPeriod lists groups in key order.
func byPeriod(groups map[string][]schemas.Document) [][]schemas.Document {
	var out [][]schemas.Document
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		out = append(out, groups[k])
	}
	return out
}

// shardSet is a corpus cut into BM25 shards.
type shardSet struct {
	name   string
	shards []builtShard
}

// builtShard is one shard's BM25 index, its chunks and their sorted publication times.
type builtShard struct {
	x      *lexical.Index
	chunks []schemas.Chunk
	dates  []time.Time
}

// buildSet chunks each group with internal/chunk's defaults and builds its BM25 index from the
// text asof indexes (shard.EmbedText); relabel, when set, changes a chunk before indexing.
func buildSet(t *testing.T, name string, groups [][]schemas.Document, relabel func(*schemas.Chunk)) *shardSet {
	t.Helper()
	def := chunk.DefaultOptions()
	cfg := schemas.ChunkConfig{Size: def.Size, Overlap: def.Overlap, Min: def.Min, MaxChunksPerDoc: def.MaxPieces}
	set := &shardSet{name: name}
	began := time.Now()
	n := 0
	for i, g := range groups {
		chunks, _ := shard.Chunks(g, cfg)
		docs := make([]lexical.Doc, len(chunks))
		s := builtShard{chunks: chunks}
		for r := range chunks {
			if relabel != nil {
				relabel(&chunks[r])
			}
			c := chunks[r]
			docs[r] = lexical.Doc{Row: r, Text: shard.EmbedText(c), Lang: c.Lang, PublishedAt: c.PublishedAt}
			s.dates = append(s.dates, c.PublishedAt)
		}
		slices.SortFunc(s.dates, func(a, b time.Time) int { return a.Compare(b) })
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := lexical.Build(dir, docs); err != nil {
			t.Fatal(err)
		}
		x, err := lexical.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		s.x = x
		set.shards = append(set.shards, s)
		n += len(chunks)
	}
	t.Logf("%s: %d shards, %d chunks, built in %.1f s", name, len(set.shards), n, time.Since(began).Seconds())
	return set
}

// holds reports whether the shard has a chunk published in [lo, hi].
func (s builtShard) holds(lo, hi time.Time) bool {
	i, _ := slices.BinarySearchFunc(s.dates, lo, func(a, b time.Time) int { return a.Compare(b) })
	return i < len(s.dates) && !s.dates[i].After(hi)
}

// measure searches every question over the shards holding chunks of its as-of window of 365
// days and returns the table row of the scores.
func (set *shardSet) measure(t *testing.T, sc scope, qs []schemas.EvalQuestion, judged map[string][]eval.Judged) string {
	t.Helper()
	var per []eval.PerQuery
	live := 0
	var took time.Duration
	for _, q := range qs {
		lo, hi := asofday.Start(q.QuestionDate).AddDate(0, 0, -365), asofday.Last(q.QuestionDate)
		var xs []*lexical.Index
		var back []int
		for si, s := range set.shards {
			if s.holds(lo, hi) {
				xs = append(xs, s.x)
				back = append(back, si)
			}
		}
		live += len(xs)
		began := time.Now()
		hits, err := sc.search(xs, q.Question, 100, lexical.Window{From: lo, To: hi})
		took += time.Since(began)
		if err != nil {
			t.Fatal(err)
		}
		var res []eval.Ranked
		for _, h := range hits {
			c := set.shards[back[h.Shard]].chunks[h.Row]
			res = append(res, eval.Ranked{DocID: c.DocID, PublishedAt: c.PublishedAt})
		}
		per = append(per, eval.Score(eval.Query{ID: q.QuestionID, AsOf: q.QuestionDate, Judged: judged[q.QuestionID], Results: res}))
	}
	s := eval.Aggregate(sc.name, per)
	var g2 float64
	for _, p := range per {
		if p.HasGrade2 {
			g2 += p.NDCG10
		}
	}
	if s.MRRQuestions > 0 {
		g2 /= float64(s.MRRQuestions)
	}
	return fmt.Sprintf("| %s | %s | %.1f | %.3f | %.3f | %.3f | %.3f | %d | %.2f |", set.name, sc.name,
		float64(live)/float64(len(qs)), s.NDCG10, g2, s.MRR, s.Recall10, s.LeakedQuestions, took.Seconds()*1e3/float64(len(qs)))
}
