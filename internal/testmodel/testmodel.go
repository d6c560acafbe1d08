// Package testmodel hands tests the real E5-small-v2 model, or skips them: when the model has
// not been pulled (`make setup` / `asof models pull`), and under the race detector, where the
// pure-Go backend's own data race (gomlx simplego) would fail the run and everything is ~30×
// slower. `make test` runs the model tests again without -race (names matching WithModel).
package testmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/asofrag/asof/internal/embed"
)

// repoData is the repository's .asof folder, where `make setup` puts the model and ONNX
// Runtime. It and the folders below are resolved once, before any test can change the working
// directory.
var repoData = func() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".asof")
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}()

var modelsDir = func() string {
	if d := os.Getenv("ASOF_MODEL_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoData, "models")
}()

// ortDir is where binaries built with -tags ORT find libonnxruntime.so in tests.
var ortDir = func() string {
	if d := os.Getenv("ASOF_EMBED_ORT_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoData, "ort", "lib")
}()

// Dir returns the E5 model folder or skips t.
func Dir(t testing.TB) string {
	t.Helper()
	if raceEnabled {
		t.Skip("model tests run without -race (make test runs them in a second pass)")
	}
	dir := filepath.Join(modelsDir, "e5-small-v2")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("E5 model absent (run `make setup` or `asof models pull`): %v", err)
	}
	return dir
}

// Fast skips t unless this test binary embeds on ONNX Runtime: for tests that embed hundreds
// of passages, which take seconds there and half an hour on the pure-Go backend.
func Fast(t testing.TB) {
	t.Helper()
	if !embed.ORTBuilt {
		t.Skip("embeds hundreds of passages: runs only with the ONNX Runtime backend (-tags ORT, after `make setup-ort`)")
	}
	if err := embed.ORTAvailable(ortDir); err != nil {
		t.Skipf("embeds hundreds of passages: ONNX Runtime does not load here: %v", err)
	}
}

// ORTDir is the folder holding libonnxruntime.so for tests (ASOF_EMBED_ORT_DIR, else the
// repository's .asof/ort/lib that `make setup-ort` fills).
func ORTDir() string { return ortDir }

// Config is the E5 embedder configuration for tests, on the default backend: ONNX Runtime in
// test binaries built with -tags ORT, else pure Go.
func Config(t testing.TB) embed.Config {
	return embed.Config{Dir: Dir(t), ID: "e5-small-v2", Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", BatchSize: 8, ORTDir: ortDir}
}

// E5 loads the model for t and closes it when t ends.
func E5(t testing.TB) *embed.Hugot {
	t.Helper()
	h, err := embed.NewHugot(Config(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
