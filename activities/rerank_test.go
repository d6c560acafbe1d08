package activities_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/rerank/reranktest"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// toyDoc is a document of a hand-made index: one chunk with a 3-d vector.
type toyDoc struct {
	id, date, source, text string
	vec                    []float32
}

// publishToy writes docs as one shard of index name (model toy, 3-d) to b and publishes it.
func publishToy(t *testing.T, env *testsuite.TestActivityEnvironment, acts *activities.Activities, b blob.Bucket, name string, docs []toyDoc) {
	t.Helper()
	ctx := context.Background()
	model := acts.Model
	var chunks []schemas.Chunk
	vec := vecindex.New(model.Dim, model.ID)
	for _, d := range docs {
		chunks = append(chunks, schemas.Chunk{ChunkID: d.id + "#0", DocID: d.id, PublishedAt: utcDay(d.date), Title: d.text, Text: d.text,
			Source: d.source, Lang: "en", DedupKey: d.id})
		vec.Add(d.vec)
	}
	dir := filepath.Join(t.TempDir(), "2024")
	meta, err := shard.Write(dir, "2024", "id2024", len(chunks), chunks, vec)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(shard.Files(meta), shard.MetaFile) {
		r, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, path.Join(layout.IndexPrefix(name), layout.ShardPrefix("2024", meta.ID), f), r); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	run[activities.PublishManifestResult](t, env, acts.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: name, Period: "year", Model: model, Shards: []schemas.ShardMeta{meta}}})
}

// TestRerankReordersAnswer asks through the Candidates activity (the Ask workflow's ranking
// step) with and without a reranker on a loopback server: the reranker reorders the results
// (replace: into its own order), sees only what the as-of mask allowed (a better-matching
// document published after the anchor is neither sent nor returned), and a server that
// refuses the request fails the activity for good, naming the server.
func TestRerankReordersAnswer(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const q = "central bank key rate decision"
	docs := []toyDoc{
		{"pie", "2024-05-14", "food", "apple pie with key ingredients", []float32{0, 0.2, 1}},
		{"raised", "2024-05-13", "cbr", "key rate raised to 16 percent", []float32{1, 0, 0}},
		{"explained", "2024-05-01", "ft", "central bank key rate decision explained", []float32{0.8, 0.6, 0}},
		{"holds", "2024-04-01", "wsj", "central bank holds; key rate decision due", []float32{0.6, 0.8, 0}},
		{"future", "2024-05-20", "cbr", "today: central bank key rate decision, central bank key rate", []float32{1, 0, 0}},
	}
	model := schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	plain := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model}}
	env.RegisterActivity(plain)
	publishToy(t, env, plain, b, "toy", docs)

	ask := func(t *testing.T, acts *activities.Activities, runID string) ([]string, error) {
		t.Helper()
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		v, err := env.ExecuteActivity(acts.Candidates, activities.CandidatesInput{AnswerInput: activities.AnswerInput{
			RunID: runID, Index: "toy", Query: q, AsOf: utcDay("2024-05-15"),
			Read: activities.ReadQueryResult{Mode: "recency", Text: q, Interpretation: "recency"}, Vector: []float32{1, 0, 0}, Model: model,
			Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions(),
		}})
		if err != nil {
			return nil, err
		}
		var res activities.CandidatesResult
		if err := v.Get(&res); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range res.Answer.Results {
			ids = append(ids, r.DocID)
		}
		return ids, nil
	}
	base, err := ask(t, plain, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 4 || slices.Contains(base, "future") {
		t.Fatalf("results without a reranker %v, want the 4 documents published by the anchor", base)
	}
	// What reranktest.Overlap scores each document: the order replace must produce (ties keep
	// the ranking's order).
	byScore := slices.Clone(base)
	text := map[string]string{}
	for _, d := range docs {
		text[d.id] = d.text
	}
	slices.SortStableFunc(byScore, func(x, y string) int {
		return int(reranktest.Overlap(q, text[y]) - reranktest.Overlap(q, text[x]))
	})
	if slices.Equal(byScore, base) {
		t.Fatalf("the reranker's order %v is the ranking's: the test would show nothing", base)
	}

	for _, api := range []string{rerank.APICohere, rerank.APITEI} {
		t.Run(api, func(t *testing.T) {
			srv := reranktest.New(t, api)
			c, err := rerank.NewClient(rerank.ClientConfig{BaseURL: srv.URL, API: api, Model: "toy-reranker", Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			replace := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model, Reranker: c, RerankOptions: rerank.Options{Fuse: rerank.FuseReplace}}}
			got, err := ask(t, replace, "replace-"+api)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, byScore) {
				t.Errorf("reranked (replace) %v, want the reranker's order %v (unreranked %v)", got, byScore, base)
			}
			for _, r := range srv.Requests() {
				if r.Query != q || len(r.Docs) != 4 {
					t.Errorf("request %q with %d documents, want the question and the 4 allowed documents", r.Query, len(r.Docs))
				}
				for _, d := range r.Docs {
					if strings.Contains(d, "today") {
						t.Errorf("the document published after the anchor was sent to the reranker")
					}
				}
			}
			fused := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model, Reranker: c}}
			got, err = ask(t, fused, "rrf-"+api)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(base))) {
				t.Errorf("reranked (rrf) %v is not a permutation of %v", got, base)
			}
		})
	}

	t.Run("a server that refuses the request", func(t *testing.T) {
		srv := reranktest.New(t, rerank.APICohere)
		srv.SetFault(func(_ int, _ reranktest.Request, w http.ResponseWriter) bool {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message":"model toy-reranker not found"}`)
			return true
		})
		c, err := rerank.NewClient(rerank.ClientConfig{BaseURL: srv.URL, Model: "toy-reranker"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask(t, &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model, Reranker: c}}, "refused")
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != activities.ErrTypeConfig || !app.NonRetryable() ||
			!strings.Contains(err.Error(), srv.URL+"/rerank") || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("err %v, want a non-retryable BadConfiguration naming the server", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests, want 1 (a 404 is not retried)", n)
		}
	})

	// A reply that parses but scores a document it was not sent fails the ask for good: the
	// server answers the same again.
	t.Run("a reply that breaks the API", func(t *testing.T) {
		srv := reranktest.New(t, rerank.APICohere)
		srv.SetFault(func(_ int, _ reranktest.Request, w http.ResponseWriter) bool {
			fmt.Fprint(w, `{"results":[{"index":99,"relevance_score":1}]}`)
			return true
		})
		c, err := rerank.NewClient(rerank.ClientConfig{BaseURL: srv.URL, Model: "toy-reranker"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ask(t, &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model, Reranker: c}}, "broken")
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != activities.ErrTypeConfig || !app.NonRetryable() || !strings.Contains(err.Error(), "index 99 out of range") {
			t.Fatalf("err %v, want a non-retryable BadConfiguration saying index 99 is out of range", err)
		}
	})
}
