package workflows

import (
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistories replays histories of real runs (recorded by the worker
// integration tests: go test ./worker -update-history) against today's workflow code,
// registered by Register, the list the worker uses. A change that would
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
			hist := readHistory(t, f)
			// The workflow uses its own IDs (probe key and content), so replay under the
			// recorded ones: the file is named after the workflow ID; the run ID is in the history.
			exec := workflow.Execution{
				ID:    strings.TrimSuffix(filepath.Base(f), ".json"),
				RunID: hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId(),
			}
			r := worker.NewWorkflowReplayer()
			Register(r) // the worker's own list
			if err := r.ReplayWorkflowHistoryWithOptions(logger, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEveryWorkflowHasARecordedHistory: each workflow in Register has at least one history in
// testdata/, so the replay test guards all of them.
func TestEveryWorkflowHasARecordedHistory(t *testing.T) {
	reg := &recordingRegistry{funcs: map[string]any{}}
	Register(reg)
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, f := range files {
		data, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := client.HistoryFromJSON(data, client.HistoryJSONOptions{})
		data.Close()
		if err != nil {
			t.Fatal(err)
		}
		recorded[hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()] = true
	}
	names := make([]string, 0, len(reg.funcs))
	for n := range reg.funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !recorded[n] {
			t.Errorf("workflow %s has no recorded history in testdata/ (record one: go test ./worker -update-history)", n)
		}
	}
}

// readHistory reads a recorded history (JSON, as the Web UI and the CLI export it).
func readHistory(t *testing.T, path string) *historypb.History {
	t.Helper()
	data, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	hist, err := client.HistoryFromJSON(data, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return hist
}
