package activities_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// TestDamagedShardIsRefused publishes a one-shard index, damages one of its files in the store
// and asks: the load fails, without retries, naming the damaged key, instead of searching
// vectors or a BM25 index that are not what the build wrote.
func TestDamagedShardIsRefused(t *testing.T) {
	model := schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}
	tests := []struct {
		name   string
		file   string
		damage func([]byte) []byte
	}{
		{"vectors.f32, one byte changed", shard.VectorsFile, func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b }},
		{"bm25.zip, truncated", shard.BM25File, func(b []byte) []byte { return b[:len(b)-100] }},
		{"chunks.parquet, one byte added", shard.ChunksFile, func(b []byte) []byte { return append(b, 0) }},
		{"intact", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			t.Setenv("TMPDIR", t.TempDir())
			b, err := blob.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			chunks := []schemas.Chunk{
				{ChunkID: "a#0", DocID: "a", PublishedAt: utcDay("2024-05-10"), Text: "key rate raised to 16 percent", Source: "cbr", Lang: "en", DedupKey: "a"},
				{ChunkID: "b#0", DocID: "b", PublishedAt: utcDay("2024-05-11"), Text: "apple pie recipe", Source: "food", Lang: "en", DedupKey: "b"},
			}
			vec := vecindex.New(3, model.ID)
			vec.Add([]float32{1, 0, 0})
			vec.Add([]float32{0, 0, 1})
			dir := filepath.Join(t.TempDir(), "s")
			meta, err := shard.Write(dir, "2024", "id2024", 2, chunks, vec)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{shard.ChunksFile, shard.VectorsFile, shard.BM25File, shard.MetaFile} {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if name == tc.file {
					data = tc.damage(data)
				}
				if _, err := b.Put(ctx, path.Join(activities.IndexPrefix("toy"), shard.Prefix("2024", meta.ID), name), bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
			}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			acts := &activities.Activities{Bucket: b, Model: model}
			env.RegisterActivity(acts)
			run[activities.PublishManifestResult](t, env, acts.PublishManifest, activities.PublishManifestInput{Index: "toy", Period: "year", Model: model, Shards: []schemas.ShardMeta{meta}})
			_, err = env.ExecuteActivity(acts.Answer, activities.AnswerInput{
				Index: "toy", Query: "key rate", AsOf: utcDay("2024-05-15"),
				Read: activities.ReadQueryResult{Mode: "recency", Text: "key rate", Interpretation: "recency"}, Vector: []float32{1, 0, 0}, Model: model,
				Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions(),
			})
			if tc.file == "" {
				if err != nil {
					t.Fatalf("intact shard: %v", err)
				}
				return
			}
			var app *temporal.ApplicationError
			key := "indexes/toy/shards/2024/id2024/" + tc.file
			if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeMismatch || !strings.Contains(err.Error(), key+" is damaged") {
				t.Fatalf("err = %v, want a non-retryable %s error naming %s", err, activities.ErrTypeMismatch, key)
			}
		})
	}
}
