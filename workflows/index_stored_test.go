package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// storedPlanOf is a plan of toBuild shards to build after one already built (4 chunks).
func storedPlanOf(toBuild int) indexplan.StoredPlan {
	p := indexplan.StoredPlan{Version: indexplan.StoredPlanVersion, Shards: []indexplan.PlannedShard{
		{Period: "2024-01-01", ShardID: "s0000", Docs: 2, Meta: &schemas.ShardMeta{ID: "s0000", Period: "2024-01-01", Chunks: 4}}}}
	for i := 1; i <= toBuild; i++ {
		p.Shards = append(p.Shards, indexplan.PlannedShard{Period: fmt.Sprintf("p%05d", i), ShardID: fmt.Sprintf("s%05d", i), Docs: 1})
	}
	return p
}

// storedPlanActivities mocks PlanIndex (storing plan under "plan-key"), PlanPage (paging it)
// and PublishManifest; it returns the PlanIndex and PlanPage inputs and the published input.
type storedCalls struct {
	mu        sync.Mutex
	plans     []activities.PlanIndexInput
	pages     []activities.PlanPageInput
	published *activities.PublishManifestInput
}

func storedPlanActivities(env *testsuite.TestWorkflowEnvironment, plan indexplan.StoredPlan) *storedCalls {
	calls := &storedCalls{}
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PlanIndexInput) (activities.PlanIndexResult, error) {
			calls.mu.Lock()
			defer calls.mu.Unlock()
			calls.plans = append(calls.plans, in)
			return activities.PlanIndexResult{PlanKey: "plan-key", FilesKey: "files-key", FileCount: 3, Summary: plan.Summary(),
				Counts: schemas.IndexCounts{Read: 9, Indexed: 9, Languages: map[string]int64{"en": 9}}, Model: schemas.ModelRef{ID: "toy", Dim: 12}}, nil
		})
	env.OnActivity(a.PlanPage, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PlanPageInput) (activities.PlanPageResult, error) {
			calls.mu.Lock()
			defer calls.mu.Unlock()
			calls.pages = append(calls.pages, in)
			page, next, err := plan.Page(in.Offset, in.Limit)
			res := activities.PlanPageResult{Next: next}
			for _, s := range page {
				res.Periods = append(res.Periods, indexplan.PeriodPlan{Period: s.Period, ShardID: s.ShardID, Docs: s.Docs, DocsKey: s.ShardID + "/docs"})
			}
			return res, err
		})
	env.OnActivity(a.PublishManifest, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PublishManifestInput) (activities.PublishManifestResult, error) {
			calls.mu.Lock()
			defer calls.mu.Unlock()
			calls.published = &in
			return activities.PublishManifestResult{Key: "indexes/news/manifests/000001.json", Seq: 1, Chunks: 99}, nil
		})
	return calls
}

