package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// store is a local-folder store whose objects are written at given times (a listing sorts by
// the store's time of an object).
type store struct {
	t    testing.TB
	root string
	b    blob.Bucket
}

func newStore(t testing.TB) store {
	root := t.TempDir()
	b, err := blob.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	return store{t: t, root: root, b: b}
}

// put writes data under key, dated at.
func (s store) put(key, data string, at time.Time) {
	s.t.Helper()
	if _, err := s.b.Put(context.Background(), key, strings.NewReader(data)); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(s.root, filepath.FromSlash(key)), at, at); err != nil {
		s.t.Fatal(err)
	}
}

func jsonOf(t testing.TB, v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAnswers stores answers as the Ask workflow writes them (runs/<id>/answer.json, with the
// run's other files beside it) and lists them newest first, by index, by count, and fetches
// one in each format.
func TestAnswers(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	t0 := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	asOf := time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC)
	answer := func(id, index, query string) schemas.Answer {
		return schemas.Answer{Version: 3, RunID: id, Index: index, Query: query, AsOf: asOf, To: asOf, Mode: "recency", SummaryMethod: "extractive",
			Brief:   &schemas.Brief{Method: "extractive", AsOf: asOf, Timeline: []schemas.Claim{{Date: asOf.Add(-48 * time.Hour), Text: "Windsor Framework agreed.", Cites: []int{1}}}},
			Results: []schemas.AnswerResult{{Rank: 1, DocID: "d1", PublishedAt: asOf.Add(-48 * time.Hour), Sources: []string{"bbc"}, Title: "<b>Windsor</b> Framework"}},
			Blocks:  []schemas.ContextBlock{{N: 1, DocID: "d1", PublishedAt: asOf.Add(-48 * time.Hour), Sources: []string{"bbc"}, Title: "Windsor Framework", URL: "https://bbc.example/w"}}}
	}
	old := answer("asof-ask-news-1", "news", "Brexit deal name")
	s.put(layout.AnswerKey(old.RunID), jsonOf(t, old), t0)
	s.put(layout.ContextKey(old.RunID), "# context", t0.Add(time.Hour)) // not an answer
	s.put(layout.CandidatesKey("asof-ask-news-unfinished"), "x", t0.Add(time.Hour))
	newer := answer("asof-digest-morning-2-t01", "tg", "ключевая ставка")
	s.put(layout.AnswerKey(newer.RunID), jsonOf(t, newer), t0.Add(2*time.Hour))
	s.put(layout.AnswerKey("asof-ask-news-broken"), "{not json", t0.Add(time.Minute))

	tests := []struct {
		name  string
		index string
		limit int
		want  []string // run ids, in order
	}{
		{name: "all, newest first", want: []string{"asof-digest-morning-2-t01", "asof-ask-news-broken", "asof-ask-news-1"}},
		{name: "limit", limit: 2, want: []string{"asof-digest-morning-2-t01", "asof-ask-news-broken"}},
		{name: "one index, a damaged answer left out", index: "news", want: []string{"asof-ask-news-1"}},
		{name: "an index with none", index: "rtqa", want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Answers(ctx, s.b, tc.index, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, a := range got {
				ids = append(ids, a.RunID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") || got == nil {
				t.Fatalf("run ids %q, want %q", ids, tc.want)
			}
		})
	}
	all, err := Answers(ctx, s.b, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if a := all[2]; a.Index != "news" || a.AsOf != "2023-03-03" || a.Query != "Brexit deal name" || a.Mode != "recency" || a.Results != 1 || !a.Saved.Equal(t0) || a.Problem != "" {
		t.Errorf("listed %+v", a)
	}
	if a := all[1]; a.Index != "" || !strings.Contains(a.Problem, "answer.json does not parse") {
		t.Errorf("a damaged answer listed as %+v", a)
	}

	docs := []struct {
		name, id, format string
		want             string // in the document
		err              error
		wantErr          string
	}{
		{name: "json as stored", id: old.RunID, format: FormatJSON, want: jsonOf(t, old)},
		{name: "markdown as asof ask prints it", id: old.RunID, format: FormatMarkdown, want: "# Brexit deal name\n\nAs of **2023-03-03** · index `news`"},
		{name: "markdown escapes what a document wrote", id: old.RunID, format: FormatMarkdown, want: `\<b>Windsor\</b>`},
		{name: "html page", id: newer.RunID, format: FormatHTML, want: "<h1>Answer</h1>"},
		{name: "html links the source", id: old.RunID, format: FormatHTML, want: `href="https://bbc.example/w"`},
		{name: "unknown run", id: "asof-ask-news-9", format: FormatJSON, err: ErrNoAnswer, wantErr: "no answer with run id asof-ask-news-9 in "},
		{name: "a run without its answer", id: "asof-ask-news-unfinished", format: FormatMarkdown, err: ErrNoAnswer},
		{name: "climbing out", id: "../indexes/news/CURRENT", format: FormatJSON, wantErr: `run id "../indexes/news/CURRENT" has a '/'`},
		{name: "dot-dot", id: "..", format: FormatJSON, wantErr: `run id "..": one path segment`},
		{name: "bad format", id: old.RunID, format: "pdf", wantErr: `format "pdf": use json, md, html`},
		{name: "damaged", id: "asof-ask-news-broken", format: FormatHTML, wantErr: "runs/asof-ask-news-broken/answer.json does not parse"},
	}
	for _, tc := range docs {
		t.Run("doc: "+tc.name, func(t *testing.T) {
			got, err := AnswerDoc(ctx, s.b, tc.id, tc.format)
			if tc.err != nil && !errors.Is(err, tc.err) || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %v %q", err, tc.err, tc.wantErr)
			}
			if tc.err == nil && tc.wantErr == "" && (err != nil || !strings.Contains(string(got), tc.want)) {
				t.Fatalf("%v; document lacks %q:\n%.600s", err, tc.want, got)
			}
		})
	}
}

// TestEvals stores evaluations of both kinds as the Eval and EvalSummaries workflows write
// them, one unfinished, and lists them newest first, by index, by count, and fetches each
// format each kind has.
func TestEvals(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	t0 := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	const retrieval = `{"index": "rtqa", "eval_id": "e1", "questions": 40,
		"systems": {"bm25": {"system": "bm25", "ndcg@10": 0.5, "questions": 40}},
		"freshness": {"bm25": {"system": "bm25", "freshest_days_mean": 3, "queries": 40}},
		"top10_freshest_days_mean": {"bm25": 2}, "order": ["bm25"]}`
	s.put(layout.EvalBatchKey("e1", 0), "x", t0)
	s.put(layout.EvalBatchKey("e1", 1), "x", t0)
	s.put(layout.EvalVectorsKey("e1", 0), "x", t0)
	s.put(layout.EvalSummaryKey("e1"), retrieval, t0.Add(time.Minute))
	s.put(layout.EvalPerQueryKey("e1"), "x", t0.Add(time.Minute))
	s.put(layout.EvalReportKey("e1"), "<html>report e1", t0.Add(time.Minute))
	s.put(layout.EvalBatchKey("e2", 0), "x", t0.Add(3*time.Hour)) // unfinished
	s.put(layout.SummariesSummaryKey("s1"), `{"eval_id": "s1", "index": "tg", "queries": 200, "failed": 2,
		"systems": [{"system": "asof"}, {"system": "study"}], "rubric": "none"}`, t0.Add(2*time.Hour))
	s.put(layout.SummariesTableKey("s1"), "| system | answers |\n", t0.Add(2*time.Hour))
	s.put(layout.StudyRubricKey("corpora/x/study.parquet", "llm:m", "rag", "q1"), "{}", t0.Add(4*time.Hour)) // not an evaluation

	tests := []struct {
		name  string
		index string
		limit int
		want  []string // kind/id, in order
	}{
		{name: "all, newest first", want: []string{"retrieval/e2", "summaries/s1", "retrieval/e1"}},
		{name: "limit", limit: 1, want: []string{"retrieval/e2"}},
		{name: "one index, the unfinished left out", index: "rtqa", want: []string{"retrieval/e1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Evals(ctx, s.b, tc.index, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.Kind+"/"+e.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("evals %q, want %q", ids, tc.want)
			}
		})
	}
	all, err := Evals(ctx, s.b, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if e := all[2]; e.Index != "rtqa" || e.Questions != 40 || strings.Join(e.Systems, ",") != "bm25" || e.Batches != 2 ||
		strings.Join(e.Files, ",") != "per_query.parquet,report.html,summary.json" || !e.Saved.Equal(t0.Add(time.Minute)) || e.Problem != "" {
		t.Errorf("retrieval listed as %+v", e)
	}
	if e := all[1]; e.Index != "tg" || e.Questions != 200 || e.Failed != 2 || strings.Join(e.Systems, ",") != "asof,study" {
		t.Errorf("summaries listed as %+v", e)
	}
	if e := all[0]; !strings.Contains(e.Problem, "unfinished: no summary.json") || !e.Saved.Equal(t0.Add(3*time.Hour)) {
		t.Errorf("unfinished listed as %+v", e)
	}

	docs := []struct {
		name, id, format string
		kind             string
		want             string
		err              error
		wantErr          string
	}{
		{name: "retrieval json", id: "e1", format: FormatJSON, kind: EvalRetrieval, want: retrieval},
		{name: "retrieval html is the report", id: "e1", format: FormatHTML, kind: EvalRetrieval, want: "<html>report e1"},
		{name: "retrieval markdown is the tables", id: "e1", format: FormatMarkdown, kind: EvalRetrieval,
			want: "# Evaluation e1\n\nIndex `rtqa`, 40 judged questions, 1 systems.\n\n| system | nDCG@10 |"},
		{name: "summaries json", id: "s1", format: FormatJSON, kind: EvalSummaries, want: `"queries": 200`},
		{name: "summaries markdown is table.md", id: "s1", format: FormatMarkdown, kind: EvalSummaries, want: "| system | answers |\n"},
		{name: "summaries have no html", id: "s1", format: FormatHTML, err: ErrNoFormat, wantErr: "evaluation s1 is a summaries evaluation: it has no HTML report (its formats: json, md)"},
		{name: "unfinished", id: "e2", format: FormatJSON, err: ErrNoEval, wantErr: "no finished evaluation e2 in "},
		{name: "unknown", id: "nope", format: FormatJSON, err: ErrNoEval},
		{name: "the summaries folder is not an evaluation", id: "summaries", format: FormatJSON, err: ErrNoEval},
		{name: "climbing out", id: "../runs", format: FormatJSON, wantErr: `eval id "../runs" has a '/'`},
		{name: "bad format", id: "e1", format: "csv", wantErr: `format "csv"`},
	}
	for _, tc := range docs {
		t.Run("doc: "+tc.name, func(t *testing.T) {
			got, kind, err := EvalDoc(ctx, s.b, tc.id, tc.format)
			if tc.err != nil && !errors.Is(err, tc.err) || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %v %q", err, tc.err, tc.wantErr)
			}
			if tc.err == nil && tc.wantErr == "" && (err != nil || kind != tc.kind || !strings.Contains(string(got), tc.want)) {
				t.Fatalf("%v; kind %q; document lacks %q:\n%.600s", err, kind, tc.want, got)
			}
		})
	}
}

func TestHeadIndex(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{name: "third, as encoding/json writes it", doc: `{"version":3,"run_id":"r","index":"news","results":[{"rank":1}]}`, want: "news"},
		{name: "after the results", doc: `{"results":[{"rank":1,"index":"inner"}],"query":"q","index":"tg"}`, want: "tg"},
		{name: "damaged after it", doc: `{"index":"news","results":[`, want: "news"},
		{name: "none", doc: `{"query":"q"}`},
		{name: "not a string", doc: `{"index":7}`},
		{name: "damaged before it", doc: `{"query":,"index":"news"}`},
		{name: "not an object", doc: `["index","news"]`},
		{name: "empty", doc: ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := headIndex([]byte(tc.doc)); got != tc.want {
				t.Fatalf("headIndex = %q, want %q", got, tc.want)
			}
		})
	}
}
