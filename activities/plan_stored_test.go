package activities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestStoredPlanRoundTrip: a plan read from a stored input list stores its periods and
// per-file table and returns only their keys and counts; PlanPage pages the shards to build
// with their staged documents; PublishManifest by the plan's key lists every built shard,
// reading their meta.json, and counts their chunks; a shard not built is named.
func TestStoredPlanRoundTrip(t *testing.T) {
	env, b := buildEnv(t)
	var a *activities.Activities
	ctx := context.Background()
	putFixture(t, b, "corpora/fixture.parquet", fixture)
	list, _ := json.Marshal([]activities.InputFile{{Key: "corpora/fixture.parquet", Name: "fixture.parquet"}})
	listKey := layout.InputListKey("00ff")
	if _, err := b.Put(ctx, listKey, bytes.NewReader(list)); err != nil {
		t.Fatal(err)
	}
	cfg := schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 100}
	plan := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{
		Index: "test", RunID: "run1", InputsKey: listKey, Period: "month", Chunk: cfg, StorePlan: true})
	if plan.PlanKey != layout.BuildPlanKey("run1") || plan.FilesKey != layout.BuildFilesKey("run1") || plan.FileCount != 1 ||
		plan.Periods != nil || plan.Files != nil || plan.Summary.Shards != 3 || plan.Summary.ToBuild != 3 {
		t.Fatalf("plan %+v", plan)
	}
	var files []indexplan.FileCounts
	data, err := blob.ReadAll(ctx, b, plan.FilesKey)
	if err != nil || json.Unmarshal(data, &files) != nil || len(files) != 1 || files[0].Name != "fixture.parquet" || files[0].Stats.Read != plan.Counts.Read {
		t.Fatalf("per-file table %s: %v", data, err)
	}
	// The publish names a shard that was not built yet.
	pubIn := activities.PublishManifestInput{PlanKey: plan.PlanKey, Build: indexplan.Build{Index: "test", Period: "month", Chunk: cfg, Model: plan.Model, Counts: plan.Counts}}
	if _, err := env.ExecuteActivity(a.PublishManifest, pubIn); err == nil {
		t.Fatal("published a plan whose shards are not built")
	}
	var pages []indexplan.PeriodPlan
	for off := 0; off < plan.Summary.ToBuild; {
		pg := run[activities.PlanPageResult](t, env, a.PlanPage, activities.PlanPageInput{Index: "test", PlanKey: plan.PlanKey, Offset: off, Limit: 2})
		if len(pg.Periods) == 0 || len(pg.Periods) > 2 {
			t.Fatalf("page from %d: %+v", off, pg)
		}
		pages, off = append(pages, pg.Periods...), pg.Next
	}
	if len(pages) != 3 || pages[0].DocsKey != layout.StagingDocsKey("test", pages[0].ShardID) {
		t.Fatalf("pages %+v", pages)
	}
	if _, err := env.ExecuteActivity(a.PlanPage, activities.PlanPageInput{Index: "test", PlanKey: plan.PlanKey, Offset: 4, Limit: 2}); err == nil {
		t.Fatal("a page past the end was served")
	}
	built := buildShards(t, env, "test", activities.PlanIndexResult{Periods: pages, Model: plan.Model}, cfg)
	pub := run[activities.PublishManifestResult](t, env, a.PublishManifest, pubIn)
	m, err := layout.ReadManifest(ctx, b, pub.Key)
	if err != nil {
		t.Fatal(err)
	}
	var chunks int64
	for _, w := range built {
		chunks += int64(w.Meta.Chunks)
	}
	if len(m.Shards) != 3 || pub.Chunks != chunks || m.Counts.Chunks != chunks || pub.Seq != 1 {
		t.Fatalf("manifest %d shards, %d chunks (published %+v), want 3 and %d", len(m.Shards), m.Counts.Chunks, pub, chunks)
	}
	// A second plan finds every shard built: nothing to page, and the same manifest.
	again := run[activities.PlanIndexResult](t, env, a.PlanIndex, activities.PlanIndexInput{
		Index: "test", RunID: "run2", InputsKey: listKey, Period: "month", Chunk: cfg, StorePlan: true})
	if again.Summary != (indexplan.Summary{Shards: 3, Done: 3, Chunks: int(chunks)}) {
		t.Fatalf("second plan %+v", again.Summary)
	}
	pubIn.PlanKey = again.PlanKey
	if p2 := run[activities.PublishManifestResult](t, env, a.PublishManifest, pubIn); !p2.Unchanged || p2.Chunks != chunks {
		t.Fatalf("second publish %+v", p2)
	}
}
