package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/schemas"
)

// TestTheCLIRefusesBadInputBeforeStartingAnything runs each command against a Temporal
// address where nothing listens and a store folder: input the CLI can refuse must be refused
// before it dials Temporal (so no workflow can start) and before anything reaches the store.
// Input it cannot refuse fails on the dial ("connect to Temporal"), which the last cases show.
func TestTheCLIRefusesBadInputBeforeStartingAnything(t *testing.T) {
	dir := t.TempDir()
	doc := writeParquetFile(t, dir, "docs.parquet", []schemas.Document{{DocID: "a", PublishedAt: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Text: "text"}})
	type noText struct {
		DocID       string    `parquet:"doc_id"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Body        string    `parquet:"body"`
	}
	empty := writeParquetFile(t, dir, "empty.parquet", []schemas.Document{})
	body := writeParquetFile(t, dir, "body.parquet", []noText{{"a", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), "text"}})
	notes := filepath.Join(dir, "notes.parquet")
	if err := os.WriteFile(notes, []byte("question_id,question\nq1,what?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	questions := writeParquetFile(t, dir, "questions.parquet", []schemas.EvalQuestion{{QuestionID: "q1", QuestionDate: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC), Question: "what?"}})
	type qrelNoDays struct {
		QuestionID string `parquet:"question_id"`
		DocID      string `parquet:"doc_id"`
		Grade      int32  `parquet:"grade"`
	}
	qrels := writeParquetFile(t, dir, "qrels.parquet", []qrelNoDays{{"q1", "a", 2}})
	topics := filepath.Join(dir, "topics.yaml")
	if err := os.WriteFile(topics, []byte("topics:\n  - name: Rate\n    query: key rate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("topics:\n  - name: Rate\n    qeury: key rate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"index: not Parquet", []string{"index", "--index", "news", "--corpus", notes}, "notes.parquet: unreadable Parquet file: it is CSV, not Parquet; asof reads Parquet only. Convert it with DuckDB"},
		{"index: no rows", []string{"index", "--index", "news", "--corpus", empty}, "asof: --corpus: no documents to index: " + empty + " holds no rows (an empty input is not an index)\n"},
		{"index: no rows in two files", []string{"index", "--index", "news", "--corpus", empty, "--corpus", empty}, "no documents to index: " + empty + ", " + empty + " hold no rows"},
		{"index: no text column", []string{"index", "--index", "news", "--corpus", body}, `required column missing: "text" for text`},
		{"index: mapped column missing", []string{"index", "--index", "news", "--corpus", doc, "--map", "text=message"}, `"message" for text`},
		{"index: bad name", []string{"index", "--index", "News!", "--corpus", doc}, `index name "News!"`},
		{"ask: bad index name", []string{"ask", "--index", "News!", "key rate"}, `--index: index name "News!"`},
		{"ask: unknown mode", []string{"ask", "--index", "news", "--mode", "recnecy", "key rate"}, `--mode "recnecy": use auto or one of [recency`},
		{"ask: evolution with no group", []string{"ask", "--index", "news", "--mode", "evolution", "--evolution-k", "0", "key rate"}, "k per group 0"},
		{"eval: bad index name", []string{"eval", "--index", "News!", "--questions", questions, "--qrels", qrels, "--out", out}, `--index: index name "News!"`},
		{"eval: files swapped", []string{"eval", "--index", "news", "--questions", qrels, "--qrels", questions, "--out", out}, "--questions " + qrels + ": required column missing: question_date, question"},
		{"eval: not Parquet", []string{"eval", "--index", "news", "--queries", notes, "--out", out}, "--queries " + notes + ": unreadable Parquet file: it is CSV, not Parquet"},
		{"digest: bad index name", []string{"digest", "--index", "News!", "--topics", topics}, `--index: index name "News!"`},
		{"digest: a key mistyped", []string{"digest", "--index", "news", "--topics", typo}, "asof: " + typo + " line 3: unknown key `qeury` (did you mean `query`?)\n"},
		{"schedule create: bad index name", []string{"schedule", "create", "--name", "morning", "--cron", "0 7 * * *", "--index", "News!", "--topics", topics}, `--index: index name "News!"`},
		{"schedule create: a fixed day", []string{"schedule", "create", "--name", "morning", "--cron", "0 7 * * *", "--index", "news", "--topics", topics, "--as-of", "2026-03-31"},
			`--as-of "2026-03-31": a schedule answers as of today (each run's own day in --time-zone) or latest (the index's last day)`},
		{"schedule create: as of latest", []string{"schedule", "create", "--name", "morning", "--cron", "0 7 * * *", "--index", "news", "--topics", topics, "--as-of", "latest"}, "connect to Temporal at 127.0.0.1:1"},
		// Good input gets as far as the dial.
		{"index: good input", []string{"index", "--index", "news", "--corpus", doc}, "connect to Temporal at 127.0.0.1:1"},
		{"ask: good input", []string{"ask", "--index", "news", "--mode", "window", "key rate"}, "connect to Temporal at 127.0.0.1:1"},
		{"eval: good input", []string{"eval", "--index", "news", "--questions", questions, "--qrels", qrels, "--out", out}, "connect to Temporal at 127.0.0.1:1"},
		{"digest: good input", []string{"digest", "--index", "news", "--topics", topics}, "connect to Temporal at 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := t.TempDir()
			args := append(tt.args, "--temporal", "127.0.0.1:1", "--store", "file://"+store)
			code, _, errOut := runCLI(t, nil, args...)
			if code == 0 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q, want it to contain %q", code, errOut, tt.want)
			}
			if left, _ := os.ReadDir(store); len(left) > 0 {
				t.Errorf("the store holds %d entries (%s…): something was uploaded", len(left), left[0].Name())
			}
		})
	}
}

func TestCheckIndexExists(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "indexes/news/CURRENT", strings.NewReader("indexes/news/manifests/000001.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, index, want string
	}{
		{"published", "news", ""},
		{"a typo", "nwes", `index "nwes" does not exist (build it with ` + "`asof index --index nwes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkIndexExists(ctx, b, tt.index)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("checkIndexExists(%q) = %v, want %q", tt.index, err, tt.want)
			}
		})
	}
}

