//go:build ORT

package evalrun_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// TestLocalDevSet scores a judged set against an index in a local data dir's store without
// Temporal, with the code `asof eval` runs (evalrun.PlanQuestions, evalrun.Batch): a quick loop
// for tuning readings on the dev sets, not a replacement for `asof eval`, whose figures are the
// ones reported. It runs only when ASOF_DEVEVAL_INDEX names an index:
//
//	ASOF_DEVEVAL_INDEX=chronoqa ASOF_DEVEVAL_SET=../shared/data/chronoqa-dev \
//	  go test -tags ORT -run TestLocalDevSet -v ./internal/evalrun
//
// ASOF_DEVEVAL_DATA is the data dir (default the repository's .asof), ASOF_DEVEVAL_SYSTEMS the
// systems, ";"-separated (default auto;temporal_rrf;hybrid@win=0;bm25@win=0), ASOF_DEVEVAL_OUT a Parquet
// file for the rows. It prints each system's nDCG@10 and, per kind of auto reading, how many
// questions it took and the nDCG@10 of every system on them. Query vectors are cached under
// the OS cache dir by model and text.
func TestLocalDevSet(t *testing.T) {
	index := os.Getenv("ASOF_DEVEVAL_INDEX")
	if index == "" {
		t.Skip("set ASOF_DEVEVAL_INDEX (and ASOF_DEVEVAL_SET) to score a dev set on a local index")
	}
	set := os.Getenv("ASOF_DEVEVAL_SET")
	names := strings.Split(cmp.Or(os.Getenv("ASOF_DEVEVAL_SYSTEMS"), "auto;temporal_rrf;hybrid@win=0;bm25@win=0"), ";")
	m, shards := loadLocalIndex(t, os.Getenv("ASOF_DEVEVAL_DATA"), index)
	qs := readParquet[schemas.EvalQuestion](t, filepath.Join(set, "questions.parquet"))
	qrels := readParquet[schemas.Qrel](t, filepath.Join(set, "qrels.parquet"))
	plan, err := evalrun.PlanQuestions(qs, evalrun.JudgedIDs(qrels), evalrun.PlanOptions{BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	vecs := queryVectors(t, m.Model, plan.Batches)
	systems, err := evalrun.ParseSystems(names)
	if err != nil {
		t.Fatal(err)
	}
	var rows []schemas.EvalRow
	for _, batch := range plan.Batches {
		texts := evalrun.Texts(batch)
		v := make([][]float32, len(texts))
		for i, s := range texts {
			v[i] = vecs[s]
		}
		bt, err := evalrun.NewBatch(names, batch, v, qrels)
		if err != nil {
			t.Fatal(err)
		}
		bt.Shards = shards
		r, err := bt.Rows()
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	if out := os.Getenv("ASOF_DEVEVAL_OUT"); out != "" {
		if err := parquet.WriteFile(out, rows); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s on %s: %d judged questions", set, index, plan.Questions)
	t.Log(readingTable(rows, systems))
}

// readingTable is each system's mean nDCG@10 over all valid questions, then per kind of auto
// reading.
func readingTable(rows []schemas.EvalRow, systems []evalrun.System) string {
	kind := map[string]string{}
	score := map[string]map[string]float64{}
	for _, r := range rows {
		if !r.Valid {
			continue
		}
		if score[r.System] == nil {
			score[r.System] = map[string]float64{}
		}
		score[r.System][r.QuestionID] = r.NDCG10
		if r.System == "auto" {
			kind[r.QuestionID] = r.Reading
		}
	}
	var sb strings.Builder
	sb.WriteString("\n| reading | questions |")
	for _, s := range systems {
		sb.WriteString(" " + s.Name() + " |")
	}
	sb.WriteString("\n| --- | ---: |" + strings.Repeat(" ---: |", len(systems)) + "\n")
	line := func(label string, keep func(q string) bool) {
		n := 0
		sums := make([]float64, len(systems))
		for q := range score[systems[0].Name()] {
			if !keep(q) {
				continue
			}
			n++
			for i, s := range systems {
				sums[i] += score[s.Name()][q]
			}
		}
		if n == 0 {
			return
		}
		fmt.Fprintf(&sb, "| %s | %d |", label, n)
		for _, v := range sums {
			fmt.Fprintf(&sb, " %.3f |", v/float64(n))
		}
		sb.WriteString("\n")
	}
	line("all", func(string) bool { return true })
	for _, k := range append(slices.Clone(answer.Kinds), "") {
		line(cmp.Or(k, "(none)"), func(q string) bool { return kind[q] == k })
	}
	return sb.String()
}

// loadLocalIndex reads index's live manifest and loads every shard from the store of data dir
// data (default the repository's .asof), closed when t ends.
func loadLocalIndex(t *testing.T, data, index string) (schemas.Manifest, []*retrieve.Shard) {
	t.Helper()
	ctx := context.Background()
	b, err := blob.NewLocal(filepath.Join(cmp.Or(data, "../../.asof"), "s3", "asof"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := layout.ReadLive(ctx, b, index)
	if err != nil {
		t.Fatal(err)
	}
	var shards []*retrieve.Shard
	for _, sm := range m.Shards {
		l, err := storeio.LoadShard(ctx, b, index, sm, m.Model)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		shards = append(shards, l.Value)
	}
	return m, shards
}

func readParquet[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// queryVectors embeds every text the batches search (evalrun.Texts) with the index's model,
// through a cache file keyed by the model and the texts.
func queryVectors(t *testing.T, model schemas.ModelRef, batches [][]evalrun.Planned) map[string][]float32 {
	t.Helper()
	var texts []string
	for _, b := range batches {
		texts = append(texts, evalrun.Texts(b)...)
	}
	slices.Sort(texts)
	texts = slices.Compact(texts)
	h := sha256.New()
	fmt.Fprintln(h, model.ID, model.SHA256)
	for _, s := range texts {
		fmt.Fprintln(h, s)
	}
	dir, _ := os.UserCacheDir()
	cache := filepath.Join(dir, "asof", "devset-vectors", hex.EncodeToString(h.Sum(nil))[:16]+".json")
	out := map[string][]float32{}
	if data, err := os.ReadFile(cache); err == nil && json.Unmarshal(data, &out) == nil && len(out) == len(texts) {
		return out
	}
	cfg := testmodel.ConfigOf(t, model.ID)
	cfg.Backend = embed.BackendORT
	e, err := embed.NewHugot(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v, err := e.EmbedQueries(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		out[s] = v[i]
	}
	data, _ := json.Marshal(out)
	os.MkdirAll(filepath.Dir(cache), 0o755)
	os.WriteFile(cache, data, 0o644)
	return out
}

// TestLocalPerYearBM25 is the outside baseline of a comparison set (audi-evolution-dev): BM25
// with the as-of mask, run inside each year the question names (a four-digit year up to the
// anchor's, publication in that year, or with ASOF_DEVEVAL_LAG=1 in the year after: a yearly
// report is published the year after the year it is about), the years' lists interleaved. It
// writes rows beside TestLocalDevSet's (system "bm25_per_year") to ASOF_DEVEVAL_OUT.
func TestLocalPerYearBM25(t *testing.T) {
	index := os.Getenv("ASOF_DEVEVAL_INDEX")
	if index == "" || os.Getenv("ASOF_DEVEVAL_PERYEAR") == "" {
		t.Skip("set ASOF_DEVEVAL_INDEX, ASOF_DEVEVAL_SET and ASOF_DEVEVAL_PERYEAR=1")
	}
	lag := 0
	if os.Getenv("ASOF_DEVEVAL_LAG") != "" {
		lag = 1
	}
	set := os.Getenv("ASOF_DEVEVAL_SET")
	_, shards := loadLocalIndex(t, os.Getenv("ASOF_DEVEVAL_DATA"), index)
	qs := readParquet[schemas.EvalQuestion](t, filepath.Join(set, "questions.parquet"))
	qrels := readParquet[schemas.Qrel](t, filepath.Join(set, "qrels.parquet"))
	judged := map[string][]eval.Judged{}
	for _, q := range qrels {
		judged[q.QuestionID] = append(judged[q.QuestionID], eval.Judged{DocID: q.DocID, Grade: int(q.Grade)})
	}
	yearRE := regexp.MustCompile(`\b(19|20)\d\d\b`)
	var rows []schemas.EvalRow
	var sum float64
	n := 0
	for _, q := range qs {
		var years []int
		for _, m := range yearRE.FindAllString(q.Question, -1) {
			y, _ := strconv.Atoi(m)
			if y <= q.QuestionDate.Year() && !slices.Contains(years, y) {
				years = append(years, y)
			}
		}
		var lists [][]answer.Hit
		for _, y := range years {
			from := time.Date(y+lag, 1, 1, 0, 0, 0, 0, time.UTC)
			read := answer.Reading{Mode: string(retrieve.BM25), From: from, To: from.AddDate(1, 0, -1), Text: q.Question}
			o := retrieve.DefaultOptions()
			o.WindowDays = 0 // the year alone bounds it
			hits, err := answer.RankStrict(shards, answer.Query{Read: read, AsOf: q.QuestionDate, Options: o})
			if err != nil {
				t.Fatal(err)
			}
			lists = append(lists, hits)
		}
		if len(years) == 0 {
			read := answer.Reading{Mode: string(retrieve.BM25), Text: q.Question}
			o := retrieve.DefaultOptions()
			o.WindowDays = 0
			hits, err := answer.RankStrict(shards, answer.Query{Read: read, AsOf: q.QuestionDate, Options: o})
			if err != nil {
				t.Fatal(err)
			}
			lists = append(lists, hits)
		}
		var top []eval.Ranked
		var ids []string
		seen := map[string]bool{}
		for d := 0; d < 10 && len(top) < 10; d++ {
			for _, l := range lists {
				if d < len(l) && !seen[l[d].Chunk.DocID] && len(top) < 10 {
					seen[l[d].Chunk.DocID] = true
					top = append(top, eval.Ranked{DocID: l[d].Chunk.DocID, PublishedAt: l[d].Chunk.PublishedAt})
					ids = append(ids, l[d].Chunk.DocID)
				}
			}
		}
		p := eval.Score(eval.Query{ID: q.QuestionID, AsOf: q.QuestionDate, Judged: judged[q.QuestionID], Results: top})
		if !p.Valid {
			continue
		}
		n++
		sum += p.NDCG10
		rows = append(rows, schemas.EvalRow{System: "bm25_per_year", QuestionID: q.QuestionID, Valid: true, NDCG10: p.NDCG10, Top10: ids})
	}
	if out := os.Getenv("ASOF_DEVEVAL_OUT"); out != "" {
		if err := parquet.WriteFile(out, rows); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("bm25 per year (publication lag %d): %d questions, nDCG@10 %.3f", lag, n, sum/float64(n))
}
