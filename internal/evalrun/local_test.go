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
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
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
