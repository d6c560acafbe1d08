package client

import (
	"testing"
	"time"

	"github.com/asofrag/asof/workflows"
)

// TestSameIndexBuild: a second `asof index` follows a running build only when it would index
// the same rows the same way; another append waits its turn instead (following it dropped the
// append's rows while reporting the other build's result).
func TestSameIndexBuild(t *testing.T) {
	base := workflows.IndexBuildInput{Index: "news", Inputs: []workflows.InputFile{{Key: "corpora/aa/a.parquet", Name: "a.parquet"}},
		Period: "month", Append: true, EmbedPartSize: 32}
	tests := []struct {
		name   string
		change func(*workflows.IndexBuildInput)
		same   bool
	}{
		{"identical", func(*workflows.IndexBuildInput) {}, true},
		{"tuning and run state differ", func(in *workflows.IndexBuildInput) {
			in.Concurrency, in.EmbedPartSize, in.EmbedHeartbeat, in.MaxShardsPerRun = 4, 8, time.Second, 10
			in.AsOf, in.Started, in.Carried = time.Now(), time.Now(), &workflows.IndexBuildCarry{Runs: 2}
		}, true},
		{"default period and empty mapping", func(in *workflows.IndexBuildInput) { in.Period, in.Mapping = "", map[string]string{} }, true},
		{"another file", func(in *workflows.IndexBuildInput) {
			in.Inputs = []workflows.InputFile{{Key: "corpora/bb/b.parquet", Name: "b.parquet"}}
		}, false},
		{"one more file", func(in *workflows.IndexBuildInput) {
			in.Inputs = append(in.Inputs, workflows.InputFile{Key: "corpora/bb/b.parquet", Name: "b.parquet"})
		}, false},
		{"rebuild instead of append", func(in *workflows.IndexBuildInput) { in.Append = false }, false},
		{"another range", func(in *workflows.IndexBuildInput) { in.From = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC) }, false},
		{"another mapping", func(in *workflows.IndexBuildInput) { in.Mapping = map[string]string{"text": "message"} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := base
			other.Inputs = append([]workflows.InputFile(nil), base.Inputs...)
			tt.change(&other)
			if got := SameIndexBuild(base, other); got != tt.same {
				t.Fatalf("SameIndexBuild = %v, want %v", got, tt.same)
			}
		})
	}
}
