package workflows

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// legacyPlan makes env replay runs started before the plan went to the store
// (planInStoreVersion): the plan's periods ride in the history.
func legacyPlan(env *testsuite.TestWorkflowEnvironment) {
	env.OnGetVersion(planInStoreVersion, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
}

func indexEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	env := newEnv(t)
	env.RegisterWorkflow(BuildShard)
	env.RegisterWorkflow(BuildShardBatch)
	return env
}

var threePeriods = activities.PlanIndexResult{
	Periods: []indexplan.PeriodPlan{
		{Period: "2024-01", ShardID: "s1", Docs: 3, DocsKey: "k1"},
		{Period: "2024-02", ShardID: "s2", Docs: 2, Done: true, Meta: &schemas.ShardMeta{ID: "s2", Period: "2024-02", Chunks: 4}},
		{Period: "2024-03", ShardID: "s3", Docs: 1, DocsKey: "k3"},
	},
	Counts: schemas.IndexCounts{Read: 8, Indexed: 6, Quarantined: map[string]int64{schemas.ReasonBadDate: 2}, Languages: map[string]int64{"ru": 4, "en": 2}},
	Model:  schemas.ModelRef{ID: "e5-small-v2", Dim: 384},
}

// shardActivities mocks the three shard activities, single and batch forms alike (a batch
// runs the single mock on each of its shards); embedFailures makes EmbedShard fail that many
// times first (-1: always, non-retryably).
func shardActivities(env *testsuite.TestWorkflowEnvironment, embedFailures int) *sync.Map {
	queues := &sync.Map{}
	env.OnActivity(a.ChunkShard, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ChunkShardInput) (activities.ChunkShardResult, error) {
			return eachMock(in.Shards, func(in activities.ChunkShardInput) activities.ChunkShardResult {
				return activities.ChunkShardResult{ChunksKey: in.ShardID + "/chunks", Chunks: 5}
			}, func(out []activities.ChunkShardResult) activities.ChunkShardResult {
				return activities.ChunkShardResult{Shards: out}
			}, in), nil
		})
	var mu sync.Mutex
	failures := embedFailures
	env.OnActivity(a.EmbedShard, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.EmbedShardInput) (activities.EmbedShardResult, error) {
			queues.Store(activity.GetInfo(ctx).TaskQueue, true)
			mu.Lock()
			defer mu.Unlock()
			if failures < 0 {
				return activities.EmbedShardResult{}, temporal.NewNonRetryableApplicationError("no model", activities.ErrTypeConfig, nil)
			}
			if failures > 0 {
				failures--
				return activities.EmbedShardResult{}, errors.New("worker lost")
			}
			return eachMock(in.Shards, func(activities.EmbedShardInput) activities.EmbedShardResult {
				return activities.EmbedShardResult{Parts: 1, Chunks: 5, Embedded: 1}
			}, func(out []activities.EmbedShardResult) activities.EmbedShardResult {
				return activities.EmbedShardResult{Shards: out}
			}, in), nil
		})
	env.OnActivity(a.WriteShard, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WriteShardInput) (activities.WriteShardResult, error) {
			return eachMock(in.Shards, func(in activities.WriteShardInput) activities.WriteShardResult {
				return activities.WriteShardResult{Meta: schemas.ShardMeta{ID: in.ShardID, Period: in.Period, Chunks: 5}}
			}, func([]activities.WriteShardResult) activities.WriteShardResult { return activities.WriteShardResult{} }, in), nil
		})
	return queues
}

// eachMock answers a mocked shard activity: one(in) for a single shard, else batch of one(s)
// for each shard of the batch.
func eachMock[I, O any](shards []I, one func(I) O, batch func([]O) O, in I) O {
	if shards == nil {
		return one(in)
	}
	out := make([]O, len(shards))
	for i, s := range shards {
		out[i] = one(s)
	}
	return batch(out)
}

