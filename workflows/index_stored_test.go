package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

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
	env.AssertNumberOfCalls(t, "WriteShard", 3)
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
// several pages, each at most indexplan.PageMax, and builds them all.
func TestIndexBuildStoredPlanPagesWithinARun(t *testing.T) {
	n := indexplan.PageMax + 7
	env := indexEnv(t)
	calls := storedPlanActivities(env, storedPlanOf(n))
	shardActivities(env, 0)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", InputsKey: "k", MaxShardsPerRun: 10 * n, Concurrency: 8})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(calls.pages) != 2 || calls.pages[1].Offset != indexplan.PageMax {
		t.Fatalf("pages %+v: want two, the second from %d", calls.pages, indexplan.PageMax)
	}
	env.AssertNumberOfCalls(t, "WriteShard", n)
	var res IndexBuildResult
	if err := env.GetWorkflowResult(&res); err != nil || res.ShardsBuilt != n || res.Runs != 1 {
		t.Fatalf("result %+v, %v", res, err)
	}
}
