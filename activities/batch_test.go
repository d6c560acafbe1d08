package activities_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/lexical"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// batchFixture is a corpus of daily documents, some long enough for several chunks (and
// several vector parts of two chunks), planned as daily shards.
func batchFixture(t *testing.T, env *testsuite.TestActivityEnvironment, b blob.Bucket) (activities.PlanIndexResult, schemas.ChunkConfig) {
	t.Helper()
	var rows []row
	for d := 1; d <= 9; d++ {
		text := fmt.Sprintf("Day %d: the key rate was %d percent.", d, 5+d)
		if d%3 == 0 {
			text = strings.Repeat(fmt.Sprintf("On day %d the index closed at %d points after a long session. ", d, 1000+d), 12)
		}
		rows = append(rows, row{fmt.Sprintf("d%d", d), fmt.Sprintf("2024-01-%02d", d), "", text, "wire"})
	}
	putFixture(t, b, "corpora/days.parquet", rows)
	cfg := schemas.ChunkConfig{Size: 200, Overlap: 20, Min: 10}
	var a *activities.Activities
	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{Index: "test", RunID: "run1",
		Inputs: []activities.InputFile{{Key: "corpora/days.parquet", Name: "days.parquet"}}, Period: "day", Chunk: cfg})
	if len(plan.Periods) != 9 {
		t.Fatalf("planned %d periods, want 9", len(plan.Periods))
	}
	return plan, cfg
}

