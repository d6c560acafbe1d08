package activities_test

import (
	"bytes"
	"context"
	"hash/fnv"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/chunk"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
)

// hashEmbedder is a deterministic stand-in for the model: each text becomes a vector from its
// hash, enough for tests of the build's bookkeeping (no ONNX Runtime needed).
type hashEmbedder struct{}

func (hashEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return hashEmbedder{}.EmbedPassages(ctx, texts)
}

func (hashEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New32a()
		h.Write([]byte(t))
		s := h.Sum32()
		out[i] = []float32{float32(s&0xff) + 1, float32(s>>8&0xff) + 1, float32(s>>16&0xff) + 1, 1}
	}
	return out, nil
}

func (hashEmbedder) Dim() int        { return 4 }
func (hashEmbedder) ModelID() string { return "hash-4" }
func (hashEmbedder) Close() error    { return nil }

// buildEnv is an activity environment over a local folder store with the hash embedder.
func buildEnv(t *testing.T) (*testsuite.TestActivityEnvironment, blob.Bucket) {
	t.Helper()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: hashEmbedder{}, Model: schemas.ModelRef{ID: "hash-4", SHA256: "h", Dim: 4}}})
	return env, b
}

// buildShards runs what BuildShard runs (chunk, embed, write) for every period of plan that is
// not done, and returns the written metas.
func buildShards(t *testing.T, env *testsuite.TestActivityEnvironment, index string, plan activities.PlanIndexResult, cfg schemas.ChunkConfig) []activities.WriteShardResult {
	t.Helper()
	var a *activities.Activities
	var out []activities.WriteShardResult
	for _, p := range plan.Periods {
		if p.Done {
			continue
		}
		ch := run[activities.ChunkShardResult](t, env, a.ChunkShard, activities.ChunkShardInput{Index: index, ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
		vp := layout.VectorsPrefix(index, p.ShardID)
		emb := run[activities.EmbedShardResult](t, env, a.EmbedShard, activities.EmbedShardInput{ChunksKey: ch.ChunksKey, VectorsPrefix: vp, PartSize: 1, Model: plan.Model})
		out = append(out, run[activities.WriteShardResult](t, env, a.WriteShard, activities.WriteShardInput{
			Index: index, Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, ChunksKey: ch.ChunksKey, VectorsPrefix: vp, Parts: emb.Parts,
		}))
	}
	return out
}

// TestWriteShardDeletesStaging: once a shard's meta.json is written, its staged documents,
// chunks and vector parts are gone; the shard is complete; a retry of WriteShard (after the
// deletion) still succeeds with the same meta, and a new plan finds the shards done.
func TestWriteShardDeletesStaging(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	ctx := context.Background()
	putFixture(t, b, "corpora/fixture.parquet", fixture)
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	in := activities.PlanIndexInput{Index: "test", RunID: "run1", Inputs: []activities.InputFile{{Key: "corpora/fixture.parquet", Name: "fixture.parquet"}}, Period: "month", Chunk: cfg}
	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, in)
	if n, _ := blob.List(ctx, b, "indexes/test/staging/"); len(n) != 3 {
		t.Fatalf("staged %d objects before the build, want 3 docs.parquet", len(n))
	}
	written := buildShards(t, env, "test", plan, cfg)
	if len(written) != 3 {
		t.Fatalf("built %d shards", len(written))
	}
	if left, err := blob.List(ctx, b, "indexes/test/staging/"); err != nil || len(left) != 0 {
		t.Fatalf("staging after the build: %v %v", left, err)
	}
	for _, w := range written {
		for _, o := range w.Meta.Objects {
			if st, err := b.Stat(ctx, path.Join("indexes/test", o.Key)); err != nil || st.Size != o.Size {
				t.Fatalf("shard object %s: %+v %v", o.Key, st, err)
			}
		}
		if ok, _ := b.Exists(ctx, path.Join("indexes/test", layout.ShardPrefix(w.Meta.Period, w.Meta.ID), shard.MetaFile)); !ok {
			t.Fatalf("shard %s has no meta.json", w.Meta.ID)
		}
	}
	// A retry of the first WriteShard, after its staging is gone.
	p := plan.Periods[0]
	again := run[activities.WriteShardResult](t, env, a.WriteShard, activities.WriteShardInput{
		Index: "test", Period: p.Period, ShardID: p.ShardID, Docs: p.Docs, ChunksKey: path.Join("indexes/test/staging", p.ShardID, "chunks.parquet"),
		VectorsPrefix: layout.VectorsPrefix("test", p.ShardID), Parts: 2,
	})
	if again.Meta.ID != written[0].Meta.ID || again.Meta.Chunks != written[0].Meta.Chunks {
		t.Fatalf("retry meta %+v, want %+v", again.Meta, written[0].Meta)
	}
	in.RunID = "run2"
	replan := run[activities.PlanIndexResult](t, env, a.PlanIndex, in)
	for _, pp := range replan.Periods {
		if !pp.Done {
			t.Fatalf("period %s not done after the build", pp.Period)
		}
	}
	if left, _ := blob.List(ctx, b, "indexes/test/staging/"); len(left) != 0 {
		t.Fatalf("a plan of built shards staged %d objects", len(left))
	}
}

// TestPlanIndexQuarantinesFutureRows: a row dated 2099 is quarantined as future_date against
// the build's start (not the clock), the counts reconcile and no 2099 shard is planned;
// AllowFuture indexes it.
func TestPlanIndexQuarantinesFutureRows(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	rows := append(append([]row(nil), fixture...), row{"typo", "2099-01-10", "", "A date typed wrong.", "a.com"})
	putFixture(t, b, "corpora/future.parquet", rows)
	in := activities.PlanIndexInput{Index: "test", RunID: "run1", Inputs: []activities.InputFile{{Key: "corpora/future.parquet", Name: "future.parquet"}},
		Period: "month", Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}, Started: time.Date(2026, 11, 24, 0, 30, 0, 0, time.UTC)}
	tests := []struct {
		name        string
		allow       bool
		wantIndexed int64
		wantFuture  int64
		wantPeriods int
	}{
		{name: "quarantined", wantIndexed: 4, wantFuture: 1, wantPeriods: 3},
		{name: "allowed", allow: true, wantIndexed: 5, wantPeriods: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.AllowFuture = tt.allow
			plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, in)
			c := plan.Counts
			if c.Read != 8 || c.Indexed != tt.wantIndexed || c.Quarantined[schemas.ReasonFutureDate] != tt.wantFuture || !c.Reconciles() {
				t.Fatalf("counts %+v", c)
			}
			if len(plan.Periods) != tt.wantPeriods || (tt.allow && plan.Periods[3].Period != "2099-01") {
				t.Fatalf("periods %+v", plan.Periods)
			}
			if len(plan.Files) != 1 || !plan.Files[0].Stats.Reconciles() {
				t.Fatalf("files %+v", plan.Files)
			}
		})
	}
}