// TestIndexBuildStoredPlanContinuesWithItsKey: the first run plans once into the store, pages
// its shards (never more than MaxShardsPerRun), builds them and continues as new carrying the
// plan's key and offset; the next run does not plan again, builds the rest and publishes by the
// plan's key. No payload lists the files or the shards.
func TestIndexBuildStoredPlanContinuesWithItsKey(t *testing.T) {
	plan := storedPlanOf(5)
	env := indexEnv(t)
	calls := storedPlanActivities(env, plan)
	shardActivities(env, 0)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", InputsKey: "builds/inputs/abc.json", InputCount: 3, MaxShardsPerRun: 3})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("first run: %v, want continue-as-new", err)
	}
	if len(calls.plans) != 1 || !calls.plans[0].StorePlan || calls.plans[0].InputsKey != "builds/inputs/abc.json" || calls.plans[0].Inputs != nil {
		t.Fatalf("plan inputs %+v", calls.plans)
	}
	if len(calls.pages) != 1 || calls.pages[0].Limit != 3 || calls.pages[0].Offset != 0 {
		t.Fatalf("pages %+v: want one page of 3 from 0", calls.pages)
	}
	env.AssertNumberOfCalls(t, "WriteShard", 1) // one batch of 3
	var next IndexBuildInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	c := next.Carried
	if c == nil || c.Plan == nil || c.Plan.PlanKey != "plan-key" || c.Offset != 3 || c.ShardsBuilt != 3 || c.ChunksBuilt != 15 || c.DocsBuilt != 3 {
		t.Fatalf("carried %+v", c)
	}

	env2 := indexEnv(t)
	calls2 := storedPlanActivities(env2, plan)
	shardActivities(env2, 0)
	env2.ExecuteWorkflow(IndexBuild, next)
	if err := env2.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(calls2.plans) != 0 {
		t.Fatalf("the continued run planned again: %+v", calls2.plans)
	}
	if len(calls2.pages) != 1 || calls2.pages[0].Offset != 3 {
		t.Fatalf("pages %+v: want one from 3", calls2.pages)
	}
	p := calls2.published
	if p == nil || p.PlanKey != "plan-key" || p.Shards != nil {
		t.Fatalf("published %+v: want the plan's key and no shard list", p)
	}
	var res IndexBuildResult
	if err := env2.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Runs != 2 || res.ShardsBuilt != 5 || res.ShardsReused != 1 || res.FilesKey != "files-key" || res.FileCount != 3 ||
		res.Files != nil || res.Counts.Chunks != 99 || res.Seq != 1 {
		t.Fatalf("result %+v", res)
	}
	var prog Progress
	v, err := env2.QueryWorkflow(ProgressQuery)
	if err != nil || v.Get(&prog) != nil || prog.ShardsTotal != 6 || prog.ShardsDone != 6 || prog.ChunksDone != 4+25 || prog.DocsToBuild != 0 {
		t.Fatalf("progress %+v, %v", prog, err)
	}
	out, _ := json.Marshal(res)
	in, _ := json.Marshal(next)
	t.Logf("result %d bytes, continued input %d bytes", len(out), len(in))
}

// TestIndexBuildStoredPlanPagesWithinARun: a run allowed more shards than a page holds fetches
// several pages, each at most indexplan.PageMax, and builds them all: in batches of at most
// indexplan.BatchMaxShards, or, in a run started before batching, one child per shard.
func TestIndexBuildStoredPlanPagesWithinARun(t *testing.T) {
	n := indexplan.PageMax + 7
	tests := []struct {
		name    string
		version workflow.Version
		writes  int
	}{
		{name: "batches", version: 1, writes: 4}, // 64 + 64 + 64 + 15
		{name: "before batching", version: workflow.DefaultVersion, writes: n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := indexEnv(t)
			env.OnGetVersion(shardBatchVersion, workflow.DefaultVersion, 1).Return(tt.version)
			calls := storedPlanActivities(env, storedPlanOf(n))
			shardActivities(env, 0)
			env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", InputsKey: "k", MaxShardsPerRun: 10 * n, Concurrency: 8})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			if len(calls.pages) != 2 || calls.pages[1].Offset != indexplan.PageMax {
				t.Fatalf("pages %+v: want two, the second from %d", calls.pages, indexplan.PageMax)
			}
			env.AssertNumberOfCalls(t, "WriteShard", tt.writes)
			var res IndexBuildResult
			if err := env.GetWorkflowResult(&res); err != nil || res.ShardsBuilt != n || res.Runs != 1 || res.PartsEmbedded != n {
				t.Fatalf("result %+v, %v", res, err)
			}
		})
	}
}

