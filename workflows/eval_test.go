package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/evalrun"
	"github.com/asofrag/asof/internal/layout"
)

// TestEvalBatchesRetryAloneAndFinishInOrder: three batches; each embeds on asof-embed and is
// answered on the default queue; batch 1 fails once and only it is retried; FinishEval gets
// every batch's key in batch order.
func TestEvalBatchesRetryAloneAndFinishInOrder(t *testing.T) {
	for _, version := range []workflow.Version{workflow.DefaultVersion, 1} { // the old limiter, fanOut
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			env := newEnv(t)
			env.OnGetVersion(fanOutVersion, workflow.DefaultVersion, 1).Return(version)
			env.OnGetVersion(evalPlanVersion, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion) // the plan in the history
			q := func(id string) evalrun.Planned {
				return evalrun.Planned{ID: id, Question: "q " + id}
			}
			env.OnActivity(a.PlanEval, mock.Anything, mock.Anything).Return(activities.PlanEvalResult{
				Batches: [][]evalrun.Planned{{q("a"), q("b")}, {q("c")}, {q("d")}}, Questions: 4,
			}, nil)
			var mu sync.Mutex
			embedQueues := map[string]bool{}
			env.OnActivity(a.EmbedTexts, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.EmbedTextsInput) (activities.EmbedTextsResult, error) {
					mu.Lock()
					embedQueues[activity.GetInfo(ctx).TaskQueue] = true
					mu.Unlock()
					v := make([][]float32, len(in.Texts))
					for i := range v {
						v[i] = []float32{1}
					}
					return activities.EmbedTextsResult{Vectors: v}, nil
				})
			calls := map[int]int{}
			env.OnActivity(a.EvalBatch, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.EvalBatchInput) (activities.EvalBatchResult, error) {
					mu.Lock()
					defer mu.Unlock()
					calls[in.Batch]++
					if len(in.Vectors) != len(in.Questions) {
						t.Errorf("batch %d: %d vectors for %d questions", in.Batch, len(in.Vectors), len(in.Questions))
					}
					if in.Batch == 1 && calls[1] == 1 {
						return activities.EvalBatchResult{}, errors.New("worker lost")
					}
					return activities.EvalBatchResult{Key: layout.EvalBatchKey(in.EvalID, in.Batch), Rows: len(in.Questions)}, nil
				})
			var finish activities.FinishEvalInput
			env.OnActivity(a.FinishEval, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.FinishEvalInput) (activities.FinishEvalResult, error) {
					finish = in
					return activities.FinishEvalResult{SummaryKey: "evals/e/summary.json"}, nil
				})
			env.ExecuteWorkflow(Eval, EvalInput{EvalID: "e", Index: "rtqa", Systems: []string{"bm25"}})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			if calls[0] != 1 || calls[1] != 2 || calls[2] != 1 {
				t.Fatalf("batch attempts %v: only batch 1 should run twice", calls)
			}
			if !embedQueues[config.QueueEmbed] || len(embedQueues) != 1 {
				t.Fatalf("embedding ran on %v", embedQueues)
			}
			if strings.Join(finish.BatchKeys, ",") != "evals/e/batches/00000.parquet,evals/e/batches/00001.parquet,evals/e/batches/00002.parquet" || finish.Questions != 4 {
				t.Fatalf("finish %+v", finish)
			}
		})
	}
}

