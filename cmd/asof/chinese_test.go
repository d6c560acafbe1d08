package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// zhFixture is the project's own judged Chinese fixture (evalsets/zh-news-fixture).
const zhFixture = "../../evalsets/zh-news-fixture"

// TestChineseEndToEndWithModel indexes the Chinese fixture with the multilingual model (CJK
// BM25, Chinese dates, multilingual-e5-small) and evaluates it: nothing after a question's date
// reaches a result; auto — what ask serves — ranks at least as well as plain BM25 with the
// as-of mask and no look-back limit; every question about a dated or undated past event
// finds a document that states its answer (grade 2) in its first three results, so the answer
// comes from that time; and ask reads a Chinese date in the question.
func TestChineseEndToEndWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	testmodel.DirOf(t, "multilingual-e5-small")
	testmodel.Fast(t)
	modelDir := filepath.Dir(testmodel.DirOf(t, "multilingual-e5-small"))
	dir := t.TempDir()
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "zh", "--corpus", filepath.Join(zhFixture, "docs.parquet"),
		"--embed-model", "multilingual-e5-small"}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	out := filepath.Join(dir, "eval")
	code, stdout, errOut := runCLI(t, nil, append([]string{"eval", "--index", "zh", "--questions", filepath.Join(zhFixture, "questions.parquet"),
		"--qrels", filepath.Join(zhFixture, "qrels.parquet"), "--systems", "bm25@win=0,bm25,temporal_rrf,auto", "--out", out, "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, errOut)
	}
	var sum struct {
		Systems map[string]eval.Summary `json:"systems"`
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil {
		t.Fatalf("summary.json: %v\n%s", err, data)
	}
	for name, s := range sum.Systems {
		t.Logf("%-12s nDCG@10 %.3f  R@10 %.3f  MRR %.3f  leakage@10 %.3f", name, s.NDCG10, s.Recall10, s.MRR, s.Leakage10)
		if s.Leakage10 != 0 || s.LeakedQuestions != 0 {
			t.Errorf("%s LEAKS: %d questions saw documents published after their date", name, s.LeakedQuestions)
		}
	}
	auto, plain := sum.Systems["auto"], sum.Systems["bm25@win=0"]
	if auto.NDCG10 < plain.NDCG10 {
		t.Errorf("auto nDCG@10 %.3f is below plain BM25 with the as-of mask (%.3f)", auto.NDCG10, plain.NDCG10)
	}

	// Past events: a grade-2 document in auto's first three.
	kinds := map[string]string{}
	f, err := os.Open(filepath.Join(zhFixture, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var q struct{ QuestionID, Kind string }
		if err := json.Unmarshal(sc.Bytes(), &struct {
			ID   *string `json:"question_id"`
			Kind *string `json:"kind"`
		}{&q.QuestionID, &q.Kind}); err != nil {
			t.Fatal(err)
		}
		kinds[q.QuestionID] = q.Kind
	}
	qrels, err := parquet.ReadFile[schemas.Qrel](filepath.Join(zhFixture, "qrels.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]bool{}
	for _, r := range qrels {
		if r.Grade == 2 {
			answers[r.QuestionID+"/"+r.DocID] = true
		}
	}
	rows, err := parquet.ReadFile[schemas.EvalRow](filepath.Join(out, "per_query.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	past, found := 0, 0
	for _, r := range rows {
		if r.System != "auto" || (kinds[r.QuestionID] != "dated" && kinds[r.QuestionID] != "undated") {
			continue
		}
		past++
		for _, id := range r.Ranked[:min(3, len(r.Ranked))] {
			if answers[r.QuestionID+"/"+id] {
				found++
				break
			}
		}
	}
	if past == 0 || float64(found) < 0.8*float64(past) {
		t.Errorf("auto found an answering document in its first three for %d of %d questions about past events, want at least 80%%", found, past)
	}
	t.Logf("past events: an answering document in the first three for %d of %d questions", found, past)

	// ask reads a Chinese date: 2020年7月 centers the search on July 2020, whatever the anchor:
	// the reports of that time come first.
	code, stdout, errOut = runCLI(t, nil, append([]string{"ask", "--index", "zh", "--as-of", "2024-06-30", "--json", "--judge", "off",
		"2020年7月溪川洪灾造成多少人遇难？"}, common...)...)
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s\n%s", code, stdout, errOut)
	}
	var ans struct {
		Interpretation string `json:"interpretation"`
		Results        []struct {
			PublishedAt time.Time `json:"published_at"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, stdout)
	}
	if !strings.Contains(ans.Interpretation, "2020-07") || len(ans.Results) == 0 {
		t.Fatalf("ask read %q and found %d results", ans.Interpretation, len(ans.Results))
	}
	for _, r := range ans.Results[:min(3, len(ans.Results))] {
		if r.PublishedAt.Before(time.Date(2020, 6, 20, 0, 0, 0, 0, time.UTC)) || r.PublishedAt.After(time.Date(2020, 8, 20, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("a result of %s among the first three for a question about July 2020 (%s)", r.PublishedAt.Format(time.DateOnly), ans.Interpretation)
		}
	}
}
