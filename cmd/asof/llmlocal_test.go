package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// TestAskLocalLLMWithModel: `asof ask --llm local:FILE.gguf` starts llama.cpp's server (the
// runtime make setup-llm makes; skipped without it) as its child, judges and summarizes with it
// and stops it on exit. SmolLM2-135M stands in for the catalogue's models: it is fast, and its
// weak verdicts may fail a batch, which the keep policy reports, and its brief may fail its
// checks and fall back to the extractive one, saying so; either way the ask completes. The
// server accepts the judge's and the brief's JSON schemas (llama.cpp compiles them into
// grammars; one it refused would fail the ask as a configuration error).
func TestAskLocalLLMWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers and llama.cpp's")
	}
	runtime, _ := filepath.Abs(filepath.Join("..", "..", ".asof", "llm"))
	if d := os.Getenv("ASOF_TEST_LLM_DIR"); d != "" {
		runtime = d
	}
	gguf := filepath.Join(runtime, "SmolLM2-135M-Instruct.Q4_1.gguf")
	for _, f := range []string{filepath.Join(runtime, "venv", "bin", "python"), filepath.Join(runtime, "serve.py"), gguf} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no local LLM runtime: %s is missing (make setup-llm, or set ASOF_TEST_LLM_DIR)", f)
		}
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	data := filepath.Join(dir, "data")
	common := []string{"--data-dir", data, "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	env := map[string]string{"ASOF_LLM_RUNTIME_DIR": runtime}
	code, out, errOut := runCLI(t, env, append([]string{"ask", "--index", "news", "--json", "--as-of", "2023-03-03", "--judge", "llm",
		"--judge-pool", "4", "--judge-batch", "4", "--judge-attempts", "1", // one call: the test proves the wiring, not the model
		"--llm", "local:" + gguf, "Brexit deal"}, common...)...)
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errOut)
	}
	var ans schemas.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	j := ans.Judge
	if j == nil || !(j.Method == "llm:SmolLM2-135M-Instruct.Q4_1" || j.FailedBatches > 0) {
		t.Fatalf("judge report %+v: want the local model's method, or failed batches reported", j)
	}
	switch b := ans.Brief; {
	case ans.SummaryMethod == "llm:SmolLM2-135M-Instruct.Q4_1":
	case ans.SummaryMethod == "extractive" && b != nil && strings.Contains(b.Note, "The LLM summary failed"):
		t.Logf("the 135M's brief fell back: %s", b.Note)
	default:
		t.Fatalf("summary method %q, brief %+v: want the local model's, or the extractive one with a note", ans.SummaryMethod, b)
	}
	log, err := os.ReadFile(filepath.Join(data, "llm-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"serves SmolLM2-135M-Instruct.Q4_1 at http://127.0.0.1:", "stopping on SIGTERM"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("llm-server.log lacks %q:\n%s", want, log)
		}
	}
	// Neither a catalogue model nor a file: refused before anything starts.
	code, _, errOut = runCLI(t, env, append([]string{"ask", "--index", "news", "--as-of", "2023-03-03", "--llm", "local:gpt-9", "x"}, common...)...)
	if code == 0 || !strings.Contains(errOut, "local:gpt-9: not a catalogue language model") {
		t.Fatalf("--llm local:gpt-9: exit %d\n%s", code, errOut)
	}
}