// TestEvalQueryVectorsGoThroughTheStore: from evalVectorsVersion on, each batch's vectors are
// stored by EmbedTexts at EvalVectorsKey and EvalBatch reads them from there, so the history
// carries a key instead of ~5 KB of JSON per question (twice); runs started before keep
// passing the vectors themselves.
func TestEvalQueryVectorsGoThroughTheStore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
		stored  bool
	}{
		{name: "store", version: 1, stored: true},
		{name: "history, runs started before", version: workflow.DefaultVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.OnGetVersion(evalVectorsVersion, workflow.DefaultVersion, 1).Return(tc.version)
			env.OnGetVersion(evalPlanVersion, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			q := func(id string) evalrun.Planned {
				return evalrun.Planned{ID: id, Question: "q " + id}
			}
			env.OnActivity(a.PlanEval, mock.Anything, mock.Anything).Return(activities.PlanEvalResult{
				Batches: [][]evalrun.Planned{{q("a"), q("b")}, {q("c")}}, Questions: 3,
			}, nil)
			var mu sync.Mutex
			var embedKeys, batchKeys []string
			env.OnActivity(a.EmbedTexts, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.EmbedTextsInput) (activities.EmbedTextsResult, error) {
					mu.Lock()
					defer mu.Unlock()
					embedKeys = append(embedKeys, in.Key)
					if in.Key != "" {
						return activities.EmbedTextsResult{Key: in.Key}, nil
					}
					v := make([][]float32, len(in.Texts))
					for i := range v {
						v[i] = []float32{1}
					}
					return activities.EmbedTextsResult{Vectors: v}, nil
				})
			env.OnActivity(a.EvalBatch, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.EvalBatchInput) (activities.EvalBatchResult, error) {
					mu.Lock()
					defer mu.Unlock()
					batchKeys = append(batchKeys, in.VectorsKey)
					if tc.stored != (len(in.Vectors) == 0) {
						t.Errorf("batch %d: %d vectors in the input, key %q", in.Batch, len(in.Vectors), in.VectorsKey)
					}
					return activities.EvalBatchResult{Key: layout.EvalBatchKey(in.EvalID, in.Batch)}, nil
				})
			env.OnActivity(a.FinishEval, mock.Anything, mock.Anything).Return(activities.FinishEvalResult{}, nil)
			env.ExecuteWorkflow(Eval, EvalInput{EvalID: "e", Index: "rtqa", Systems: []string{"bm25"}})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			slices.Sort(embedKeys)
			slices.Sort(batchKeys)
			want := []string{"", ""}
			if tc.stored {
				want = []string{"evals/e/vectors/00000.f32", "evals/e/vectors/00001.f32"}
			}
			if !slices.Equal(embedKeys, want) || !slices.Equal(batchKeys, want) {
				t.Fatalf("EmbedTexts keys %q, EvalBatch keys %q, want %q", embedKeys, batchKeys, want)
			}
		})
	}
}

// TestEvalPlanGoesThroughTheStore: from evalPlanVersion on, PlanEval stores the batches and
// returns their count; EmbedTexts and EvalBatch get each batch's plan key and no question,
// FinishEval the count and no keys. No input or result holds a question, so no payload grows
// with the question count (worker's TestEvalPayloadsStayBounded measures it on the server).
func TestEvalPlanGoesThroughTheStore(t *testing.T) {
	env := newEnv(t)
	var planIn activities.PlanEvalInput
	env.OnActivity(a.PlanEval, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PlanEvalInput) (activities.PlanEvalResult, error) {
			planIn = in
			return activities.PlanEvalResult{BatchCount: 3, Questions: 70}, nil
		})
	var mu sync.Mutex
	var embedPlans, batchPlans []string
	env.OnActivity(a.EmbedTexts, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.EmbedTextsInput) (activities.EmbedTextsResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(in.Texts) != 0 {
				t.Errorf("EmbedTexts got %d texts through the history", len(in.Texts))
			}
			embedPlans = append(embedPlans, in.PlanKey)
			return activities.EmbedTextsResult{Key: in.Key}, nil
		})
	env.OnActivity(a.EvalBatch, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.EvalBatchInput) (activities.EvalBatchResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(in.Questions) != 0 {
				t.Errorf("EvalBatch %d got %d questions through the history", in.Batch, len(in.Questions))
			}
			batchPlans = append(batchPlans, in.PlanKey)
			return activities.EvalBatchResult{Key: layout.EvalBatchKey(in.EvalID, in.Batch)}, nil
		})
	var finish activities.FinishEvalInput
	env.OnActivity(a.FinishEval, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishEvalInput) (activities.FinishEvalResult, error) {
			finish = in
			return activities.FinishEvalResult{}, nil
		})
	env.ExecuteWorkflow(Eval, EvalInput{EvalID: "e", Index: "rtqa", Systems: []string{"bm25"}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res EvalResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Batches != 3 {
		t.Fatalf("result %+v, %v: want 3 batches", res, err)
	}
	if !planIn.Store {
		t.Fatalf("PlanEval input %+v: want Store", planIn)
	}
	slices.Sort(embedPlans)
	slices.Sort(batchPlans)
	want := []string{"evals/e/plan/00000.json", "evals/e/plan/00001.json", "evals/e/plan/00002.json"}
	if !slices.Equal(embedPlans, want) || !slices.Equal(batchPlans, want) {
		t.Fatalf("plan keys: EmbedTexts %q, EvalBatch %q, want %q", embedPlans, batchPlans, want)
	}
	if finish.Batches != 3 || len(finish.BatchKeys) != 0 || finish.Questions != 70 {
		t.Fatalf("finish %+v: want 3 batches by count", finish)
	}
}
