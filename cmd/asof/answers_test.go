package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestAnswersAndEvalsListAndGet stores answers and evaluations in a real (local-folder) store
// in the types the workflows write (schemas.Answer; the summary of workflows.EvalResult and
// workflows.EvalSummariesResult), and reads them back through `asof answers list|get` and
// `asof evals list|get` in every format, with the errors a person gets for a missing or a
// path-climbing id.
func TestAnswersAndEvalsListAndGet(t *testing.T) {
	dir, store, b, common := tempStore(t)
	ctx := context.Background()
	put := func(key string, data []byte, at time.Time) {
		t.Helper()
		if _, err := b.Put(ctx, key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(store, filepath.FromSlash(key)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	indent := func(v any) []byte {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t0 := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	asOf := day("2026-03-31")
	brief := schemas.Brief{Method: "extractive", AsOf: asOf, Timeline: []schemas.Claim{{Date: day("2026-03-20"), Text: "The bank raised the key rate.", Cites: []int{1}}}}
	blocks := []schemas.ContextBlock{{N: 1, DocID: "rate", PublishedAt: day("2026-03-20"), Sources: []string{"bank"}, Title: "Key rate raised", URL: "https://bank.example/rate"}}
	older := schemas.Answer{Version: schemas.AnswerVersion, RunID: "asof-ask-news-20260331T080000.000Z", Index: "news", Query: "central bank key rate decision",
		AsOf: asOf, To: asOf, Mode: "recency", Interpretation: "recency", Brief: &brief, Blocks: blocks, SummaryMethod: "extractive",
		Results: []schemas.AnswerResult{{Rank: 1, DocID: "rate", PublishedAt: day("2026-03-20"), Sources: []string{"bank"}, Title: "Key rate raised"}}}
	newer := older
	newer.RunID, newer.Index, newer.Query = "asof-digest-morning-20260331T090000.000Z-t01", "tg", "ключевая ставка"
	olderJSON := indent(older)
	put(layout.AnswerKey(older.RunID), olderJSON, t0)
	put(layout.ContextKey(older.RunID), []byte("# context"), t0)
	put(layout.AnswerKey(newer.RunID), indent(newer), t0.Add(time.Hour))

	var er workflows.EvalResult
	sum := &er.Finish.Summary // summary.json as FinishEval writes it
	sum.Index, sum.EvalID, sum.Questions, sum.Order = "news", "0123456789abcdef", 12, []string{"bm25", "temporal_rrf"}
	sum.Systems = map[string]eval.Summary{"bm25": {System: "bm25", NDCG10: 0.25, Questions: 12}, "temporal_rrf": {System: "temporal_rrf", NDCG10: 0.5, Questions: 12}}
	sum.Freshness = map[string]eval.FreshnessSummary{"bm25": {System: "bm25", FreshestDaysMean: 4, Queries: 12}}
	sum.Top10FreshestDaysMean = map[string]float64{"bm25": 3}
	summaryJSON := indent(sum)
	put(layout.EvalSummaryKey(sum.EvalID), summaryJSON, t0.Add(2*time.Hour))
	put(layout.EvalReportKey(sum.EvalID), []byte("<!DOCTYPE html><html>report</html>"), t0.Add(2*time.Hour))
	var sr workflows.EvalSummariesResult
	rep := &sr.Finish.Report // evals/summaries/<id>/summary.json as FinishSummaries writes it
	rep.EvalID, rep.Index, rep.Queries, rep.Failed, rep.Systems = "fedcba9876543210", "tg", 200, 1, []sumeval.Aggregate{{System: "asof", Answers: 199}}
	put(layout.SummariesSummaryKey(rep.EvalID), indent(rep), t0.Add(3*time.Hour))
	put(layout.SummariesTableKey(rep.EvalID), []byte("| system | answers |\n|---|---|\n| asof | 199 |\n"), t0.Add(3*time.Hour))

	html := filepath.Join(dir, "answer.html")
	tests := []storeCase{
		{name: "answers, newest first", args: []string{"answers", "list"}, wantOut: []string{
			"RUN ID                                        INDEX  AS OF       MODE     SAVED (UTC)          QUERY\n" +
				"asof-digest-morning-20260331T090000.000Z-t01  tg     2026-03-31  recency  2026-03-31 09:00:00  ключевая ставка\n" +
				"asof-ask-news-20260331T080000.000Z            news   2026-03-31  recency  2026-03-31 08:00:00  central bank key rate decision\n"}},
		{name: "answers of an index", args: []string{"answers", "list", "--index", "news", "--limit", "5"}, wantOut: []string{"asof-ask-news-20260331T080000.000Z "}},
		{name: "answers of an index with none", args: []string{"answers", "list", "--index", "rtqa"}, wantOut: []string{"no answers of index rtqa in "}},
		{name: "answers as JSON", args: []string{"answers", "list", "--limit", "1", "--json"}, wantOut: []string{`"run_id": "asof-digest-morning-20260331T090000.000Z-t01"`, `"saved": "2026-03-31T09:00:00Z"`}},
		{name: "an answer as Markdown", args: []string{"answers", "get", older.RunID}, wantOut: []string{"# central bank key rate decision\n\nAs of **2026-03-31** · index `news`", "stored under runs/asof-ask-news-20260331T080000.000Z/_\n"}},
		{name: "an answer as JSON", args: []string{"answers", "get", older.RunID, "--json"}, wantOut: []string{"=" + string(olderJSON)}},
		{name: "an answer as HTML", args: []string{"answers", "get", older.RunID, "--html", "-"}, wantOut: []string{"<h1>Answer</h1>", `href="https://bank.example/rate"`}},
		{name: "an answer to a file", args: []string{"answers", "get", older.RunID, "--html", html}, wantOut: []string{"="}, wantErr: "wrote " + html + " (answer asof-ask-news-20260331T080000.000Z)"},
		{name: "an unknown run", args: []string{"answers", "get", "asof-ask-news-nope"}, wantErr: "no answer with run id asof-ask-news-nope in "},
		{name: "a path-climbing run id", args: []string{"answers", "get", "../indexes/news/CURRENT"}, wantErr: `run id "../indexes/news/CURRENT" has a '/'`},
		{name: "too many", args: []string{"answers", "list", "--limit", "5000"}, wantErr: `--limit "5000": give a number from 1 to 1000`},
		{name: "a bad index", args: []string{"answers", "list", "--index", "News"}, wantErr: `--index: index name "News"`},
		{name: "json and html", args: []string{"answers", "get", older.RunID, "--json", "--open"}, wantErr: "give one"},
		{name: "evaluations, newest first", args: []string{"evals", "list"}, wantOut: []string{
			"\nfedcba9876543210  summaries  tg     200        asof  ", "2026-03-31 11:00:00  \n",
			"\n0123456789abcdef  retrieval  news   12         bm25,temporal_rrf  ", "2026-03-31 10:00:00  \n"}}, // the order: evals list --json below
		{name: "evaluations of an index", args: []string{"evals", "list", "--index", "tg", "--json"}, wantOut: []string{`"id": "fedcba9876543210"`, `"kind": "summaries"`, `"failed": 1`}},
		{name: "retrieval tables", args: []string{"evals", "get", "0123456789abcdef"}, wantOut: []string{"# Evaluation 0123456789abcdef\n\nIndex `news`, 12 judged questions, 2 systems.", "| temporal_rrf | 0.500 |", "| bm25 | 3.0 | 4.0 |"}},
		{name: "retrieval summary.json", args: []string{"evals", "get", "0123456789abcdef", "--json"}, wantOut: []string{"=" + string(summaryJSON)}},
		{name: "retrieval report", args: []string{"evals", "get", "0123456789abcdef", "--html", "-"}, wantOut: []string{"=<!DOCTYPE html><html>report</html>"}},
		{name: "summaries table", args: []string{"evals", "get", "fedcba9876543210"}, wantOut: []string{"=| system | answers |\n|---|---|\n| asof | 199 |\n"}},
		{name: "summaries have no report", args: []string{"evals", "get", "fedcba9876543210", "--html", "-"}, wantErr: "evaluation fedcba9876543210 is a summaries evaluation: it has no HTML report (its formats: json, md)"},
		{name: "an unknown evaluation", args: []string{"evals", "get", "nope"}, wantErr: "no finished evaluation nope in "},
		{name: "a path-climbing eval id", args: []string{"evals", "get", ".."}, wantErr: `eval id "..": one path segment`},
	}
	runStoreCases(t, common, tests)
	got, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(got, []byte("<h1>Answer</h1>")) {
		t.Errorf("--html wrote %d bytes (%v), want the answer's page", len(got), err)
	}
	var evals []catalog.StoredEval
	code, out, errOut := runCLI(t, nil, append([]string{"evals", "list", "--json"}, common...)...)
	if code != 0 || json.Unmarshal([]byte(out), &evals) != nil || len(evals) != 2 || evals[1].Questions != 12 ||
		strings.Join(evals[1].Files, ",") != "report.html,summary.json" || !evals[1].Saved.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("evals list --json: exit %d, %s\n%s", code, errOut, out)
	}
}

// TestAnswersListStripsControls: an answer whose stored query holds terminal escape sequences
// (one a POST /v1/ask of an older asof stored, or another client's Ask) is listed by `asof
// answers list` and printed by `asof answers get` without them, as is an evaluation's index
// by `asof evals list`: the screen is not cleared, the window title not set; what is left of
// the sequences is shown as text.
func TestAnswersListStripsControls(t *testing.T) {
	_, _, b, common := tempStore(t)
	asOf := day("2026-03-31")
	ans := schemas.Answer{Version: schemas.AnswerVersion, RunID: "asof-ask-news-20260331T080000.000Z", Index: "news",
		Query: "key rate \x1b[2J\x1b]0;API-TITLE\x07 via\tapi \u009b31m\u202e", AsOf: asOf, To: asOf, Mode: "recency", Interpretation: "recency \x1b[5m"}
	data, err := json.Marshal(ans)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), layout.AnswerKey(ans.RunID), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	var er workflows.EvalResult
	sum := &er.Finish.Summary // an evaluation whose summary.json names its index with escape sequences
	sum.Index, sum.EvalID, sum.Questions, sum.Order = "news\x1b]0;API-TITLE\x07\u009b2J", "0123456789abcdef", 1, []string{"bm25"}
	data, err = json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), layout.EvalSummaryKey(sum.EvalID), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"answers", "list"}, {"answers", "get", ans.RunID}, {"evals", "list"}} {
		code, out, errOut := runCLI(t, nil, append(args, common...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return (r < ' ' && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == '\u202e' }); i >= 0 {
			t.Errorf("%v prints a control character %q at byte %d:\n%q", args, out[i:i+1], i, out)
		}
		if want := "key rate [2J]0;API-TITLE via api 31m"; args[0] == "evals" && !strings.Contains(out, "news]0;API-TITLE2J") ||
			args[0] == "answers" && !strings.Contains(out, want) {
			t.Errorf("%v does not show the query (or index) as text:\n%q", args, out)
		}
	}
}
