package worker

import (
	"testing"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/workflows"
)

// TestQueueOptions: the asof-llm queue runs at most llm.slots activities at once, so that a
// request never waits in the LLM server's queue against its timeout; the other queues, and the
// LLM queue without slots, keep max_concurrent_activities.
func TestQueueOptions(t *testing.T) {
	cfg := config.Worker{MaxConcurrentActivities: 7}
	tests := []struct {
		name      string
		queue     string
		slots     int
		want      int
		workflows bool
	}{
		{"llm queue with one slot", config.QueueLLM, 1, 1, false},
		{"llm queue with two slots", config.QueueLLM, 2, 2, false},
		{"llm queue, endpoint without slots", config.QueueLLM, 0, 7, false},
		{"embed queue keeps the worker's limit", config.QueueEmbed, 1, 7, false},
		{"default queue runs the workflows", workflows.TaskQueue, 1, 7, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := queueOptions(tt.queue, cfg, Deps{LLMSlots: tt.slots, Identity: "w1"})
			if o.MaxConcurrentActivityExecutionSize != tt.want || o.DisableWorkflowWorker == tt.workflows || o.Identity != "w1" {
				t.Errorf("got limit %d, workflows %v, identity %q; want %d, %v, w1",
					o.MaxConcurrentActivityExecutionSize, !o.DisableWorkflowWorker, o.Identity, tt.want, tt.workflows)
			}
		})
	}
}
