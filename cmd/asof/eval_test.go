package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

const realtimeqa = "../../../shared/data/realtimeqa"

// smallRealtimeQA writes a slice of the real realtimeqa data: the judged questions dated in
// [from, to], every document judged for them, and every document published in the 30 days
// after `to` (bait: an unmasked system ranks them, a masked one never may). It skips when the
// shared data is absent.
func smallRealtimeQA(t *testing.T, dir string, from, to time.Time) (docs, questions, qrels string, nq, nd int) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(realtimeqa, "qrels.parquet")); err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	qs, err := parquet.ReadFile[schemas.EvalQuestion](filepath.Join(realtimeqa, "questions.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rels, err := parquet.ReadFile[schemas.Qrel](filepath.Join(realtimeqa, "qrels.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]bool{}
	for _, r := range rels {
		judged[r.QuestionID] = true
	}
	var keepQ []schemas.EvalQuestion
	inWindow := map[string]bool{}
	for _, q := range qs {
		if judged[q.QuestionID] && !q.QuestionDate.Before(from) && !q.QuestionDate.After(to) {
			keepQ = append(keepQ, q)
			inWindow[q.QuestionID] = true
		}
	}
	var keepR []schemas.Qrel
	wantDoc := map[string]bool{}
	for _, r := range rels {
		if inWindow[r.QuestionID] {
			keepR = append(keepR, r)
			wantDoc[r.DocID] = true
		}
	}
	f, err := os.Open(filepath.Join(realtimeqa, "docs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var keepD []schemas.Document
	bait := to.AddDate(0, 0, 30)
	err = corpus.NewLoader(corpus.Options{}).ReadFile(context.Background(), f, st.Size(), "docs.parquet",
		func(d schemas.Document) error {
			if wantDoc[d.DocID] || (d.PublishedAt.After(to) && d.PublishedAt.Before(bait)) {
				keepD = append(keepD, d)
			}
			return nil
		}, func(schemas.QuarantineRow) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return writeParquetFile(t, dir, "docs.parquet", keepD), writeParquetFile(t, dir, "questions.parquet", keepQ),
		writeParquetFile(t, dir, "qrels.parquet", keepR), len(keepQ), len(keepD)
}

// TestEvalCommandWithModel is CI's small evaluation on real data: a few hundred realtimeqa
// articles and the judged questions of three weeks, every system (embedded with e5-small-v2-q,
// the model a new English index takes, where it is pulled; else the default). It fails if any masked
// system leaks a document published after a question's date, and checks that the unmasked
// baselines do (so the leak check can fail) and that the report is written.
func TestEvalCommandWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	testmodel.Fast(t)
	dir := t.TempDir()
	from, to := time.Date(2022, 9, 1, 0, 0, 0, 0, time.UTC), time.Date(2022, 9, 21, 0, 0, 0, 0, time.UTC)
	docs, questions, qrels, nq, nd := smallRealtimeQA(t, dir, from, to)
	if nq < 10 || nd < 100 || nd > 1000 {
		t.Fatalf("slice has %d questions and %d documents", nq, nd)
	}
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "rtqa-small", "--corpus", docs}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	out := filepath.Join(dir, "eval")
	code, stdout, errOut := runCLI(t, nil, append([]string{"eval", "--index", "rtqa-small", "--questions", questions, "--qrels", qrels,
		"--systems", "bm25,bm25_time,dense,hybrid,temporal_rrf,decay,auto,temporal_rrf+dedup,temporal_rrf+judge,hybrid+judge,bm25_nomask,hybrid_nomask,auto+dedup,decay+dedup", "--out", out, "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, errOut)
	}
	var sum struct {
		Systems map[string]eval.Summary `json:"systems"`
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || len(sum.Systems) != 14 {
		t.Fatalf("summary.json: %v (%d systems)\n%s", err, len(sum.Systems), data)
	}
	t.Logf("%d questions, %d documents", nq, nd)
	for name, s := range sum.Systems {
		t.Logf("%-20s nDCG@10 %.3f  leakage@10 %.3f  questions %d", name, s.NDCG10, s.Leakage10, s.Questions)
		if s.Questions != nq {
			t.Errorf("%s evaluated %d questions, want %d", name, s.Questions, nq)
		}
		masked := !strings.HasSuffix(name, "_nomask")
		if masked && (s.Leakage10 != 0 || s.LeakedQuestions != 0) {
			t.Errorf("%s LEAKS: leakage@10 %.3f, %d questions saw documents published after their date", name, s.Leakage10, s.LeakedQuestions)
		}
		if !masked && s.LeakedQuestions == 0 {
			t.Errorf("%s leaked nothing: the bait documents published after the questions did not reach it, so the leak check proves nothing", name)
		}
		if masked && s.NDCG10 <= 0 {
			t.Errorf("%s nDCG@10 %.3f", name, s.NDCG10)
		}
	}
	for _, f := range []string{"report.html", "per_query.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	evalMeasuresWhatAskServes(t, common, questions, filepath.Join(out, "per_query.parquet"))
}

// evalMeasuresWhatAskServes checks that eval scores what users get: for a sample of questions,
// the ranked documents a +dedup system scored equal, document for document, the results of
// `asof ask --json --k 50` with the same mode (a document's rank is its best chunk's).
func evalMeasuresWhatAskServes(t *testing.T, common []string, questionsFile, perQuery string) {
	t.Helper()
	qs, err := parquet.ReadFile[schemas.EvalQuestion](questionsFile)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[schemas.EvalRow](perQuery)
	if err != nil {
		t.Fatal(err)
	}
	scored := map[string][]string{} // system/question → ranked doc ids
	for _, r := range rows {
		scored[r.System+"/"+r.QuestionID] = r.Ranked
	}
	slices.SortFunc(qs, func(a, b schemas.EvalQuestion) int { return strings.Compare(a.QuestionID, b.QuestionID) })
	compared := 0
	for _, q := range qs[:min(3, len(qs))] {
		for system, mode := range map[string]string{"temporal_rrf+dedup": "recency", "auto+dedup": "auto", "decay+dedup": "decay"} {
			want, ok := scored[system+"/"+q.QuestionID]
			if !ok || len(want) == 0 {
				t.Fatalf("per_query.parquet has no ranked list for %s on %s", system, q.QuestionID)
			}
			code, stdout, errOut := runCLI(t, nil, append([]string{"ask", "--index", "rtqa-small", "--as-of", q.QuestionDate.Format(time.DateOnly),
				"--mode", mode, "--k", "50", "--judge", "off", "--summarizer", "extractive", "--json", q.Question}, common...)...)
			if code != 0 {
				t.Fatalf("ask: exit %d\n%s", code, errOut)
			}
			var ans schemas.Answer
			if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
				t.Fatalf("ask --json: %v\n%s", err, stdout)
			}
			var ranked []eval.Ranked
			for _, r := range ans.Results {
				ranked = append(ranked, eval.Ranked{DocID: r.DocID, PublishedAt: r.PublishedAt})
			}
			var got []string
			for _, r := range eval.Collapse(ranked) {
				got = append(got, r.DocID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s on %s (%q as of %s): eval scored %d documents %v\nask --mode %s --k 50 returned %d: %v",
					system, q.QuestionID, q.Question, q.QuestionDate.Format(time.DateOnly), len(want), want, mode, len(got), got)
			}
			compared++
		}
	}
	t.Logf("eval's ranked lists equal ask's results for %d question×system pairs", compared)
}
