package workflows

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistories replays histories of real runs (recorded by the worker
// integration tests: go test ./worker -update-history) against today's workflow code. A change that would
// break running workflows fails here; guard it with workflow.GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/")
	}
	logger := log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer data.Close()
			hist, err := client.HistoryFromJSON(data, client.HistoryJSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// The workflow uses its own IDs (probe key and content), so replay under the
			// recorded ones: the file is named after the workflow ID; the run ID is in the history.
			exec := workflow.Execution{
				ID:    strings.TrimSuffix(filepath.Base(f), ".json"),
				RunID: hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId(),
			}
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(HealthCheck, workflow.RegisterOptions{Name: "HealthCheck"})
			r.RegisterWorkflowWithOptions(IndexBuild, workflow.RegisterOptions{Name: "IndexBuild"})
			r.RegisterWorkflowWithOptions(BuildShard, workflow.RegisterOptions{Name: "BuildShard"})
			r.RegisterWorkflowWithOptions(Ask, workflow.RegisterOptions{Name: "Ask"})
			r.RegisterWorkflowWithOptions(Eval, workflow.RegisterOptions{Name: "Eval"})
			if err := r.ReplayWorkflowHistoryWithOptions(logger, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
