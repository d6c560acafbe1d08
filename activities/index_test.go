package activities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// row is the fixture layout: string dates, so bad ones can be written.
type row struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Title       string `parquet:"title"`
	Text        string `parquet:"text"`
	Source      string `parquet:"source"`
}

var fixture = []row{
	{"r1", "2024-01-10", "Rates", "The central bank raised the key rate to 16 percent.", "a.com"},
	{"r2", "2024-01-20", "", "Инфляция в январе замедлилась до 7 процентов.", "@tg"},
	{"r3", "2024-02-05", "Oil", "Oil prices fell after the OPEC meeting.", "b.com"},
	{"bad1", "2024-02-31", "", "An impossible date.", "a.com"},
	{"bad2", "2024-02-10", "", "   ", "a.com"},
	{"r1", "2024-02-11", "Rates", "The central bank raised the key rate to 16 percent.", "a.com"}, // the same text again: a duplicate
	{"r4", "2024-03-01", "", "The key rate was kept at 16 percent in March.", "a.com"},
}

func putFixture(t *testing.T, b blob.Bucket, key string, rows []row) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	w.Write(rows)
	w.Close()
	if _, err := b.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
}

func run[T any](t testing.TB, env *testsuite.TestActivityEnvironment, fn any, in any) T {
	t.Helper()
	v, err := env.ExecuteActivity(fn, in)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := v.Get(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIndexPipelineOnLocalStore runs the index activities in order, with the real model, and
// checks reconciliation, shard files, resume after a lost part, and idempotent publishing.
func TestIndexPipelineWithModel(t *testing.T) {
	emb := testmodel.E5(t)
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: emb, Model: schemas.ModelRef{ID: "e5-small-v2", SHA256: "x", Dim: 384}}}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	var a *activities.Activities
	putFixture(t, b, "corpora/fixture.parquet", fixture)
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}

	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{
		Index: "test", RunID: "run1", Inputs: []activities.InputFile{{Key: "corpora/fixture.parquet", Name: "fixture.parquet"}}, Period: "month", Chunk: cfg,
	})
	c := plan.Counts
	if c.Read != 7 || c.Indexed != 4 || c.Quarantined[schemas.ReasonBadDate] != 1 || c.Quarantined[schemas.ReasonEmptyText] != 1 || c.Quarantined[schemas.ReasonDuplicateID] != 1 || !c.Reconciles() {
		t.Fatalf("counts %+v", c)
	}
	if len(plan.Periods) != 3 || plan.Periods[0].Period != "2024-01" || plan.Periods[0].Docs != 2 || plan.QuarantineKey != "quarantine/run1/rejects.parquet" {
		t.Fatalf("plan %+v", plan)
	}

	p := plan.Periods[0]
	ch := run[activities.ChunkShardResult](t, env, a.ChunkShard, activities.ChunkShardInput{Index: "test", ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
	if ch.Chunks != 2 {
		t.Fatalf("chunks %+v", ch)
	}
	in := activities.EmbedShardInput{ChunksKey: ch.ChunksKey, VectorsPrefix: "indexes/test/staging/" + p.ShardID + "/vectors", PartSize: 1, Model: plan.Model}
	// A worker with another model refuses the part, before embedding anything.
	other := in
	other.Model.ID = "e5-small-v2-q"
	if _, err := env.ExecuteActivity(a.EmbedShard, other); err == nil || !strings.Contains(err.Error(), "planned for model e5-small-v2-q") {
		t.Fatalf("a build planned for another model: %v", err)
	}
	emb1 := run[activities.EmbedShardResult](t, env, a.EmbedShard, in)
	if emb1.Parts != 2 || emb1.Embedded != 2 || emb1.Resumed != 0 {
		t.Fatalf("embed %+v", emb1)
	}
	// A worker that died after storing part 0: the retry embeds only part 1.
	if err := b.Delete(context.Background(), in.VectorsPrefix+"/00001.f32"); err != nil {
		t.Fatal(err)
	}
	emb2 := run[activities.EmbedShardResult](t, env, a.EmbedShard, in)
	if emb2.Embedded != 1 || emb2.Resumed != 1 {
		t.Fatalf("resume %+v", emb2)
	}
	wr := run[activities.WriteShardResult](t, env, a.WriteShard, activities.WriteShardInput{
		Index: "test", Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, ChunksKey: ch.ChunksKey, VectorsPrefix: in.VectorsPrefix, Parts: emb1.Parts,
	})
	if wr.Meta.Chunks != 2 || wr.Meta.Docs != 2 || len(wr.Meta.Objects) != 4 { // chunks, vectors, bm25, int8 codes
		t.Fatalf("meta %+v", wr.Meta)
	}
	for _, o := range wr.Meta.Objects {
		st, err := b.Stat(context.Background(), "indexes/test/"+o.Key)
		if err != nil || st.Size != o.Size {
			t.Fatalf("object %s: %+v %v", o.Key, st, err)
		}
	}
	// Planning again finds the shard done.
	again := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{
		Index: "test", RunID: "run2", Inputs: []activities.InputFile{{Key: "corpora/fixture.parquet", Name: "fixture.parquet"}}, Period: "month", Chunk: cfg,
	})
	if !again.Periods[0].Done || again.Periods[0].Meta.ID != p.ShardID || again.Periods[1].Done {
		t.Fatalf("replan %+v", again.Periods)
	}

	pub := activities.PublishManifestInput{Build: indexplan.Build{Index: "test", Period: "month", Chunk: cfg, Model: acts.Model, Shards: []schemas.ShardMeta{wr.Meta}, Counts: c, CreatedAt: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}}
	r1 := run[activities.PublishManifestResult](t, env, a.PublishManifest, pub)
	r2 := run[activities.PublishManifestResult](t, env, a.PublishManifest, pub)
	if r1.Seq != 1 || r1.Unchanged || r2.Seq != 1 || !r2.Unchanged {
		t.Fatalf("publish: %+v then %+v", r1, r2)
	}
	pub.Shards = append(pub.Shards, schemas.ShardMeta{ID: "other", Period: "2024-02"})
	r3 := run[activities.PublishManifestResult](t, env, a.PublishManifest, pub)
	if r3.Seq != 2 {
		t.Fatalf("publish changed shards: %+v", r3)
	}
	data, _ := blob.ReadAll(context.Background(), b, "indexes/test/CURRENT")
	var cur layout.Current
	json.Unmarshal(data, &cur)
	if cur.Seq != 2 || cur.Manifest != "manifests/000002.json" {
		t.Fatalf("CURRENT = %s", data)
	}
	m, err := blob.ReadAll(context.Background(), b, "indexes/test/"+cur.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	man, err := schemas.DecodeManifest(m)
	if err != nil || len(man.Shards) != 2 || man.Counts.Chunks != 2 {
		t.Fatalf("manifest %+v %v", man, err)
	}
	if !strings.HasPrefix(layout.ShardPrefix("2024-01", p.ShardID), "shards/2024-01/") {
		t.Fatal("prefix")
	}
}

func TestPlanIndexRejectsBadInput(t *testing.T) {
	b, _ := blob.NewLocal(t.TempDir())
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Bucket: b, Model: schemas.ModelRef{ID: "m"}}})
	var a *activities.Activities
	b.Put(context.Background(), "junk.parquet", strings.NewReader("not parquet"))
	var nums bytes.Buffer
	if err := parquet.Write(&nums, []struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		Text        string `parquet:"text"`
		Views       int64  `parquet:"views"`
	}{{"a", "2024-01-01", "x", 4500}}); err != nil {
		t.Fatal(err)
	}
	b.Put(context.Background(), "nums.parquet", &nums)
	var empty bytes.Buffer
	if err := parquet.Write(&empty, []schemas.Document{}); err != nil {
		t.Fatal(err)
	}
	b.Put(context.Background(), "empty.parquet", &empty)
	for name, in := range map[string]activities.PlanIndexInput{
		"bad index name": {Index: "Bad Name", Period: "month", Inputs: []activities.InputFile{{Key: "junk.parquet"}}},
		"bad period":     {Index: "ok", Period: "fortnight", Inputs: []activities.InputFile{{Key: "junk.parquet"}}},
		"no inputs":      {Index: "ok", Period: "month"},
		"missing input":  {Index: "ok", Period: "month", Inputs: []activities.InputFile{{Key: "nope.parquet", Name: "nope.parquet"}}},
		"not parquet":    {Index: "ok", Period: "month", Inputs: []activities.InputFile{{Key: "junk.parquet", Name: "junk.parquet"}}},
		"numeric text":   {Index: "ok", Period: "month", Mapping: map[string]string{"text": "views"}, Inputs: []activities.InputFile{{Key: "nums.parquet", Name: "nums.parquet"}}},
	} {
		_, err := env.ExecuteActivity(a.PlanIndex, in)
		if err == nil || !strings.Contains(err.Error(), activities.ErrTypeInvalidInput) {
			t.Errorf("%s: err = %v, want %s", name, err, activities.ErrTypeInvalidInput)
		}
	}
	// An input of no rows at all is refused before anything is staged or published.
	_, err := env.ExecuteActivity(a.PlanIndex, activities.PlanIndexInput{Index: "ok", Period: "month", RunID: "run1",
		Inputs: []activities.InputFile{{Key: "empty.parquet", Name: "exports/empty.parquet"}}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeInvalidInput ||
		!strings.Contains(err.Error(), "no documents to index: exports/empty.parquet holds no rows (an empty input is not an index)") {
		t.Errorf("an empty input: err = %v, want a non-retryable \"no documents to index\"", err)
	}
	// An input whose every row is quarantined is refused too, its rows kept with their reasons.
	var bad bytes.Buffer
	if err := parquet.Write(&bad, []struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		Text        string `parquet:"text"`
	}{{"a", "2024-01-01", ""}, {"b", "", "no date"}, {"c", "2024-02-01", "   "}}); err != nil {
		t.Fatal(err)
	}
	b.Put(context.Background(), "bad.parquet", &bad)
	_, err = env.ExecuteActivity(a.PlanIndex, activities.PlanIndexInput{Index: "ok", Period: "month", RunID: "run2",
		Inputs: []activities.InputFile{{Key: "bad.parquet", Name: "exports/bad.parquet"}}})
	want := "no documents to index: none of the 3 rows of exports/bad.parquet can be indexed (1 " + schemas.ReasonBadDate + ", 2 " + schemas.ReasonEmptyText + "); the quarantined rows and their reasons are in " + layout.QuarantineKey("run2")
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeInvalidInput || !strings.Contains(err.Error(), want) {
		t.Errorf("an all-quarantined input: err = %v, want a non-retryable %q", err, want)
	}
	if rows, err := storeio.GetParquet[schemas.QuarantineRow](context.Background(), b, layout.QuarantineKey("run2")); err != nil || len(rows) != 3 {
		t.Errorf("the quarantined rows: %d, %v; want the 3 rows", len(rows), err)
	}
	var keys []string
	b.Iter(context.Background(), "indexes/", func(o blob.ObjectInfo) error { keys = append(keys, o.Key); return nil })
	if len(keys) > 0 {
		t.Errorf("an empty or all-quarantined input staged %v", keys)
	}
}

