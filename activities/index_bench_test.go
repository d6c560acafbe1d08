package activities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// BenchmarkIndexBuild runs the index activities (plan, chunk, embed, write) over the first 2,000
// documents of ../shared/data/realtimeqa/docs.parquet on a local store and reports documents/s
// and chunks/s. Embedding dominates: run it on an ONNX Runtime build (`make bench`).
//
// For `make bench`: ASOF_BENCH_DOCS=N takes the first N documents instead, and
// ASOF_BENCH_FROM=YYYY-MM-DD the first ones published on or after that day; ASOF_BENCH_KEEP=DIR
// builds in DIR (emptied first) and publishes the manifest of index "bench" there afterwards,
// so BenchmarkAnswerRealtimeQA can run on it; ASOF_BENCH_TEXTS=FILE writes the texts that were
// embedded (a JSON list) for the Python ONNX Runtime peer (bench/embed_peer.py --texts).
func BenchmarkIndexBuild(b *testing.B) {
	src := filepath.Join("..", "..", "shared", "data", "realtimeqa", "docs.parquet")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	n := 2000
	if v := os.Getenv("ASOF_BENCH_DOCS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("ASOF_BENCH_DOCS=%q: want a positive count", v)
		}
	}
	keep := os.Getenv("ASOF_BENCH_KEEP")
	emb := testmodel.Bench(b) // ASOF_BENCH_MODEL, else the default model
	b.Log(emb.Describe())
	// The model as a worker records it: `make bench` asks the kept index through asof serve,
	// whose worker refuses an index of other weights.
	model := testmodel.BenchRef(b)
	docs, err := parquet.ReadFile[schemas.Document](src)
	if err != nil {
		b.Fatal(err)
	}
	if v := os.Getenv("ASOF_BENCH_FROM"); v != "" {
		from, err := time.Parse(time.DateOnly, v)
		if err != nil {
			b.Fatalf("ASOF_BENCH_FROM: %v", err)
		}
		i := 0
		for i < len(docs) && docs[i].PublishedAt.Before(from) { // docs.parquet is in date order
			i++
		}
		docs = docs[i:]
	}
	docs = docs[:min(n, len(docs))]
	var buf bytes.Buffer
	if err := parquet.Write(&buf, docs); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	chunks := 0
	var last struct { // the last build, for ASOF_BENCH_KEEP and ASOF_BENCH_TEXTS
		acts   *activities.Activities
		plan   activities.PlanIndexResult
		metas  []schemas.ShardMeta
		chunks []string
	}
	for i := 0; b.Loop(); i++ {
		root := b.TempDir()
		if keep != "" {
			root = keep
			if err := os.RemoveAll(keep); err != nil {
				b.Fatal(err)
			}
		}
		bucket, err := blob.NewLocal(root)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bucket.Put(ctx, "corpora/first2000.parquet", bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
		acts := &activities.Activities{Deps: activities.Deps{Bucket: bucket, Embedder: emb, Model: model}}
		var s testsuite.WorkflowTestSuite
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		plan := run[activities.PlanIndexResult](b, env, acts.PlanIndex, activities.PlanIndexInput{
			Index: "bench", RunID: "bench", Inputs: []activities.InputFile{{Key: "corpora/first2000.parquet", Name: "first2000.parquet"}}, Period: "month", Chunk: cfg,
		})
		last.acts, last.plan, last.metas, last.chunks = acts, plan, nil, nil
		for _, p := range plan.Periods {
			ch := run[activities.ChunkShardResult](b, env, acts.ChunkShard, activities.ChunkShardInput{Index: "bench", ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
			prefix := layout.VectorsPrefix("bench", p.ShardID)
			e := run[activities.EmbedShardResult](b, env, acts.EmbedShard, activities.EmbedShardInput{ChunksKey: ch.ChunksKey, VectorsPrefix: prefix})
			w := run[activities.WriteShardResult](b, env, acts.WriteShard, activities.WriteShardInput{
				Index: "bench", Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, ChunksKey: ch.ChunksKey, VectorsPrefix: prefix, Parts: e.Parts,
			})
			chunks += ch.Chunks
			last.metas = append(last.metas, w.Meta)
			// The shard's own chunk rows: WriteShard deleted the staged ones.
			last.chunks = append(last.chunks, path.Join(layout.IndexPrefix("bench"), layout.ShardPrefix(w.Meta.Period, w.Meta.ID), shard.ChunksFile))
		}
	}
	elapsed := b.Elapsed()
	if keep != "" {
		var s testsuite.WorkflowTestSuite
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(last.acts)
		run[activities.PublishManifestResult](b, env, last.acts.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{
			Index: "bench", Period: "month", Chunk: cfg, Model: last.plan.Model, Shards: last.metas, Counts: last.plan.Counts, CreatedAt: time.Now(),
		}})
	}
	if p := os.Getenv("ASOF_BENCH_TEXTS"); p != "" {
		var texts []string
		for _, key := range last.chunks {
			data, err := blob.ReadAll(ctx, last.acts.Bucket, key)
			if err != nil {
				b.Fatal(err)
			}
			rows, err := parquet.Read[schemas.Chunk](bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range rows {
				texts = append(texts, shard.EmbedText(c))
			}
		}
		data, err := json.Marshal(texts)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(docs)*b.N)/elapsed.Seconds(), "docs/s")
	b.ReportMetric(float64(chunks)/elapsed.Seconds(), "chunks/s")
	b.ReportMetric(float64(len(docs)), "docs") // for the Python peer: its chunks/s → docs/s
}
