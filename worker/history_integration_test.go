package worker_test

import (
	"bytes"
	"context"
	"hash/fnv"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

// toyEmbedder embeds a text as the unit vector of its hash bucket, in the toy index's
// dimension: enough for the dense branch to run, without the model.
// runToyWorker runs a worker with the toy embedder (12 dimensions) on b until the test ends;
// the context it returns ends with it.
func runToyWorker(t *testing.T, b blob.Bucket, identity string) context.Context {
	return runWorkerWith(t, b, identity, toyEmbedder{dim: 12}, schemas.ModelRef{ID: "toy", SHA256: "toy", Dim: 12})
}

// runWorkerWith runs a worker embedding with emb (as model) on b until the test ends; the
// context it returns ends with it.
func runWorkerWith(t *testing.T, b blob.Bucket, identity string, emb embed.Embedder, model schemas.ModelRef) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := config.Default().Worker
	cfg.ShutdownTimeout = 2 * time.Second
	go func() {
		done <- worker.Run(ctx, tc, cfg, worker.Deps{Bucket: b, Embedder: emb, Model: model, Identity: identity})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ctx
}

// buildIndex runs a monthly IndexBuild of index over the store file key (Replace: it may drop
// documents the live index holds) under workflow id, and returns its result.
func buildIndex(t *testing.T, ctx context.Context, id, index, key string) workflows.IndexBuildResult {
	t.Helper()
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.IndexBuild, workflows.IndexBuildInput{
		Index: index, Inputs: []activities.InputFile{{Key: key, Name: path.Base(key)}}, Period: "month",
		Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 10}, Replace: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.IndexBuildResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

type toyEmbedder struct{ dim int }

func (e toyEmbedder) embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		h := fnv.New32a()
		h.Write([]byte(s))
		out[i] = make([]float32, e.dim)
		out[i][int(h.Sum32())%e.dim] = 1
	}
	return out
}

func (e toyEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return e.embed(texts), nil
}

func (e toyEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return e.embed(texts), nil
}

func (e toyEmbedder) Dim() int        { return e.dim }
func (e toyEmbedder) ModelID() string { return "toy" }
func (e toyEmbedder) Close() error    { return nil }

