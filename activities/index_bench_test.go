package activities_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// BenchmarkIndexBuild runs the index activities (plan, chunk, embed, write) over the first 2,000
// documents of ../shared/data/realtimeqa/docs.parquet on a local store and reports documents/s
// and chunks/s. Embedding dominates: run it on an ONNX Runtime build (`make bench`).
func BenchmarkIndexBuild(b *testing.B) {
	src := filepath.Join("..", "..", "shared", "data", "realtimeqa", "docs.parquet")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	emb := testmodel.E5(b)
	b.Log(emb.Describe())
	docs, err := parquet.ReadFile[schemas.Document](src)
	if err != nil {
		b.Fatal(err)
	}
	docs = docs[:min(2000, len(docs))]
	var buf bytes.Buffer
	if err := parquet.Write(&buf, docs); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	chunks := 0
	for i := 0; b.Loop(); i++ {
		bucket, err := blob.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bucket.Put(ctx, "corpora/first2000.parquet", bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
		acts := &activities.Activities{Bucket: bucket, Embedder: emb, Model: schemas.ModelRef{ID: "e5-small-v2", SHA256: "bench", Dim: 384}}
		var s testsuite.WorkflowTestSuite
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		plan := run[activities.PlanIndexResult](b, env, acts.PlanIndex, activities.PlanIndexInput{
			Index: "bench", RunID: "bench", Inputs: []activities.InputFile{{Key: "corpora/first2000.parquet", Name: "first2000.parquet"}}, Period: "month", Chunk: cfg,
		})
		for _, p := range plan.Periods {
			ch := run[activities.ChunkShardResult](b, env, acts.ChunkShard, activities.ChunkShardInput{Index: "bench", ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
			prefix := activities.VectorsPrefix("bench", p.ShardID)
			e := run[activities.EmbedShardResult](b, env, acts.EmbedShard, activities.EmbedShardInput{ChunksKey: ch.ChunksKey, VectorsPrefix: prefix, PartSize: 64})
			run[activities.WriteShardResult](b, env, acts.WriteShard, activities.WriteShardInput{
				Index: "bench", Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, ChunksKey: ch.ChunksKey, VectorsPrefix: prefix, Parts: e.Parts,
			})
			chunks += ch.Chunks
		}
	}
	b.ReportMetric(float64(len(docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}