// TestChunkShardCapsLongDocuments: with the default chunking, a 2 MB document yields at most
// the cap and is counted as truncated; the short ones are whole.
func TestChunkShardCapsLongDocuments(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	long := strings.Repeat("The committee heard evidence on the budget and adjourned until the next sitting. ", 26000)
	rows := append(append([]row(nil), fixture[:3]...), row{"long", "2024-01-15", "Record", long, "parl"})
	putFixture(t, b, "corpora/long.parquet", rows)
	d := chunk.DefaultOptions()
	cfg := schemas.ChunkConfig{Size: d.Size, Overlap: d.Overlap, Min: d.Min, MaxChunksPerDoc: d.MaxPieces}
	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{Index: "test", RunID: "run1",
		Inputs: []activities.InputFile{{Key: "corpora/long.parquet", Name: "long.parquet"}}, Period: "month", Chunk: cfg})
	p := plan.Periods[0] // 2024-01: r1, r2 and the long record
	ch := run[activities.ChunkShardResult](t, env, a.ChunkShard, activities.ChunkShardInput{Index: "test", ShardID: p.ShardID, DocsKey: p.DocsKey, Chunk: cfg})
	if ch.Truncated != 1 || ch.Chunks != 2+chunk.DefaultMaxPieces {
		t.Fatalf("chunk result %+v: want 1 truncated and %d chunks", ch, 2+chunk.DefaultMaxPieces)
	}
}