// TestPlanIndexCorruptPagesAreNotRetried: a file whose footer reads but whose pages make the
// Parquet reader panic fails PlanIndex with a non-retryable InvalidInput error naming the file
// and the row group, instead of a panic that Temporal retries.
func TestPlanIndexCorruptPagesAreNotRetried(t *testing.T) {
	data, err := os.ReadFile("../internal/corpus/testdata/corrupt_pages.parquet")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := blob.NewLocal(t.TempDir())
	if _, err := b.Put(context.Background(), "corrupt.parquet", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Bucket: b, Model: schemas.ModelRef{ID: "m"}}})
	var a *activities.Activities
	_, err = env.ExecuteActivity(a.PlanIndex, activities.PlanIndexInput{Index: "ok", Period: "month",
		Inputs: []activities.InputFile{{Key: "corrupt.parquet", Name: "exports/corrupt.parquet"}}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != activities.ErrTypeInvalidInput ||
		!strings.Contains(err.Error(), "exports/corrupt.parquet: row group 0 of 1") {
		t.Fatalf("err = %v, want a non-retryable InvalidInput error naming the file and the row group", err)
	}
}

// TestEmbedShardMalformedRepliesAreNotRetried: an embedding server whose reply parses but is
// wrong (a vector too few, mixed lengths, a non-finite value) fails EmbedShard with a
// non-retryable error that says what was wrong, instead of a retryable one that Temporal
// repeats while the build shows 0 chunks.
func TestEmbedShardMalformedRepliesAreNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		reply   embedtest.Reply
		wantMsg string
	}{
		{name: "one vector too few", reply: embedtest.Reply{Drop: true}, wantMsg: "1 vectors for 2 inputs (index 1 missing)"},
		{name: "mixed lengths", reply: embedtest.Reply{Vectors: [][]float32{{1, 2, 3}, {1, 2, 3, 4}}}, wantMsg: "differing lengths in one reply (3 and 4 values)"},
		{name: "infinite value", reply: embedtest.Reply{Raw: `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1e39,2]}]}`}, wantMsg: "a non-finite vector for text 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply })
			remote, err := embed.NewRemote(embed.RemoteConfig{BaseURL: srv.URL(), Model: "broken", APIKeyEnv: "ASOF_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := blob.NewLocal(t.TempDir())
			chunks := []schemas.Chunk{{ChunkID: "c0", DocID: "d0", Text: "The first chunk."}, {ChunkID: "c1", DocID: "d1", Text: "The second chunk."}}
			var buf bytes.Buffer
			if err := parquet.Write(&buf, chunks); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Put(context.Background(), "staging/chunks.parquet", &buf); err != nil {
				t.Fatal(err)
			}
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: remote, Model: schemas.ModelRef{ID: "broken"}}})
			var a *activities.Activities
			_, err = env.ExecuteActivity(a.EmbedShard, activities.EmbedShardInput{ChunksKey: "staging/chunks.parquet", VectorsPrefix: "staging/vectors", PartSize: 2})
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || !app.NonRetryable() || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), "embed part 0 (chunks 0-1)") {
				t.Fatalf("err = %v, want a non-retryable error saying %q", err, tt.wantMsg)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("the server got %d requests, want 1", n)
			}
		})
	}
}
