package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestPathFlagsAreMadeAbsolute: the embedded S3 gateway changes the working directory, so a
// relative --out or --corpus must be resolved against where the user stood before it starts.
func TestPathFlagsAreMadeAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	out := fs.String("out", "", "")
	questions := fs.String("questions", "", "")
	topics := fs.String("topics", "", "")
	corpus := fs.StringArray("corpus", nil, "")
	if err := fs.Parse([]string{"--out", "eval-out", "--questions", "/abs/q.parquet",
		"--corpus", "data/*.parquet", "--corpus", "s3://bucket/docs.parquet", "--corpus", "file:///x/y.parquet"}); err != nil {
		t.Fatal(err)
	}
	if err := absPathFlags(fs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, got, want string
	}{
		{"relative --out", *out, filepath.Join(wd, "eval-out")},
		{"absolute --questions stays", *questions, "/abs/q.parquet"},
		{"unset --topics stays empty", *topics, ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if want := []string{filepath.Join(wd, "data/*.parquet"), "s3://bucket/docs.parquet", "file:///x/y.parquet"}; !slices.Equal(*corpus, want) {
		t.Errorf("--corpus = %q, want %q (a glob kept, URLs as given)", *corpus, want)
	}
}
