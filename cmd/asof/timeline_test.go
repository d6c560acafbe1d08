package main

import (
	"strings"
	"testing"
)

// TestTimelineCommandsCheckTheirInput: asof timeline and asof eval --timelines refuse what
// cannot work, by flag name, before any server starts.
func TestTimelineCommandsCheckTheirInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no topic", []string{"timeline", "--index", "n", "--topic", " ", "--as-of", "2011-09-01"}, "--topic is empty"},
		{"bad day", []string{"timeline", "--index", "n", "--topic", "Libia", "--as-of", "2011-13-01"}, "--as-of"},
		{"from after the anchor", []string{"timeline", "--index", "n", "--topic", "Libia", "--as-of", "2011-09-01", "--from", "2011-10-01"}, "--from 2011-10-01 is after"},
		{"bad format", []string{"timeline", "--index", "n", "--topic", "Libia", "--as-of", "2011-09-01", "--format", "pdf"}, "--format"},
		{"too many sentences", []string{"timeline", "--index", "n", "--topic", "Libia", "--as-of", "2011-09-01", "--sentences", "4"}, "--sentences 4"},
		{"bad index", []string{"timeline", "--index", "N/../x", "--topic", "Libia", "--as-of", "2011-09-01"}, "--index"},
		{"eval without topics", []string{"eval", "--index", "n", "--out", dir, "--timelines", "x.parquet"}, "--timelines needs --topics"},
		{"eval with questions", []string{"eval", "--index", "n", "--out", dir, "--timelines", "x.parquet", "--topics", "y.parquet", "--questions", "q.parquet"}, "leave out --questions"},
		{"eval missing reference", []string{"eval", "--index", "n", "--out", dir, "--timelines", dir + "/none.parquet", "--topics", "y.parquet"}, "--timelines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, append(c.args, "--data-dir", dir)...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q: want a failure saying %q", code, stderr, c.want)
			}
		})
	}
}
