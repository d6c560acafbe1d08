package activities_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/dedup"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

// TestDamagedShardIsRefused publishes a one-shard index, damages one of its files in the store
// and asks: the load fails, without retries, naming the damaged key, instead of searching
// vectors or a BM25 index that are not what the build wrote. A shard written before int8
// codes (no vectors.i8, meta without it) loads and is scanned in float32; codes written for
// other vectors, though their sha256 is what meta records, are refused the same way.
func TestDamagedShardIsRefused(t *testing.T) {
	model := schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}
	oneRow := vecindex.New(3, model.ID)
	oneRow.Add([]float32{1, 0, 0})
	var otherCodes bytes.Buffer
	vecindex.QuantizeInt8(oneRow).WriteTo(&otherCodes)
	tests := []struct {
		name   string
		file   string
		damage func([]byte) []byte
		// meta edits the shard's meta after the damage (nil: as written); noInt8 says the
		// loaded shard has no codes; want is the error's text when it is not "<key> is damaged".
		meta   func(schemas.ShardMeta, []byte) schemas.ShardMeta
		noInt8 bool
		want   string
	}{
		{name: "vectors.f32, one byte changed", file: shard.VectorsFile, damage: func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b }},
		{name: "bm25.zip, truncated", file: shard.BM25File, damage: func(b []byte) []byte { return b[:len(b)-100] }},
		{name: "chunks.parquet, one byte added", file: shard.ChunksFile, damage: func(b []byte) []byte { return append(b, 0) }},
		{name: "vectors.i8, one byte changed", file: shard.Int8File, damage: func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b }},
		{name: "vectors.i8 of one vector for two, meta agreeing", file: shard.Int8File, damage: func([]byte) []byte { return otherCodes.Bytes() },
			meta: func(m schemas.ShardMeta, data []byte) schemas.ShardMeta {
				m.Objects = slices.Clone(m.Objects)
				for i, o := range m.Objects {
					if path.Base(o.Key) == shard.Int8File {
						sum := sha256.Sum256(data)
						m.Objects[i].Size, m.Objects[i].SHA256 = int64(len(data)), hex.EncodeToString(sum[:])
					}
				}
				return m
			},
			want: "int8 codes for 1 × 3 vectors, the float32 file has 2 × 3"},
		{name: "written before int8 codes", file: shard.Int8File, damage: func([]byte) []byte { return nil },
			meta: func(m schemas.ShardMeta, _ []byte) schemas.ShardMeta {
				m.Objects = slices.DeleteFunc(slices.Clone(m.Objects), func(o schemas.ObjectRef) bool { return path.Base(o.Key) == shard.Int8File })
				return m
			},
			noInt8: true},
		{name: "intact"},
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
			for _, name := range []string{shard.ChunksFile, shard.VectorsFile, shard.BM25File, shard.Int8File} {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if name == tc.file {
					data = tc.damage(data)
					if tc.meta != nil {
						meta = tc.meta(meta, data)
					}
					if data == nil {
						continue
					}
				}
				if _, err := b.Put(ctx, path.Join(layout.IndexPrefix("toy"), layout.ShardPrefix("2024", meta.ID), name), bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
			}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model}}
			env.RegisterActivity(acts)
			run[activities.PublishManifestResult](t, env, acts.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "year", Model: model, Shards: []schemas.ShardMeta{meta}}})
			_, err = env.ExecuteActivity(acts.Answer, activities.AnswerInput{
				Index: "toy", Query: "key rate", AsOf: utcDay("2024-05-15"),
				Read: activities.ReadQueryResult{Mode: "recency", Text: "key rate", Interpretation: "recency"}, Vector: []float32{1, 0, 0}, Model: model,
				Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions(),
			})
			if tc.file == "" || tc.noInt8 {
				if err != nil {
					t.Fatalf("intact shard: %v", err)
				}
				s, release, err := acts.Shards.Get(ctx, meta.ID, nil) // cached by Answer
				if err != nil {
					t.Fatal(err)
				}
				defer release()
				if (s.Int8 == nil) != tc.noInt8 || (s.Int8 != nil && s.Int8.Flat != s.Vectors) {
					t.Fatalf("loaded shard's Int8 = %v, want codes over its vectors: %v", s.Int8, !tc.noInt8)
				}
				return
			}
			var app *temporal.ApplicationError
			key := "indexes/toy/shards/2024/id2024/" + tc.file
			want := cmp.Or(tc.want, key+" is damaged")
			if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeMismatch || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want a non-retryable %s error saying %q", err, activities.ErrTypeMismatch, want)
			}
		})
	}
}
