package activities_test

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
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
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/schemas"
)

func utcDay(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

// TestReadQuery checks the adapter: answer.Read's reading comes back, and its bad input is a
// non-retryable InvalidInput error (the readings themselves are tested in internal/answer). A
// named year centers the search from a week before it to a quarter after it: the news of a
// period comes out around and after it.
func TestReadQuery(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{})
	asOf := utcDay("2024-05-15")
	v, err := env.ExecuteActivity((&activities.Activities{}).ReadQuery, activities.ReadQueryInput{Query: "elections in 2015", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	var r activities.ReadQueryResult
	if err := v.Get(&r); err != nil || r.Mode != "recency" || !r.Near.From.Equal(utcDay("2014-12-25")) || !r.Near.To.Equal(utcDay("2016-04-01")) || r.Text != "elections in 2015" {
		t.Fatalf("reading %+v (%v)", r, err)
	}
	_, err = env.ExecuteActivity((&activities.Activities{}).ReadQuery, activities.ReadQueryInput{Query: "x", AsOf: asOf, Mode: "magic"})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != activities.ErrTypeInvalidInput || !app.NonRetryable() || !strings.Contains(err.Error(), "unknown mode") {
		t.Fatalf("err %v, want a non-retryable InvalidInput naming the mode", err)
	}
}

// TestAnswerOnLocalStore publishes a two-shard index (hand-made 3-d vectors) to a local store
// and answers through the Answer activity: shards outside the mask are not loaded, reposts
// fold into one result, the run's files are written, and a second question hits the cache.
func TestAnswerOnLocalStore(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // loaded shards unpack here
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	model := schemas.ModelRef{ID: "toy", SHA256: "abc", Dim: 3}
	type toy struct {
		c schemas.Chunk
		v []float32
	}
	mk := func(id, date, source, text string, v []float32) toy {
		return toy{schemas.Chunk{ChunkID: id + "#0", DocID: id, PublishedAt: utcDay(date), Title: text, Text: text, Source: source, Lang: "en", DedupKey: text}, v}
	}
	shards := map[string][]toy{
		"2015": {mk("old", "2015-05-08", "bbc", "general election won by the conservatives", []float32{0, 1, 0})},
		"2024": {
			mk("rate-a", "2024-05-10", "cbr", "key rate raised to 16 percent", []float32{1, 0, 0}),
			mk("rate-b", "2024-05-10", "tg", "key rate raised to 16 percent", []float32{1, 0, 0}), // repost
			mk("pie", "2024-05-11", "food", "apple pie recipe", []float32{0, 0, 1}),
		},
	}
	var metas []schemas.ShardMeta
	for _, period := range []string{"2015", "2024"} {
		var chunks []schemas.Chunk
		vec := vecindex.New(3, model.ID)
		for _, p := range shards[period] {
			chunks = append(chunks, p.c)
			vec.Add(p.v)
		}
		dir := filepath.Join(t.TempDir(), period)
		meta, err := shard.Write(dir, period, "id"+period, len(chunks), chunks, vec)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range append(shard.Files(meta), shard.MetaFile) {
			f, _ := os.Open(filepath.Join(dir, name))
			if _, err := b.Put(ctx, path.Join(layout.IndexPrefix("toy"), layout.ShardPrefix(period, meta.ID), name), f); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		metas = append(metas, meta)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	m := metrics.New()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Model: model, Metrics: m}}
	env.RegisterActivity(acts)
	run[activities.PublishManifestResult](t, env, acts.PublishManifest, activities.PublishManifestInput{Build: indexplan.Build{Index: "toy", Period: "year", Model: model, Shards: metas}})

	answer := func(runID string) schemas.Answer {
		return run[schemas.Answer](t, env, acts.Answer, activities.AnswerInput{
			RunID: runID, Index: "toy", Query: "key rate", AsOf: utcDay("2024-05-15"),
			Read: activities.ReadQueryResult{Mode: "recency", Text: "key rate", Interpretation: "recency"}, Vector: []float32{1, 0, 0}, Model: model,
			Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions(),
		})
	}
	ans := answer("run-1")
	if ans.Counts.ShardsSearched != 1 || ans.Counts.ShardsSkipped != 1 {
		t.Fatalf("shards searched %d skipped %d: the 2015 shard is outside the 365-day window", ans.Counts.ShardsSearched, ans.Counts.ShardsSkipped)
	}
	if len(ans.Results) != 2 || ans.Results[0].DocID != "rate-a" || ans.Results[0].Duplicates != 1 || strings.Join(ans.Results[0].Sources, ",") != "cbr,tg" {
		t.Fatalf("results %+v", ans.Results)
	}
	if !strings.Contains(ans.Summary, "key rate raised") || ans.Context == "" {
		t.Fatalf("summary %q", ans.Summary)
	}
	for _, key := range []string{"runs/run-1/answer.json", "runs/run-1/context.md"} {
		if ok, err := b.Exists(ctx, key); !ok || err != nil {
			t.Fatalf("%s not written: %v", key, err)
		}
	}
	answer("run-2")
	if st := acts.Shards.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("cache %+v, want the second question to reuse the loaded shard", st)
	}
	if got := activities.SampleCount(t, m, "asof_retrieval_seconds", "mode", "recency"); got != 2 {
		t.Errorf("asof_retrieval_seconds{mode=recency} counts %v rankings, want the 2 answers", got)
	}
	// Auto reads "in 2010" as the time of its news and centers the search on it, over the whole
	// past: the 2015 shard is loaded and its article, the nearest to 2010, comes first; the
	// header says what was searched (answer.Reach).
	read := run[activities.ReadQueryResult](t, env, acts.ReadQuery, activities.ReadQueryInput{Query: "general election in 2010", AsOf: utcDay("2024-05-15")})
	past := run[schemas.Answer](t, env, acts.Answer, activities.AnswerInput{
		RunID: "run-3", Index: "toy", Query: "general election in 2010", AsOf: utcDay("2024-05-15"), Read: read, Vector: []float32{0, 1, 0}, Model: model,
		Options: retrieve.DefaultOptions(), Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions(),
	})
	if read.Mode != "recency" || past.Mode != "recency" || past.Counts.ShardsSearched != 2 || len(past.Results) == 0 || past.Results[0].DocID != "old" ||
		!strings.Contains(past.Interpretation, `a question about "in 2010" (2010-01-01..2010-12-31), searched around 2009-12-25..2011-04-02`) || !past.From.IsZero() {
		t.Fatalf("read %s; answered %s from %v (%d shards searched): %+v (%s)", read.Mode, past.Mode, past.From, past.Counts.ShardsSearched, past.Results, past.Interpretation)
	}
	// Another model's query vector is refused, without retries.
	_, err = env.ExecuteActivity(acts.Answer, activities.AnswerInput{Index: "toy", Query: "x", AsOf: utcDay("2024-05-15"),
		Read: activities.ReadQueryResult{Mode: "recency", Text: "x"}, Vector: []float32{1, 0, 0}, Model: schemas.ModelRef{ID: "other"}, Options: retrieve.DefaultOptions(),
		Dedup: dedup.DefaultOptions(), Context: evidence.DefaultOptions(), Summary: summarize.DefaultOptions()})
	if err == nil || !strings.Contains(err.Error(), "was built with model toy, this worker embeds with other: pass --embed-model toy") {
		t.Fatalf("other model: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "asof-shard-*")); len(left) != 2 {
		t.Fatalf("unpacked shards %v, want the two loaded", left)
	}
	if err := activities.Close(acts); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "asof-shard-*")); len(left) != 0 {
		t.Fatalf("Close left %v in the temp folder", left)
	}
}