// TestDigestAndEvalThroughRealServer runs a Digest (three topics, two at a time, the second
// failing at once so the slots free out of order) and an Eval (three batches, two at a time)
// on the real Temporal server and S3 gateway over the toy index, then an IndexBuild; with
// -update-history their histories become replay fixtures (digest-fanout.json, eval-fanout.json,
// index-fanout.json). digest-fixture.json, eval-fixture.json and buildshard-toy.json were
// recorded by this test (IDs digest-fixture, eval-fixture, index-toy) with the code before
// fanOut, and are kept for the old path.
func TestDigestAndEvalThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "history-it")
	publishToyIndex(t, b, "toy", 12)
	ctx := runToyWorker(t, b, "history-it")
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer rcancel()

	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "digest-fanout", TaskQueue: workflows.TaskQueue}, workflows.Digest, workflows.DigestInput{
		Name: "fixture", Index: "toy", AsOf: time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), Concurrency: 2,
		Topics: []digest.Topic{
			{Name: "Rate", Query: "key rate decision", Mode: "bm25"},
			{Name: "Broken", Query: "the krona", Mode: "no-such-mode"}, // fails in ReadQuery, not retried
			{Name: "Wages", Query: "wages", Mode: "bm25"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var dig workflows.DigestResult
	if err := run.Get(rctx, &dig); err != nil {
		t.Fatal(err)
	}
	if dig.Topics != 3 || dig.Failed != 1 || dig.Keys.Markdown == "" {
		t.Fatalf("digest %+v", dig)
	}
	if _, err := b.Stat(ctx, dig.Keys.Markdown); err != nil {
		t.Fatalf("digest markdown: %v", err)
	}

	day := func(d int) time.Time { return time.Date(2024, 3, d, 12, 0, 0, 0, time.UTC) }
	putParquet(t, b, "eval/questions.parquet", []schemas.EvalQuestion{
		{QuestionID: "q1", QuestionDate: day(5), Question: "key rate decision 3"},
		{QuestionID: "q2", QuestionDate: day(8), Question: "key rate decision about wages"},
		{QuestionID: "q3", QuestionDate: day(12), Question: "the budget"},
	})
	putParquet(t, b, "eval/qrels.parquet", []schemas.Qrel{
		{QuestionID: "q1", DocID: "d03", Grade: 2, DaysBefore: 2},
		{QuestionID: "q2", DocID: "d07", Grade: 2, DaysBefore: 1},
		{QuestionID: "q3", DocID: "d10", Grade: 2, DaysBefore: 2},
	})
	run, err = tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "eval-fanout", TaskQueue: workflows.TaskQueue}, workflows.Eval, workflows.EvalInput{
		EvalID: "fixture", Index: "toy", QuestionsKey: "eval/questions.parquet", QrelsKey: "eval/qrels.parquet",
		Systems: []string{"bm25", "temporal_rrf"}, BatchSize: 1, Concurrency: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	var ev workflows.EvalResult
	if err := run.Get(rctx, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Batches != 3 || ev.Finish.SummaryKey == "" {
		t.Fatalf("eval %+v", ev)
	}

	// An index build with the toy embedder, for a BuildShard child's history.
	putParquet(t, b, "corpora/toy.parquet", []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent.", "x.com"},
		{"b", "2024-02-02", "Oil fell after OPEC.", "y.com"},
	})
	run, err = tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "index-fanout", TaskQueue: workflows.TaskQueue}, workflows.IndexBuild, workflows.IndexBuildInput{
		Index: "toy-built", Inputs: []activities.InputFile{{Key: "corpora/toy.parquet", Name: "toy.parquet"}},
		Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	var built workflows.IndexBuildResult
	if err := run.Get(rctx, &built); err != nil {
		t.Fatal(err)
	}
	if built.ShardsBuilt != 2 {
		t.Fatalf("index build %+v", built)
	}
	if *updateHistory {
		saveHistory(t, "digest-fanout")
		saveHistory(t, "eval-fanout")
		saveHistory(t, "index-fanout")
	}
}

func putParquet[T any](t *testing.T, b blob.Bucket, key string, rows []T) {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
}

// TestIndexBuildInBatchesThroughRealServer builds three daily shards through the real server
// and S3 gateway: one BuildShardBatch child, whose three activities each take the whole batch.
// With -update-history its history and the child's become replay fixtures (index-batch.json,
// buildshardbatch-toy.json). index-stored-shards.json is the same build (ID
// index-stored-shards) recorded with the code before batching: one BuildShard child a shard,
// plan in the store; it is kept for that path.
func TestIndexBuildInBatchesThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "batch-it")
	ctx := runToyWorker(t, b, "batch-it")
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	putParquet(t, b, "corpora/days.parquet", []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent.", "x.com"},
		{"b", "2024-01-06", "Oil fell after OPEC.", "y.com"},
		{"c", "2024-01-08", "The key rate was kept at 16 percent.", "x.com"},
	})
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "index-batch", TaskQueue: workflows.TaskQueue}, workflows.IndexBuild, workflows.IndexBuildInput{
		Index: "toy-batch", Inputs: []activities.InputFile{{Key: "corpora/days.parquet", Name: "days.parquet"}}, Period: "day",
		Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 10},
	})
	if err != nil {
		t.Fatal(err)
	}
	var built workflows.IndexBuildResult
	if err := run.Get(rctx, &built); err != nil {
		t.Fatal(err)
	}
	if built.ShardsBuilt != 3 || built.PartsEmbedded != 3 || built.Counts.Chunks != 3 {
		t.Fatalf("index build %+v: want 3 shards of one chunk", built)
	}
	data, err := blob.ReadAll(rctx, b, built.ManifestKey)
	if err != nil {
		t.Fatal(err)
	}
	m, err := schemas.DecodeManifest(data)
	if err != nil || len(m.Shards) != 3 {
		t.Fatalf("manifest: %+v, %v", m.Shards, err)
	}
	child := "index-batch/batch-" + m.Shards[0].ID
	if scheduled, _ := historySteps(t, child); !slices.Equal(scheduled, []string{"ChunkShard", "EmbedShard", "WriteShard"}) {
		t.Fatalf("%s ran %v; want each shard activity once, for the whole batch", child, scheduled)
	}
	if *updateHistory {
		saveHistory(t, "index-batch")
		saveHistoryAs(t, child, "buildshardbatch-toy")
	}
}
