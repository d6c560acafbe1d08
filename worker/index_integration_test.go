package worker_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

type fixtureRow struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Text        string `parquet:"text"`
	Source      string `parquet:"source"`
}

// TestIndexBuildWithModel indexes a small fixture with bad rows through the real Temporal
// server, the real S3 gateway and the real E5 model, then runs again and finds nothing to do.
func TestIndexBuildWithModel(t *testing.T) {
	integration(t)
	emb := testmodel.E5(t)
	b := s3Bucket(t, "index-it")
	ctx := context.Background()
	rows := []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent.", "x.com"},
		{"b", "2024-01-25", "Инфляция замедлилась.", "@tg"},
		{"c", "2024-02-02", "Oil fell after OPEC.", "y.com"},
		{"bad-date", "yesterday", "No usable date.", "x.com"},
		{"d", "2024-03-15", "The key rate was kept at 16 percent.", "x.com"},
		{"", "2024-03-16", "No id.", "x.com"},
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[fixtureRow](&buf)
	w.Write(rows)
	w.Close()
	if _, err := b.Put(ctx, "corpora/fixture.parquet", &buf); err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	cfg := config.Default().Worker
	cfg.ShutdownTimeout = 2 * time.Second
	go func() {
		done <- worker.Run(wctx, tc, cfg, worker.Deps{Bucket: b, Embedder: emb, Model: schemas.ModelRef{ID: "e5-small-v2", SHA256: "fixture", Dim: 384}})
	}()
	defer func() { cancel(); <-done }()

	build := func(id string) workflows.IndexBuildResult {
		t.Helper()
		run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.IndexBuild, workflows.IndexBuildInput{
			Index: "fixture", Inputs: []activities.InputFile{{Key: "corpora/fixture.parquet", Name: "fixture.parquet"}},
			Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100},
		})
		if err != nil {
			t.Fatal(err)
		}
		rctx, rcancel := context.WithTimeout(ctx, 5*time.Minute)
		defer rcancel()
		var res workflows.IndexBuildResult
		if err := run.Get(rctx, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := build("index-fixture-1")
	c := first.Counts
	if c.Read != 6 || c.Indexed != 4 || c.QuarantinedTotal() != 2 || !c.Reconciles() || c.Chunks != 4 {
		t.Fatalf("counts %+v", c)
	}
	if first.ShardsBuilt != 3 || first.Seq != 1 || first.Unchanged {
		t.Fatalf("first build %+v", first)
	}
	data, err := blob.ReadAll(ctx, b, first.ManifestKey)
	if err != nil {
		t.Fatal(err)
	}
	m, err := schemas.DecodeManifest(data)
	if err != nil || len(m.Shards) != 3 || m.Shards[0].Period != "2024-01" || m.Shards[0].Chunks != 2 {
		t.Fatalf("manifest %+v %v", m, err)
	}
	for _, s := range m.Shards {
		for _, o := range s.Objects {
			if st, err := b.Stat(ctx, "indexes/fixture/"+o.Key); err != nil || st.Size != o.Size {
				t.Fatalf("shard object %s: %v", o.Key, err)
			}
		}
	}
	second := build("index-fixture-2")
	if !second.Unchanged || second.ShardsBuilt != 0 || second.ShardsReused != 3 || second.Seq != 1 {
		t.Fatalf("second build should be a no-op: %+v", second)
	}

	// Ask it as of a day before the last document: the Ask workflow through the real server.
	// This worker serves every queue with the embedder and no LLM, so every step is a local
	// activity (version "ask-local"). ask-fixture.json was recorded by this test with the code
	// before local activities (ID ask-fixture), and is kept for that path.
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "ask-local", TaskQueue: workflows.TaskQueue}, workflows.Ask,
		workflows.AskInput{Index: "fixture", Query: "key rate", AsOf: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var ans schemas.Answer
	if err := run.Get(ctx, &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) == 0 || ans.Results[0].DocID != "a" || ans.Mode != "recency" {
		t.Fatalf("answer %+v", ans.Results)
	}
	for _, r := range ans.Results {
		if r.PublishedAt.After(time.Date(2024, 3, 1, 23, 59, 59, 0, time.UTC)) {
			t.Fatalf("%s published %s, after the anchor", r.DocID, r.PublishedAt)
		}
	}
	scheduled, local := historySteps(t, "ask-local")
	if len(scheduled) != 0 || !slices.Equal(local, []string{"ReadQuery", "EmbedQuery", "Candidates", "Judge", "Compose", "SaveAnswer"}) {
		t.Fatalf("ask-local ran activities %v and local activities %v; want only local ones, one judge batch, no Summarize", scheduled, local)
	}
	if *updateHistory {
		saveHistory(t, "index-fixture-1")
		saveHistory(t, "ask-local")
	}
}
