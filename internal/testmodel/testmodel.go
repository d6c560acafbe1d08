// Package testmodel hands tests the real E5-small-v2 model, or skips them: when the model has
// not been pulled (`make setup` / `asof models pull`), and under the race detector, where the
// pure-Go backend's own data race (gomlx simplego) would fail the run and everything is ~30×
// slower. `make test` runs the model tests again without -race (names matching WithModel).
package testmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/schemas"
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

// modelsDir is ASOF_MODEL_DIR, else the repository's .asof/models when it holds the test
// model, else the shared cache `make setup` pulls into (config.SharedModelsDir) when that does.
var modelsDir = func() string {
	if d := os.Getenv("ASOF_MODEL_DIR"); d != "" {
		return d
	}
	own := filepath.Join(repoData, "models")
	if _, err := os.Stat(filepath.Join(own, ID, "model.onnx")); err != nil {
		if shared := config.SharedModelsDir(); shared != "" {
			if _, err := os.Stat(filepath.Join(shared, ID, "model.onnx")); err == nil {
				return shared
			}
		}
	}
	return own
}()

// ortDir is where binaries built with -tags ORT find libonnxruntime.so in tests.
var ortDir = func() string {
	if d := os.Getenv("ASOF_EMBED_ORT_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoData, "ort", "lib")
}()

// ID is the catalogue model tests embed with: e5-small-v2, the model `make setup` pulls.
const ID = "e5-small-v2"

// Dir returns the E5 model folder or skips t.
func Dir(t testing.TB) string { t.Helper(); return DirOf(t, ID) }

// DirOf returns the folder of catalogue model id, or skips t when it has not been pulled.
func DirOf(t testing.TB, id string) string {
	t.Helper()
	if raceEnabled {
		t.Skip("model tests run without -race (make test runs them in a second pass)")
	}
	dir := filepath.Join(modelsDir, id)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("model %s absent (run `make setup` or `asof models pull %s`): %v", id, id, err)
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
func Config(t testing.TB) embed.Config { return ConfigOf(t, ID) }

// ConfigOf is Config for another catalogue E5 model (e5-small-v2-q, multilingual-e5-small),
// skipping t without it.
func ConfigOf(t testing.TB, id string) embed.Config {
	return embed.Config{Dir: DirOf(t, id), ID: id, Dim: 384, QueryPrefix: "query: ", PassagePrefix: "passage: ", ORTDir: ortDir}
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

// ModelsDir returns the models folder for tests that run the CLI on its default model, which
// is models.DefaultID (multilingual) on ONNX Runtime and e5-small-v2 on pure Go, and on E5-small-v2 (ID)
// by name: it skips t unless both are pulled (`make setup` pulls the default; `asof models
// pull e5-small-v2 multilingual-e5-small-fused` both).
func ModelsDir(t testing.TB) string {
	t.Helper()
	for _, id := range []string{ID, models.DefaultID, models.FloatDefaultID} {
		DirOf(t, id)
	}
	return modelsDir
}

// BenchID is the model benchmarks embed with: ASOF_BENCH_MODEL, else the CLI's default for
// this test binary (int8 where ONNX Runtime runs, fp32 on pure Go).
func BenchID() string {
	if id := os.Getenv("ASOF_BENCH_MODEL"); id != "" {
		return id
	}
	if embed.ORTBuilt && embed.ORTAvailable(ortDir) == nil {
		return models.DefaultID
	}
	return models.FloatDefaultID
}

// Bench loads the BenchID model for b, closed when b ends.
func Bench(b testing.TB) *embed.Hugot {
	b.Helper()
	h, err := embed.NewHugot(ConfigOf(b, BenchID()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// BenchRef is the BenchID model as a worker records it in an index it builds (catalogue id,
// sha256 of its files, dimension), so that an index a benchmark builds can be asked by a real
// worker (`asof serve`), which refuses an index of other weights.
func BenchRef(b testing.TB) schemas.ModelRef {
	b.Helper()
	m, err := models.Resolve(BenchID(), modelsDir)
	if err != nil {
		b.Fatal(err)
	}
	return schemas.ModelRef{ID: m.Spec.ID, SHA256: m.SHA256, Dim: m.Spec.Dim}
}
