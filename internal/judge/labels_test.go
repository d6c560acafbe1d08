package judge_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/schemas"
)

// TestLLMJudgeAgainstLabels measures the LLM judge (judge.LLM, the prompt and parsing the Judge
// activity runs) against a judged dev set's human grades: keep precision and recall (kept =
// graded ≥ 1; relevant = labelled ≥ 1), grade-2 precision and recall, exact agreement, and the
// seconds a pair took. It runs only when ASOF_JUDGEEVAL_LLM names an OpenAI-compatible endpoint
// (e.g. the llama.cpp server `asof ask --llm local` starts, or scripts/llm/serve.py by hand):
//
//	ASOF_JUDGEEVAL_LLM=http://127.0.0.1:8089/v1 ASOF_JUDGEEVAL_MODEL=qwen \
//	  go test -run TestLLMJudgeAgainstLabels -v -timeout 2h ./internal/judge
//
// ASOF_JUDGEEVAL_SET is the dev set folder (default evalsets/tg-finance-ru-dev), _CORPUS its
// documents (default ../shared/data/tg-finance-ru/docs.parquet), _PAIRS about how many judged
// pairs (default 120: PAIRS/BATCH questions spread over the set, BATCH pairs of each spread over
// its judgements), _BATCH documents per call (default 8, as the Judge activity's batches).
func TestLLMJudgeAgainstLabels(t *testing.T) {
	base := os.Getenv("ASOF_JUDGEEVAL_LLM")
	if base == "" {
		t.Skip("set ASOF_JUDGEEVAL_LLM (and ASOF_JUDGEEVAL_MODEL) to measure an LLM judge against a dev set's labels")
	}
	set := cmp.Or(os.Getenv("ASOF_JUDGEEVAL_SET"), "../../evalsets/tg-finance-ru-dev")
	corpusPath := cmp.Or(os.Getenv("ASOF_JUDGEEVAL_CORPUS"), "../../../shared/data/tg-finance-ru/docs.parquet")
	pairs := envInt(t, "ASOF_JUDGEEVAL_PAIRS", 120)
	batch := envInt(t, "ASOF_JUDGEEVAL_BATCH", 8)
	c, err := llm.New(llm.Config{BaseURL: base, Model: cmp.Or(os.Getenv("ASOF_JUDGEEVAL_MODEL"), "local"), Timeout: 10 * time.Minute, MaxTokens: 512, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := parquet.ReadFile[schemas.EvalQuestion](filepath.Join(set, "questions.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := parquet.ReadFile[schemas.Qrel](filepath.Join(set, "qrels.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	docs := readCorpus(t, corpusPath)

	// Questions spread over the set, and in each one batch of pairs spread over its judgements
	// (their order groups grades), as the Judge activity sees a batch of a pool.
	byQ := map[string][]schemas.Qrel{}
	for _, r := range qrels {
		byQ[r.QuestionID] = append(byQ[r.QuestionID], r)
	}
	nq := min(len(qs), max(1, pairs/batch))
	picked := map[string][]schemas.Qrel{}
	for k := range nq {
		q := qs[k*len(qs)/nq].QuestionID
		rs := byQ[q]
		for j := range min(batch, len(rs)) {
			picked[q] = append(picked[q], rs[j*len(rs)/min(batch, len(rs))])
		}
	}
	type tally struct{ tp, fp, fn, tn, tp2, fp2, fn2, same, n, failed int }
	var s tally
	began := time.Now()
	for _, q := range qs {
		rs := picked[q.QuestionID]
		for lo := 0; lo < len(rs); lo += batch {
			part := rs[lo:min(lo+batch, len(rs))]
			var in []judge.Doc
			for i, r := range part {
				d, ok := docs[r.DocID]
				if !ok {
					t.Fatalf("%s: doc %s not in the corpus", q.QuestionID, r.DocID)
				}
				in = append(in, judge.Doc{ID: i + 1, DocID: d.DocID, Title: d.Title, Text: d.Text, Source: d.Source, PublishedAt: d.PublishedAt})
			}
			v, err := judge.LLM(context.Background(), c, q.Question, q.QuestionDate, in)
			if err != nil {
				s.failed += len(part)
				t.Logf("%s: a batch of %d failed: %v", q.QuestionID, len(part), err)
				continue
			}
			for i, r := range part {
				got := v[i].Relevance
				s.n++
				if got == int(r.Grade) {
					s.same++
				}
				switch kept, rel := got >= 1, r.Grade >= 1; {
				case kept && rel:
					s.tp++
				case kept:
					s.fp++
				case rel:
					s.fn++
				default:
					s.tn++
				}
				switch two, rel2 := got == 2, r.Grade == 2; {
				case two && rel2:
					s.tp2++
				case two:
					s.fp2++
				case rel2:
					s.fn2++
				}
			}
		}
	}
	ratio := func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f", float64(a)/float64(b))
	}
	secs := time.Since(began).Seconds()
	t.Logf("\n| judge | pairs | failed | keep precision | keep recall | grade-2 precision | grade-2 recall | exact | s a pair |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n| llm:%s | %d | %d | %s | %s | %s | %s | %s | %.1f |",
		c.Config().Model, s.n, s.failed, ratio(s.tp, s.tp+s.fp), ratio(s.tp, s.tp+s.fn), ratio(s.tp2, s.tp2+s.fp2), ratio(s.tp2, s.tp2+s.fn2),
		ratio(s.same, s.n), secs/float64(max(1, s.n+s.failed)))
	t.Logf("relevant among the pairs judged: %d of %d (keep-all precision %s)", s.tp+s.fn, s.n, ratio(s.tp+s.fn, s.n))
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// readCorpus loads a corpus file as the index build reads it (cleaned), by doc id.
func readCorpus(t *testing.T, path string) map[string]schemas.Document {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus absent: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]schemas.Document{}
	l := corpus.NewLoader(corpus.Options{})
	err = l.ReadFile(context.Background(), f, st.Size(), path,
		func(d schemas.Document) error { out[d.DocID] = d; return nil },
		func(schemas.QuarantineRow) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}