// TestSampleCorpusSpreadsRows: the sample takes rows evenly over the files laid end to end,
// at most the limit, every row when they hold fewer; with --from/--to, evenly over the rows
// dated in range.
func TestSampleCorpusSpreadsRows(t *testing.T) {
	dir := t.TempDir()
	var files []string
	var rows []int64
	for i, n := range []int{10, 300, 90} {
		docs := englishDocs(n)
		for j := range docs {
			docs[j].DocID = fmt.Sprintf("f%d-%03d", i, j)
		}
		files = append(files, writeParquetFile(t, dir, fmt.Sprintf("f%d.parquet", i), docs))
		rows = append(rows, int64(n))
	}
	perFile := func(docs []schemas.Document) map[string]int {
		m := map[string]int{}
		for _, d := range docs {
			m[d.DocID[:2]]++
		}
		return m
	}
	docs, err := sampleCorpus(context.Background(), files, rows, corpus.Options{}, 40)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := perFile(docs), map[string]int{"f0": 1, "f1": 30, "f2": 9}; !reflect.DeepEqual(got, want) {
		t.Fatalf("40 of 400 rows: %v, want %v", got, want)
	}
	if docs[0].DocID != "f0-000" || docs[1].DocID != "f1-000" || docs[2].DocID != "f1-010" {
		t.Fatalf("not every 10th row: %s, %s, %s", docs[0].DocID, docs[1].DocID, docs[2].DocID)
	}
	all, err := sampleCorpus(context.Background(), files, rows, corpus.Options{}, 1000)
	if err != nil || len(all) != 400 {
		t.Fatalf("a limit above the rows: %d documents, %v", len(all), err)
	}
	// englishDocs date two a day from 2024-01-01: up to 2024-01-05 are the first 10 rows of each
	// file, and the sample is spread over those 30 (every row of all 400 would find 4 of them).
	ranged, err := sampleCorpus(context.Background(), files, rows, corpus.Options{To: day("2024-01-05")}, 1000)
	if got, want := perFile(ranged), map[string]int{"f0": 10, "f1": 10, "f2": 10}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("--to 2024-01-05: %v, want %v (%v)", got, want, err)
	}
	ranged, err = sampleCorpus(context.Background(), files, rows, corpus.Options{To: day("2024-01-05")}, 15)
	if got, want := perFile(ranged), map[string]int{"f0": 5, "f1": 5, "f2": 5}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("--to 2024-01-05, 15 rows: %v, want %v (%v)", got, want, err)
	}
	if ranged[0].DocID != "f0-000" || ranged[1].DocID != "f0-002" {
		t.Fatalf("not every other row in range: %s, %s", ranged[0].DocID, ranged[1].DocID)
	}
}
