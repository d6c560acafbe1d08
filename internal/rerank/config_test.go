package rerank_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/rerank"
)

// TestFromConfig checks what each rerank configuration builds.
func TestFromConfig(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*config.Rerank)
		want    string // Describe contains it; "" no reranker
		wantErr string
		opts    rerank.Options
	}{
		{name: "off by default", mutate: func(*config.Rerank) {}},
		{name: "a server", mutate: func(r *config.Rerank) {
			r.BaseURL, r.Model, r.Top, r.Fuse, r.Weight = "http://127.0.0.1:8000/v1", "bge-reranker-v2-m3", 30, "replace", 2
		}, want: `"bge-reranker-v2-m3" at http://127.0.0.1:8000/v1/rerank (api cohere`, opts: rerank.Options{TopN: 30, Fuse: rerank.FuseReplace, Weight: 2}},
		{name: "tei", mutate: func(r *config.Rerank) { r.BaseURL, r.API = "http://127.0.0.1:8080/", "tei" },
			want: "at http://127.0.0.1:8080/rerank (api tei"},
		{name: "a server without a model", mutate: func(r *config.Rerank) { r.BaseURL = "http://127.0.0.1:8000/v1" }, wantErr: "needs a model name"},
		{name: "a folder that is not there", mutate: func(r *config.Rerank) { r.Model = filepath.Join(t.TempDir(), "nope") },
			wantErr: "rerank.model: rerank: not a cross-encoder model folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			tc.mutate(&c.Rerank)
			r, o, closeFn, err := rerank.FromConfig(c)
			defer closeFn()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if r != nil {
					t.Fatalf("reranker %s, want none", r.Describe())
				}
				return
			}
			if r == nil || !strings.Contains(r.Describe(), tc.want) {
				t.Fatalf("reranker %v, want one described as %q", r, tc.want)
			}
			if o != tc.opts {
				t.Errorf("options %+v, want %+v", o, tc.opts)
			}
		})
	}
}