// TestIndexBuildBatchesSmallPeriods: consecutive small periods are built together, one
// BuildShardBatch child per batch (its id from the build's and the batch's first shard's), a
// period over indexplan.BatchMaxDocs alone; every shard is chunked, embedded with the plan's
// model and written once, and the progress and the result count every shard, chunk and document.
func TestIndexBuildBatchesSmallPeriods(t *testing.T) {
	plan := storedPlanOf(74) // s00001 … s00074 of one document each, after s00000 (built)
	plan.Shards[71].Docs = indexplan.BatchMaxDocs + 1
	env := indexEnv(t)
	storedPlanActivities(env, plan)
	var mu sync.Mutex
	var children []string
	var batches [][]string // the shard ids each ChunkShard call chunked
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		children = append(children, info.WorkflowType.Name+" "+info.WorkflowExecution.ID)
	})
	env.OnActivity(a.ChunkShard, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ChunkShardInput) (activities.ChunkShardResult, error) {
			mu.Lock()
			defer mu.Unlock()
			var ids []string
			res := activities.ChunkShardResult{}
			for _, s := range in.Shards {
				ids = append(ids, s.ShardID)
				res.Shards = append(res.Shards, activities.ChunkShardResult{ChunksKey: s.ShardID + "/chunks", Chunks: 2, Truncated: 1})
			}
			batches = append(batches, ids)
			return res, nil
		}).After(time.Minute)
	var mid Progress // 30 s in: the first two batches are in flight
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(ProgressQuery)
		if err != nil || v.Get(&mid) != nil {
			t.Errorf("progress mid-build: %v", err)
		}
	}, 30*time.Second)
	shardActivities(env, 0) // EmbedShard and WriteShard (its ChunkShard mock comes second: unused)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", InputsKey: "k", Concurrency: 2})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(batches, func(i, j int) bool { return batches[i][0] < batches[j][0] }) // in the order they finished
	sort.Strings(children)
	var sizes []int
	seen := map[string]bool{}
	for _, b := range batches {
		sizes = append(sizes, len(b))
		for _, id := range b {
			if seen[id] {
				t.Fatalf("shard %s chunked twice", id)
			}
			seen[id] = true
		}
	}
	// s00001–s00064, s00065–s00070, s00071 (the big one), s00072–s00074.
	if fmt.Sprint(sizes) != "[64 6 1 3]" || len(seen) != 74 || batches[2][0] != "s00071" {
		t.Fatalf("batches of %v shards (%d shards), want [64 6 1 3] with s00071 alone", sizes, len(seen))
	}
	want := []string{"BuildShardBatch default-test-workflow-id/batch-s00001", "BuildShardBatch default-test-workflow-id/batch-s00065",
		"BuildShardBatch default-test-workflow-id/batch-s00071", "BuildShardBatch default-test-workflow-id/batch-s00072"}
	if fmt.Sprint(children) != fmt.Sprint(want) {
		t.Fatalf("children %v, want %v", children, want)
	}
	env.AssertNumberOfCalls(t, "EmbedShard", 4)
	env.AssertNumberOfCalls(t, "WriteShard", 4)
	var res IndexBuildResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(mid.InFlight) != 70 || mid.InFlight[0].ShardID != "s00001" || mid.InFlight[69].ShardID != "s00070" || mid.ShardsDone != 1 || mid.DocsToBuild != 73+indexplan.BatchMaxDocs+1 {
		t.Fatalf("progress mid-build: %d in flight, %+v", len(mid.InFlight), mid)
	}
	// Each shard in flight names the child building it: its batch's.
	for _, sh := range mid.InFlight {
		first := "s00001"
		if sh.ShardID >= "s00065" {
			first = "s00065"
		}
		if want := "default-test-workflow-id/batch-" + first; sh.Workflow != want {
			t.Fatalf("shard %s in flight in %q, want %q", sh.ShardID, sh.Workflow, want)
		}
	}
	if res.ShardsBuilt != 74 || res.ShardsReused != 1 || res.Truncated != 74 || res.PartsEmbedded != 74 || res.Runs != 1 {
		t.Fatalf("result %+v", res)
	}
	var prog Progress
	v, err := env.QueryWorkflow(ProgressQuery)
	if err != nil || v.Get(&prog) != nil || prog.ShardsTotal != 75 || prog.ShardsDone != 75 || prog.ChunksDone != 4+2*74 || prog.DocsToBuild != 0 || len(prog.InFlight) != 0 {
		t.Fatalf("progress %+v, %v", prog, err)
	}
}
