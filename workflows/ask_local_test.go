package workflows

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/config"
)

// TestAskRunsCPUStepsLocally (version "ask-local"): reading, retrieval, composing and saving
// run as local activities in the workflow's worker whatever it serves; EmbedQuery, the judge
// and the summary do only where Colocated says the worker's process serves them (and the
// judge only as the heuristic), else they stay regular activities on their queues.
func TestAskRunsCPUStepsLocally(t *testing.T) {
	tests := []struct {
		name  string
		here  Colocated
		judge string
		// lostEmbedder: the local EmbedQuery finds no embedder (the run moved to another
		// worker after the first recorded here).
		lostEmbedder bool
		// want is where each step ran ("local" or a queue; "" not called).
		want      map[string]string
		wantMode  string   // the judge mode the batches got
		wantEmbed []string // where the EmbedQuery attempts ran
	}{
		{
			name: "embedder and LLM in other processes", judge: "auto",
			want: map[string]string{"read": "local", "embed": config.QueueEmbed, "candidates": "local", "judge": config.QueueLLM,
				"compose": "local", "summarize": config.QueueLLM, "save": "local"},
			wantMode: "auto", wantEmbed: []string{config.QueueEmbed},
		},
		{
			name: "one process without an LLM", here: Colocated{QueryEmbedder: true, NoLLM: true}, judge: "auto",
			want: map[string]string{"read": "local", "embed": "local", "candidates": "local", "judge": "local",
				"compose": "local", "save": "local"},
			wantMode: "heuristic", wantEmbed: []string{"local"},
		},
		{
			name: "heuristic asked, split deployment", judge: "heuristic",
			want: map[string]string{"read": "local", "embed": config.QueueEmbed, "candidates": "local", "judge": "local",
				"compose": "local", "summarize": config.QueueLLM, "save": "local"},
			wantMode: "heuristic", wantEmbed: []string{config.QueueEmbed},
		},
		{
			name: "LLM judge asked, embedder here", here: Colocated{QueryEmbedder: true}, judge: "llm",
			want: map[string]string{"read": "local", "embed": "local", "candidates": "local", "judge": config.QueueLLM,
				"compose": "local", "summarize": config.QueueLLM, "save": "local"},
			wantMode: "llm", wantEmbed: []string{"local"},
		},
		{
			name: "auto judge, LLM in this process", here: Colocated{QueryEmbedder: true}, judge: "auto",
			want: map[string]string{"read": "local", "embed": "local", "candidates": "local", "judge": config.QueueLLM,
				"compose": "local", "summarize": config.QueueLLM, "save": "local"},
			wantMode: "auto", wantEmbed: []string{"local"},
		},
		{
			name: "auto judge, a local LLM that only writes", here: Colocated{QueryEmbedder: true, HeuristicJudge: true}, judge: "auto",
			want: map[string]string{"read": "local", "embed": "local", "candidates": "local", "judge": "local",
				"compose": "local", "summarize": config.QueueLLM, "save": "local"},
			wantMode: "heuristic", wantEmbed: []string{"local"},
		},
		{
			name: "embedder lost after recording", here: Colocated{QueryEmbedder: true, NoLLM: true}, judge: "auto", lostEmbedder: true,
			want: map[string]string{"read": "local", "embed": config.QueueEmbed, "candidates": "local", "judge": "local",
				"compose": "local", "save": "local"},
			wantMode: "heuristic", wantEmbed: []string{"local", config.QueueEmbed},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			f := mockAsk(t, env, 12)
			if tt.lostEmbedder {
				first := true
				f.embed = func(activities.EmbedQueryInput) (activities.EmbedQueryResult, error) {
					if first {
						first = false
						return activities.EmbedQueryResult{}, temporal.NewNonRetryableApplicationError("this worker has no embedding model", activities.ErrTypeConfig, nil)
					}
					return activities.EmbedQueryResult{Vector: []float32{1}}, nil
				}
			}
			var mu sync.Mutex
			var modes []string
			env.OnActivity(a.Judge, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.JudgeInput) (activities.JudgeResult, error) {
					mu.Lock()
					f.queues["judge"] = ranOn(ctx)
					modes = append(modes, in.Mode)
					mu.Unlock()
					return grades(in), nil
				})
			env.RegisterWorkflowWithOptions(tt.here.ask, workflow.RegisterOptions{Name: "Ask"})
			env.ExecuteWorkflow("Ask", AskInput{Index: "news", AsOfToday: true, Query: "key rate",
				Judge: &JudgeOptions{Mode: tt.judge, Pool: 12, Batch: 5, Failure: "keep", MaxAttempts: 2}})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			for _, step := range []string{"read", "embed", "candidates", "judge", "compose", "summarize", "save"} {
				if f.queues[step] != tt.want[step] {
					t.Errorf("%s ran on %q, want %q", step, f.queues[step], tt.want[step])
				}
			}
			if len(modes) != 3 || slices.ContainsFunc(modes, func(m string) bool { return m != tt.wantMode }) {
				t.Errorf("judge batches got modes %v, want 3 × %s", modes, tt.wantMode)
			}
			if !slices.Equal(f.embeds, tt.wantEmbed) {
				t.Errorf("EmbedQuery ran on %v, want %v", f.embeds, tt.wantEmbed)
			}
			if c := f.composed; len(c.Verdicts) != 12 || c.Report.Batches != 3 {
				t.Errorf("compose got %d verdicts in %d batches, want 12 in 3", len(c.Verdicts), c.Report.Batches)
			}
			if f.saved.SummaryMethod != "extractive" {
				t.Errorf("saved summary method %q, want the extractive one (Summarize skips without an LLM)", f.saved.SummaryMethod)
			}
		})
	}
}