// TestPlanIndexRefusesToDropDocuments: a build that is not an append, over files that lack
// documents the live index holds (a plain rebuild after an --append), is refused with the
// count and both ways out; --replace lets it through. A rebuild over the same files, or over
// more rows in a period (a new shard id, nothing lost), is not refused.
func TestPlanIndexRefusesToDropDocuments(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	putFixture(t, b, "corpora/all.parquet", fixture)
	putFixture(t, b, "corpora/fewer.parquet", fixture[:3])                                                                                       // r4 (2024-03) missing
	putFixture(t, b, "corpora/more.parquet", append(append([]row(nil), fixture...), row{"r5", "2024-01-25", "", "A new January row.", "a.com"})) // 2024-01 changes
	plan := func(key string, replace bool) activities.PlanIndexInput {
		return activities.PlanIndexInput{Index: "news", RunID: "r-" + key, Inputs: []activities.InputFile{{Key: "corpora/" + key + ".parquet", Name: key + ".parquet"}},
			Period: "month", Chunk: cfg, Replace: replace}
	}
	first := run[activities.PlanIndexResult](t, env, a.PlanIndex, plan("all", false)) // no index yet: nothing to drop
	var metas []schemas.ShardMeta
	for _, w := range buildShards(t, env, "news", first, cfg) {
		metas = append(metas, w.Meta)
	}
	run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: "news", Period: "month", Chunk: cfg,
		Model: first.Model, Shards: metas, Counts: first.Counts, CreatedAt: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}})

	tests := []struct {
		name    string
		in      activities.PlanIndexInput
		wantErr []string
	}{
		{name: "same files", in: plan("all", false)},
		{name: "more rows in a period", in: plan("more", false)},
		{name: "fewer files", in: plan("fewer", false), wantErr: []string{activities.ErrTypeInvalidInput, "index news holds 1 document this build would not", `"r4" in shard 2024-03`, "--append", "--replace"}},
		{name: "fewer files, --replace", in: plan("fewer", true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := env.ExecuteActivity(a.PlanIndex, tt.in)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("a build that drops a document was planned")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// TestAppendNamesTheIndexChunking: an --append whose chunking differs from the index's (an
// index built before --max-chunks-per-doc had a default) is told the flags to pass.
func TestAppendNamesTheIndexChunking(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	old := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	putFixture(t, b, "corpora/all.parquet", fixture)
	in := activities.PlanIndexInput{Index: "news", RunID: "r1", Inputs: []activities.InputFile{{Key: "corpora/all.parquet", Name: "all.parquet"}}, Period: "month", Chunk: old}
	first := run[activities.PlanIndexResult](t, env, a.PlanIndex, in)
	var metas []schemas.ShardMeta
	for _, w := range buildShards(t, env, "news", first, old) {
		metas = append(metas, w.Meta)
	}
	run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: "news", Period: "month", Chunk: old,
		Model: first.Model, Shards: metas, Counts: first.Counts, CreatedAt: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}})
	in.Append, in.RunID = true, "r2"
	in.Chunk.MaxChunksPerDoc = chunk.DefaultMaxPieces
	_, err := env.ExecuteActivity(a.PlanIndex, in)
	if err == nil || !strings.Contains(err.Error(), "--chunk-size 1600 --chunk-overlap 200 --chunk-min 100 --max-chunks-per-doc 0") {
		t.Fatalf("err = %v, want the index's chunking flags", err)
	}
}

