//go:build ORT

package evalrun_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/schemas"
)

// TestJudgePools measures the judges on the pools `asof ask` hands them: for a sample of a
// judged set's questions, the served auto reading's pool (answer.Pool, as the Candidates
// activity builds it) on a local index, cut to its first POOL candidates, is judged in batches
// of BATCH as the Judge activity judges them — by the heuristic (judge.HeuristicPool against
// the whole pool) and, when ASOF_JUDGEPOOL_LLM names an OpenAI-compatible endpoint, by the LLM
// (judge.LLM, the Judge activity's prompt; the reply held to judge.Schema unless
// ASOF_JUDGEPOOL_SCHEMA=0). Against the set's labels (a candidate whose document is not
// labelled counts as not relevant; how many were labelled is printed) it reports keep
// precision and recall (kept = graded ≥ 1) and three nDCG@10 of the pool: as retrieved, with
// the dropped candidates removed (what the answer's context keeps, in order) and reordered by
// grade (2s first, then 1s, each in retrieved order). A failed batch is kept unjudged, the
// default failure policy. Run it beside a llama.cpp server, e.g.
//
//	.asof/llm/venv/bin/python .asof/llm/serve.py --model ~/.cache/asof/models/qwen2.5-coder-1.5b-instruct/model.gguf \
//	  --port 8089 --alias qwen --threads 2 --ctx 8192 &
//	ASOF_JUDGEPOOL_INDEX=tg ASOF_JUDGEPOOL_SET=../../evalsets/tg-finance-ru-dev \
//	  ASOF_JUDGEPOOL_LLM=http://127.0.0.1:8089/v1 go test -tags ORT -run TestJudgePools -v -timeout 3h ./internal/evalrun
//
// ASOF_JUDGEPOOL_QUESTIONS (default 8) questions are sampled with seed 1; _POOL (default 16)
// and _BATCH (default 8) as above; _MODEL the model name sent (default local); _DATA the data
// dir (default the repository's .asof); _OUT a JSON-lines file each judge's figures are
// appended to.
func TestJudgePools(t *testing.T) {
	index := os.Getenv("ASOF_JUDGEPOOL_INDEX")
	if index == "" {
		t.Skip("set ASOF_JUDGEPOOL_INDEX and ASOF_JUDGEPOOL_SET (and ASOF_JUDGEPOOL_LLM) to measure the judges on a dev set's pools")
	}
	ctx := context.Background()
	set := os.Getenv("ASOF_JUDGEPOOL_SET")
	nq := envInt(t, "ASOF_JUDGEPOOL_QUESTIONS", 8)
	poolN := envInt(t, "ASOF_JUDGEPOOL_POOL", 16)
	batchN := envInt(t, "ASOF_JUDGEPOOL_BATCH", 8)
	m, shards := loadLocalIndex(t, os.Getenv("ASOF_JUDGEPOOL_DATA"), index)
	qs := readParquet[schemas.EvalQuestion](t, filepath.Join(set, "questions.parquet"))
	qrels := readParquet[schemas.Qrel](t, filepath.Join(set, "qrels.parquet"))
	plan, err := evalrun.PlanQuestions(qs, evalrun.JudgedIDs(qrels), evalrun.PlanOptions{BatchSize: nq, Limit: nq, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	picked := plan.Batches[0]
	vecs := queryVectors(t, m.Model, [][]evalrun.Planned{picked})
	texts := evalrun.Texts(picked)
	v := make([][]float32, len(texts))
	for i, s := range texts {
		v[i] = vecs[s]
	}
	questions, err := evalrun.Questions(picked, v)
	if err != nil {
		t.Fatal(err)
	}
	auto, err := evalrun.ParseSystem("auto")
	if err != nil {
		t.Fatal(err)
	}
	judged := evalrun.JudgedOf(qrels)

	type judgeFn func(q evalrun.Question, searchText string, asOf time.Time, batch, pool []judge.Doc) ([]judge.Verdict, error)
	judges := []struct {
		name string
		fn   judgeFn
	}{{"heuristic", func(q evalrun.Question, searchText string, _ time.Time, batch, pool []judge.Doc) ([]judge.Verdict, error) {
		text := cmp.Or(searchText, q.Text)
		return judge.HeuristicPool(text, batch, judge.PoolOf(text, pool)), nil
	}}}
	if base := os.Getenv("ASOF_JUDGEPOOL_LLM"); base != "" {
		c, err := llm.New(llm.Config{BaseURL: base, Model: cmp.Or(os.Getenv("ASOF_JUDGEPOOL_MODEL"), "local"), Timeout: 10 * time.Minute,
			JSON: true, Schemas: os.Getenv("ASOF_JUDGEPOOL_SCHEMA") != "0"})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("llm:%s batch %d", c.Config().Model, batchN)
		if !c.Config().Schemas {
			name += " json_object"
		}
		judges = append(judges, struct {
			name string
			fn   judgeFn
		}{name, func(q evalrun.Question, _ string, asOf time.Time, batch, _ []judge.Doc) ([]judge.Verdict, error) {
			return judge.LLM(ctx, c, q.Text, asOf, batch)
		}})
	}

	// Each question's pool, once for every judge.
	type pooled struct {
		q          evalrun.Question
		searchText string
		asOf       time.Time
		docs       []judge.Doc
		hits       []answer.Hit
	}
	var pools []pooled
	labelled, rows := 0, 0
	for _, q := range questions {
		hits, searchText, asOf, err := evalrun.JudgePool(shards, auto, q, evalrun.VecOf(q, auto))
		if err != nil {
			t.Fatal(err)
		}
		hits = hits[:min(poolN, len(hits))]
		docs := answer.JudgeDocs(answer.CandidateRows(hits))
		grades := gradesOf(judged[q.ID])
		for _, d := range docs {
			if _, ok := grades[d.DocID]; ok {
				labelled++
			}
		}
		rows += len(docs)
		pools = append(pools, pooled{q, searchText, asOf, docs, hits})
	}
	t.Logf("%s on %s: %d questions, %d pool candidates (at most %d a question), %d of them labelled; the rest count as not relevant",
		set, index, len(pools), rows, poolN, labelled)

	var table strings.Builder
	table.WriteString("| judge | candidates | failed | keep precision | keep recall | nDCG@10 retrieved | kept | by grade | s a candidate |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, j := range judges {
		var tp, fp, fn, failed int
		var before, kept, graded []float64
		began := time.Now()
		for _, p := range pools {
			grades := gradesOf(judged[p.q.ID])
			got := make([]int, len(p.docs))
			for lo := 0; lo < len(p.docs); lo += batchN {
				batch := slices.Clone(p.docs[lo:min(lo+batchN, len(p.docs))])
				vs, err := j.fn(p.q, p.searchText, p.asOf, batch, p.docs)
				if err != nil {
					t.Logf("%s: %s: a batch of %d failed, kept unjudged: %v", j.name, p.q.ID, len(batch), err)
					failed += len(batch)
					for i := range batch {
						got[lo+i] = -1
					}
					continue
				}
				for _, v := range vs {
					got[v.ID-1] = v.Relevance
				}
			}
			var keep, byGrade []eval.Ranked
			for i, d := range p.docs {
				g := got[i]
				rel := grades[d.DocID] >= 1
				switch k := g != 0; {
				case k && rel:
					tp++
				case k:
					fp++
				case rel:
					fn++
				}
				if g != 0 {
					keep = append(keep, eval.Ranked{DocID: d.DocID, PublishedAt: d.PublishedAt})
				}
			}
			for _, want := range []int{2, 1, -1} {
				for i, d := range p.docs {
					if got[i] == want {
						byGrade = append(byGrade, eval.Ranked{DocID: d.DocID, PublishedAt: d.PublishedAt})
					}
				}
			}
			all := make([]eval.Ranked, len(p.docs))
			for i, d := range p.docs {
				all[i] = eval.Ranked{DocID: d.DocID, PublishedAt: d.PublishedAt}
			}
			score := func(rs []eval.Ranked) float64 {
				return eval.Score(eval.Query{ID: p.q.ID, AsOf: p.q.AsOf, Judged: judged[p.q.ID], Results: rs}).NDCG10
			}
			before, kept, graded = append(before, score(all)), append(kept, score(keep)), append(graded, score(byGrade))
		}
		secs := time.Since(began).Seconds() / float64(max(1, rows))
		line := fmt.Sprintf("| %s | %d | %d | %s | %s | %.3f | %.3f | %.3f | %.2f |", j.name, rows, failed,
			ratio(tp, tp+fp), ratio(tp, tp+fn), mean(before), mean(kept), mean(graded), secs)
		table.WriteString(line + "\n")
		if out := os.Getenv("ASOF_JUDGEPOOL_OUT"); out != "" {
			rec, _ := json.Marshal(map[string]any{"set": set, "index": index, "judge": j.name, "questions": len(pools), "pool": poolN,
				"batch": batchN, "candidates": rows, "labelled": labelled, "failed": failed, "tp": tp, "fp": fp, "fn": fn,
				"ndcg_retrieved": mean(before), "ndcg_kept": mean(kept), "ndcg_by_grade": mean(graded), "seconds_per_candidate": secs})
			f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "%s\n", rec)
			f.Close()
		}
	}
	t.Logf("\n%s", table.String())
}

// gradesOf is a question's labels by document.
func gradesOf(js []eval.Judged) map[string]int {
	out := make(map[string]int, len(js))
	for _, j := range js {
		out[j.DocID] = max(out[j.DocID], j.Grade)
	}
	return out
}

func ratio(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