func TestIndexBuildBuildsMissingShardsAndPublishesLast(t *testing.T) {
	env := indexEnv(t)
	legacyPlan(env)
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(threePeriods, nil).Once()
	queues := shardActivities(env, 2)
	var published activities.PublishManifestInput
	env.OnActivity(a.PublishManifest, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PublishManifestInput) (activities.PublishManifestResult, error) {
			published = in
			return activities.PublishManifestResult{Key: "indexes/news/manifests/000001.json", Seq: 1}, nil
		}).Once()

	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res IndexBuildResult
	env.GetWorkflowResult(&res)
	if res.ShardsBuilt != 2 || res.ShardsReused != 1 || res.Seq != 1 || res.Counts.Chunks != 14 || !res.Counts.Reconciles() ||
		res.Counts.Languages["ru"] != 4 || res.Model != threePeriods.Model {
		t.Fatalf("result = %+v", res)
	}
	var ids []string
	for _, m := range published.Shards {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "s1,s2,s3" || published.Period != "month" || published.Model.ID != "e5-small-v2" {
		t.Fatalf("published %+v", published)
	}
	if _, ok := queues.Load(config.QueueEmbed); !ok {
		t.Fatal("EmbedShard did not run on the embed queue")
	}
	env.AssertNumberOfCalls(t, "EmbedShard", 4) // two shards, two transient failures retried
	var p Progress
	v, err := env.QueryWorkflow(ProgressQuery)
	if err != nil || v.Get(&p) != nil || p.ShardsDone != 3 || p.Stage != "done" || p.Model != threePeriods.Model || p.Languages["en"] != 2 {
		t.Fatalf("progress = %+v, %v", p, err)
	}
}

// TestIndexBuildAppendNamesItsBase: an append tells PublishManifest it is one and which
// manifest it was planned on, so a publish that finds a newer manifest adds its shards to it.
func TestIndexBuildAppendNamesItsBase(t *testing.T) {
	env := indexEnv(t)
	legacyPlan(env)
	plan := threePeriods
	plan.Existing = []schemas.ShardMeta{{ID: "s0", Period: "2023-12", Chunks: 1}}
	plan.BaseSeq = 4
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(plan, nil).Once()
	shardActivities(env, 0)
	var published activities.PublishManifestInput
	env.OnActivity(a.PublishManifest, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PublishManifestInput) (activities.PublishManifestResult, error) {
			published = in
			return activities.PublishManifestResult{Seq: 5}, nil
		}).Once()
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", Append: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !published.Append || published.BaseSeq != 4 || len(published.Shards) != 4 || published.Shards[0].ID != "s0" {
		t.Fatalf("published %+v, want an append on manifest 4 with s0 and the three new shards", published)
	}
}

func TestIndexBuildDoesNotPublishAfterAFailedShard(t *testing.T) {
	env := indexEnv(t)
	legacyPlan(env)
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(threePeriods, nil)
	shardActivities(env, -1)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", Concurrency: 1})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "shard 2024-01 (s1)") {
		t.Fatalf("err = %v, want the failed shard named", err)
	}
	env.AssertNotCalled(t, "PublishManifest", mock.Anything, mock.Anything)
}

// TestIndexBuildContinuesAsNew: with one shard per run, the first run builds s1 and continues
// as new carrying its tallies; the next run plans again (s1 now done), builds s3, publishes all
// three, and reports the whole build.
func TestIndexBuildContinuesAsNew(t *testing.T) {
	env := indexEnv(t)
	legacyPlan(env)
	env.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(threePeriods, nil).Once()
	shardActivities(env, 0)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: "news", MaxShardsPerRun: 1})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("first run: %v, want continue-as-new", err)
	}
	env.AssertNotCalled(t, "PublishManifest", mock.Anything, mock.Anything)
	var next IndexBuildInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.Carried == nil || next.Carried.Runs != 1 || next.Carried.ShardsBuilt != 1 || next.AsOf.IsZero() {
		t.Fatalf("carried %+v (as of %v)", next.Carried, next.AsOf)
	}

	env2 := indexEnv(t)
	legacyPlan(env2)
	second := threePeriods
	second.Periods = append([]indexplan.PeriodPlan(nil), threePeriods.Periods...)
	second.Periods[0] = indexplan.PeriodPlan{Period: "2024-01", ShardID: "s1", Docs: 3, Done: true, Meta: &schemas.ShardMeta{ID: "s1", Period: "2024-01", Chunks: 5}}
	env2.OnActivity(a.PlanIndex, mock.Anything, mock.Anything).Return(second, nil).Once()
	shardActivities(env2, 0)
	env2.OnActivity(a.PublishManifest, mock.Anything, mock.Anything).Return(activities.PublishManifestResult{Seq: 1}, nil).Once()
	env2.ExecuteWorkflow(IndexBuild, next)
	if err := env2.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res IndexBuildResult
	env2.GetWorkflowResult(&res)
	if res.Runs != 2 || res.ShardsBuilt != 2 || res.ShardsReused != 1 {
		t.Fatalf("result %+v: want 2 runs, 2 built, 1 reused", res)
	}
}
