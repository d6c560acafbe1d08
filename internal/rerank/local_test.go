package rerank_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/testmodel"
)

// localModel loads the cross-encoder folder named by ASOF_RERANK_MODEL_DIR, or skips: no
// reranker weights can be fetched on the machines this project is built on.
func localModel(t *testing.T, batch int) *rerank.Local {
	t.Helper()
	dir := os.Getenv("ASOF_RERANK_MODEL_DIR")
	if dir == "" {
		t.Skip("ASOF_RERANK_MODEL_DIR is unset: set it to an ONNX cross-encoder folder (e.g. ms-marco-MiniLM-L-6-v2 or bge-reranker-base with tokenizer.json) to run the local reranker on it")
	}
	l, err := rerank.NewLocal(rerank.LocalConfig{Dir: dir, BatchSize: batch, ORTDir: testmodel.ORTDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// TestLocalWithModel runs a user's cross-encoder: one finite score in (0, 1) per document, in
// the documents' order whatever the batching, and the passage that answers first.
func TestLocalWithModel(t *testing.T) {
	passages := []string{
		"The weather in Lyon will be rainy this weekend.",
		"Paris is the capital and largest city of France.",
		"The football club won its third match in a row.",
		"France's government met in the capital on Tuesday.",
	}
	const q = "What is the capital of France?"
	one := localModel(t, 1)
	got, err := one.Rerank(context.Background(), q, passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(passages) {
		t.Fatalf("%d scores for %d passages", len(got), len(passages))
	}
	for i, s := range got {
		if !(s > 0 && s < 1) {
			t.Errorf("score %d is %v, want a probability", i, s)
		}
	}
	best := 0
	for i := range got {
		if got[i] > got[best] {
			best = i
		}
	}
	if best != 1 {
		t.Errorf("scores %v: the answering passage (1) is not first", got)
	}
	// Reversed input, batches of 3: the same score for each passage.
	rev := slices.Clone(passages)
	slices.Reverse(rev)
	again, err := localModel(t, 3).Rerank(context.Background(), q, rev)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(again)
	for i := range got {
		if math.Abs(got[i]-again[i]) > 1e-4 {
			t.Errorf("passage %d: %v alone, %v reversed in batches of 3", i, got[i], again[i])
		}
	}
}

// TestLocalRefusesWithModel checks that folders which are not a cross-encoder are refused
// with ErrModelFolder and a reason: an embedding model (E5, when pulled: its output is one
// vector per token, not one logit per pair), a folder without a model, and no folder at all.
func TestLocalRefusesWithModel(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		dir  func(t *testing.T) string
		want string
	}{
		{"no folder", func(*testing.T) string { return filepath.Join(empty, "nope") }, "is not a folder"},
		{"no onnx file", func(*testing.T) string { return empty }, "no .onnx file"},
		{"no special tokens", func(t *testing.T) string {
			d := t.TempDir()
			for _, f := range []string{"model.onnx", "tokenizer.json"} {
				if err := os.WriteFile(filepath.Join(d, f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return d
		}, "no special_tokens_map.json"},
		{"an embedding model", func(t *testing.T) string {
			// E5's files, with the special tokens a hub folder has: hugot loads the model and
			// refuses its output (one vector per token, not one logit per pair).
			e5, d := testmodel.Config(t).Dir, t.TempDir()
			for _, f := range []string{"model.onnx", "tokenizer.json", "config.json"} {
				if err := os.Symlink(filepath.Join(e5, f), filepath.Join(d, f)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(d, "special_tokens_map.json"), []byte(`{"sep_token": "[SEP]"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return d
		}, "cross encoder must have 2 dimensional output"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rerank.NewLocal(rerank.LocalConfig{Dir: tc.dir(t), ORTDir: testmodel.ORTDir()})
			if !errors.Is(err, rerank.ErrModelFolder) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrModelFolder saying %q", err, tc.want)
			}
		})
	}
}