// batchInputs are the batch forms of the three activities' inputs for every period of plan.
func batchInputs(plan activities.PlanIndexResult, cfg schemas.ChunkConfig) (activities.ChunkShardInput, func(ch activities.ChunkShardResult) activities.EmbedShardInput, func(ch activities.ChunkShardResult, emb activities.EmbedShardResult) activities.WriteShardInput) {
	var chunk activities.ChunkShardInput
	for _, p := range plan.Periods {
		chunk.Shards = append(chunk.Shards, activities.ChunkShardInput{Index: "test", ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
	}
	embed := func(ch activities.ChunkShardResult) activities.EmbedShardInput {
		in := activities.EmbedShardInput{Model: plan.Model}
		for i, p := range plan.Periods {
			in.Shards = append(in.Shards, activities.EmbedShardInput{ChunksKey: ch.Shards[i].ChunksKey, VectorsPrefix: layout.VectorsPrefix("test", p.ShardID), PartSize: 2, Model: plan.Model})
		}
		return in
	}
	write := func(ch activities.ChunkShardResult, emb activities.EmbedShardResult) activities.WriteShardInput {
		var in activities.WriteShardInput
		for i, p := range plan.Periods {
			in.Shards = append(in.Shards, activities.WriteShardInput{Index: "test", Period: p.Period, ShardID: p.ShardID, Docs: p.Docs,
				ChunksKey: ch.Shards[i].ChunksKey, VectorsPrefix: layout.VectorsPrefix("test", p.ShardID), Parts: emb.Shards[i].Parts})
		}
		return in
	}
	return chunk, embed, write
}

// TestBatchWritesTheSameShards builds one corpus shard by shard (what BuildShard runs) and as
// one batch (what BuildShardBatch runs): the same shard ids, no staging left, and object for
// object the same bytes, but for the BM25 index. bleve's segment files are not
// byte-reproducible from one build of a shard to the next, batched or not (their layout
// follows Go's map order), so bm25.zip is compared by what it answers, and meta.json with its
// sha256 of bm25.zip set aside.
func TestBatchWritesTheSameShards(t *testing.T) {
	var a *activities.Activities
	oneEnv, oneB := buildEnv(t)
	plan, cfg := batchFixture(t, oneEnv, oneB)
	one := buildShards(t, oneEnv, "test", plan, cfg)

	batchEnv, batchB := buildEnv(t)
	plan2, _ := batchFixture(t, batchEnv, batchB)
	chunkIn, embedIn, writeIn := batchInputs(plan2, cfg)
	ch := run[activities.ChunkShardResult](t, batchEnv, a.ChunkShard, chunkIn)
	if len(ch.Shards) != len(plan2.Periods) {
		t.Fatalf("chunked %d shards of %d", len(ch.Shards), len(plan2.Periods))
	}
	emb := run[activities.EmbedShardResult](t, batchEnv, a.EmbedShard, embedIn(ch))
	multi := 0
	for i, e := range emb.Shards {
		if e.Chunks != ch.Shards[i].Chunks || e.Embedded != e.Parts || e.Resumed != 0 {
			t.Fatalf("shard %d embedded %+v, chunked %d", i, e, ch.Shards[i].Chunks)
		}
		if e.Parts > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no shard of several vector parts: the fixture does not test parts")
	}
	if w := run[activities.WriteShardResult](t, batchEnv, a.WriteShard, writeIn(ch, emb)); w.Meta.ID != "" {
		t.Fatalf("a batch's WriteShard returned a meta: %+v", w.Meta)
	}

	if len(one) != len(plan.Periods) {
		t.Fatalf("built %d shards one by one, want %d", len(one), len(plan.Periods))
	}
	for i, p := range plan2.Periods {
		if p.ShardID != plan.Periods[i].ShardID || one[i].Meta.ID != p.ShardID {
			t.Fatalf("period %s: shard %s in a batch, %s (meta %s) one by one", p.Period, p.ShardID, plan.Periods[i].ShardID, one[i].Meta.ID)
		}
	}
	want, got := objects(t, oneB, "indexes/test/"), objects(t, batchB, "indexes/test/")
	if len(want) != 4*len(plan.Periods)+len(plan.Periods) || len(got) != len(want) {
		t.Fatalf("%d objects one by one, %d in a batch; want 5 a shard (4 files and meta.json)", len(want), len(got))
	}
	same := 0
	for k, w := range want {
		g, ok := got[k]
		switch {
		case strings.Contains(k, "/staging/"):
			t.Errorf("staging left: %s", k)
		case !ok:
			t.Errorf("%s: not written by the batch", k)
		case bytes.Equal(g, w):
			same++
		case strings.HasSuffix(k, "/"+shard.BM25File):
			sameBM25(t, k, g, w)
		case strings.HasSuffix(k, "/"+shard.MetaFile):
			if gm, wm := metaBut(t, g, shard.BM25File), metaBut(t, w, shard.BM25File); !reflect.DeepEqual(gm, wm) {
				t.Errorf("%s: %+v in a batch, %+v one by one", k, gm, wm)
			}
		default:
			t.Errorf("%s: %d bytes in a batch, %d one by one, not the same", k, len(g), len(w))
		}
	}
	if same < 3*len(plan.Periods) {
		t.Errorf("only %d of %d objects byte-identical: chunks, vectors and int8 codes must all be", same, len(want))
	}
}

// metaBut decodes a shard's meta.json with the sha256 of its file name cleared.
func metaBut(t *testing.T, data []byte, name string) schemas.ShardMeta {
	t.Helper()
	var m schemas.ShardMeta
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for i, o := range m.Objects {
		if path.Base(o.Key) == name {
			m.Objects[i].SHA256 = ""
		}
	}
	return m
}

// sameBM25 opens two bm25.zip and checks they hold the same files and answer every query alike.
func sameBM25(t *testing.T, key string, got, want []byte) {
	t.Helper()
	dir := t.TempDir()
	open := func(name string, data []byte) (*lexical.Index, []string) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range zr.File {
			files = append(files, fmt.Sprintf("%s %d", f.Name, f.UncompressedSize64))
		}
		zp := filepath.Join(dir, name+".zip")
		if err := os.WriteFile(zp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := shard.OpenBM25(zp, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x, files
	}
	g, gf := open("got", got)
	w, wf := open("want", want)
	if !reflect.DeepEqual(gf, wf) {
		t.Errorf("%s: files %v in a batch, %v one by one", key, gf, wf)
	}
	hits := 0
	for _, q := range []string{"key rate", "percent", "index closed points", "session", "day"} {
		gh, gerr := g.Search(q, 10, lexical.Window{})
		wh, werr := w.Search(q, 10, lexical.Window{})
		if gerr != nil || werr != nil || !reflect.DeepEqual(gh, wh) {
			t.Errorf("%s: %q finds %v (%v) in a batch, %v (%v) one by one", key, q, gh, gerr, wh, werr)
		}
		hits += len(wh)
	}
	if hits == 0 {
		t.Errorf("%s: no query finds anything: the comparison tests nothing", key)
	}
}

// objects reads every object under prefix.
func objects(t *testing.T, b blob.Bucket, prefix string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	keys, err := blob.List(ctx, b, prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, o := range keys {
		data, err := blob.ReadAll(ctx, b, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[o.Key] = data
	}
	return out
}

// TestBatchEmbedResumesAndRefusesAnotherModel: a retry of a batch's EmbedShard embeds only the
// parts that are not stored, shard by shard; a batch planned for another model is refused at
// once, as a final Mismatch, before anything is embedded.
func TestBatchEmbedResumesAndRefusesAnotherModel(t *testing.T) {
	var a *activities.Activities
	ctx := context.Background()
	env, b := buildEnv(t)
	plan, cfg := batchFixture(t, env, b)
	chunkIn, embedIn, _ := batchInputs(plan, cfg)
	ch := run[activities.ChunkShardResult](t, env, a.ChunkShard, chunkIn)

	other := embedIn(ch)
	other.Model.SHA256 = "another"
	for i := range other.Shards {
		other.Shards[i].Model = other.Model
	}
	_, err := env.ExecuteActivity(a.EmbedShard, other)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeMismatch {
		t.Fatalf("another model: err = %v, want a final %s", err, activities.ErrTypeMismatch)
	}
	staged, _ := blob.List(ctx, b, "indexes/test/staging/")
	for _, o := range staged {
		if strings.HasSuffix(o.Key, ".f32") {
			t.Fatalf("vectors stored for a refused batch: %s", o.Key)
		}
	}

	first := run[activities.EmbedShardResult](t, env, a.EmbedShard, embedIn(ch))
	// A worker killed mid-batch: the third shard's last part and every part after it are lost.
	lost := 0
	for i, e := range first.Shards {
		if i < 2 {
			continue
		}
		for p := range e.Parts {
			if i == 2 && p < e.Parts-1 {
				continue
			}
			if err := b.Delete(ctx, layout.PartKey(layout.VectorsPrefix("test", plan.Periods[i].ShardID), p)); err != nil {
				t.Fatal(err)
			}
			lost++
		}
	}
	again := run[activities.EmbedShardResult](t, env, a.EmbedShard, embedIn(ch))
	embedded, resumed, parts := 0, 0, 0
	for _, e := range again.Shards {
		embedded += e.Embedded
		resumed += e.Resumed
		parts += e.Parts
	}
	if embedded != lost || resumed != parts-lost || lost == 0 {
		t.Fatalf("retry embedded %d and resumed %d of %d parts, want %d embedded", embedded, resumed, parts, lost)
	}
}