// langRow is a fixture row with the optional lang column.
type langRow struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Text        string `parquet:"text"`
	Lang        string `parquet:"lang"`
}

// TestPlanIndexCountsLanguages: the plan counts the indexed documents per language, from the
// lang column when a row has one (its primary code) and detected from the text otherwise, and
// not the quarantined rows; an append counts only the rows it adds, and its manifest the sum.
func TestPlanIndexCountsLanguages(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	ctx := context.Background()
	put := func(key string, rows []langRow) {
		t.Helper()
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[langRow](&buf)
		w.Write(rows)
		w.Close()
		if _, err := b.Put(ctx, key, &buf); err != nil {
			t.Fatal(err)
		}
	}
	put("corpora/first.parquet", []langRow{
		{"en1", "2024-01-10", "The central bank raised the key rate.", ""},
		{"ru1", "2024-01-11", "Центробанк повысил ключевую ставку.", ""},
		{"ru2", "2024-01-12", "Инфляция замедлилась.", ""},
		{"zh1", "2024-01-13", "央行宣布下调存款准备金率。", ""},
		{"uk1", "2024-01-14", "Нацбанк зберіг облікову ставку.", "uk-UA"}, // the column wins over detection (Cyrillic: ru)
		{"bad", "2024-01-15", "  ", "de"},                                 // quarantined: not counted
	})
	put("corpora/more.parquet", []langRow{
		{"ru1", "2024-01-11", "Центробанк повысил ключевую ставку.", ""}, // already indexed: a duplicate
		{"ja1", "2024-02-01", "日本銀行は金利を据え置いた。", ""},
		{"ko1", "2024-02-02", "한국은행이 기준금리를 동결했다.", ""},
	})
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	plan := func(key string, appending bool) activities.PlanIndexResult {
		return run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{Index: "mix", RunID: "r-" + key,
			Inputs: []activities.InputFile{{Key: "corpora/" + key + ".parquet", Name: key + ".parquet"}}, Period: "month", Chunk: cfg, Append: appending})
	}
	publish := func(p activities.PlanIndexResult, appending bool) schemas.Manifest {
		t.Helper()
		var metas []schemas.ShardMeta
		for _, w := range buildShards(t, env, "mix", p, cfg) {
			metas = append(metas, w.Meta)
		}
		pub := run[activities.PublishManifestResult](t, env, a.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: "mix", Period: "month", Chunk: cfg,
			Model: p.Model, Shards: append(p.Existing, metas...), Counts: p.Counts, Base: p.Base, Append: appending, BaseSeq: p.BaseSeq}})
		data, err := blob.ReadAll(ctx, b, pub.Key)
		if err != nil {
			t.Fatal(err)
		}
		m, err := schemas.DecodeManifest(data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := plan("first", false)
	if want := map[string]int64{"en": 1, "ru": 2, "zh": 1, "uk": 1}; !reflect.DeepEqual(first.Counts.Languages, want) || first.Counts.Indexed != 5 {
		t.Fatalf("first build: %d indexed in %v, want 5 in %v", first.Counts.Indexed, first.Counts.Languages, want)
	}
	if m := publish(first, false); !reflect.DeepEqual(m.Counts.Languages, first.Counts.Languages) {
		t.Fatalf("manifest languages %v, want the plan's %v", m.Counts.Languages, first.Counts.Languages)
	}
	more := plan("more", true)
	if want := map[string]int64{"ja": 1, "ko": 1}; !reflect.DeepEqual(more.Counts.Languages, want) {
		t.Fatalf("append: languages %v, want only the rows it adds %v", more.Counts.Languages, want)
	}
	m := publish(more, true)
	if want := map[string]int64{"en": 1, "ru": 2, "zh": 1, "uk": 1, "ja": 1, "ko": 1}; !reflect.DeepEqual(m.Counts.Languages, want) || m.Counts.Indexed != 7 {
		t.Fatalf("manifest after the append: %d indexed in %v, want 7 in %v", m.Counts.Indexed, m.Counts.Languages, want)
	}
}
