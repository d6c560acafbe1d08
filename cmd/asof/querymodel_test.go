package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

// TestOneWorkerAnswersIndexesOfEveryModelWithModel: one `asof dev`, started with no
// --embed-model (it embeds with the default, multilingual-e5-small-fused), answers an index
// built with e5-small-v2-q (the model an English corpus gets) and one built with the default,
// each question embedded with its index's model (the English one loaded when first asked
// for); an index whose model is not on this machine fails, naming the model and the command
// that pulls it, and the process goes on answering. Then `asof serve`, which runs its own
// worker, answers both through the API.
func TestOneWorkerAnswersIndexesOfEveryModelWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	testmodel.Fast(t) // the int8 models need ONNX Runtime
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "models")
	if err := os.MkdirAll(modelDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{models.DefaultID, models.EnglishID, testmodel.ID} {
		if err := os.Symlink(testmodel.DirOf(t, id), filepath.Join(modelDir, id)); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	tport, sport := freePort(t), freePort(t)
	common := []string{"--data-dir", data, "--model-dir", modelDir}
	// The indexes, built by the CLI's own embedded servers before dev starts.
	for _, c := range []struct{ index, model string }{{"english", models.EnglishID}, {"multi", models.DefaultID}, {"gone", testmodel.ID}} {
		code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", c.index, "--corpus", file, "--embed-model", c.model, "--temporal-port", tport, "--s3-port", sport}, common...)...)
		if code != 0 {
			t.Fatalf("index %s with %s: exit %d\n%s\n%s", c.index, c.model, code, out, errOut)
		}
	}
	if err := os.Remove(filepath.Join(modelDir, testmodel.ID)); err != nil { // gone's model leaves this machine
		t.Fatal(err)
	}

	dev := startProc(t, nil, append([]string{"dev", "--temporal-port", tport, "--s3-port", sport, "--ui-port", "0"}, common...)...)
	dev.waitFor(t, regexp.MustCompile(`asof dev is up`))
	if !strings.Contains(dev.output(), "  Model     "+models.DefaultID+" ") {
		t.Fatalf("dev does not embed with the default:\n%s", dev.output())
	}
	ask := func(index string) (int, string, string) {
		t.Helper()
		return runCLI(t, nil, append([]string{"ask", "--index", index, "--json", "--as-of", "2023-03-03", "What is the name of Rishi Sunak's new Brexit deal with the European Union?"}, common...)...)
	}
	answered := func(index string) {
		t.Helper()
		code, out, errOut := ask(index)
		var ans schemas.Answer
		if code != 0 || !strings.Contains(errOut, "using the running asof dev") || json.Unmarshal([]byte(out), &ans) != nil || len(ans.Results) == 0 {
			t.Fatalf("ask %s: exit %d\nstdout:\n%s\nstderr:\n%s", index, code, out, errOut)
		}
		if !strings.HasPrefix(ans.Results[0].DocID, "windsor-") {
			t.Errorf("ask %s led with %s", index, ans.Results[0].DocID)
		}
	}
	answered("english") // the old code: "index english was built with model e5-small-v2-q, this worker embeds with multilingual-e5-small-fused"
	answered("multi")
	code, out, errOut := ask("gone")
	want := "index gone was built with model " + testmodel.ID + ", which this worker cannot load to embed its queries: model not pulled"
	if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "`asof models pull "+testmodel.ID+"`") {
		t.Fatalf("ask gone: exit %d, want an error saying %q and the pull command\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	answered("english") // the loaded model is kept, and dev still answers
	dev.interrupt(t)

	// asof serve's own worker, over the same servers, answers both through the API.
	srv := startProc(t, nil, append([]string{"serve", "--addr", "127.0.0.1:0", "--temporal-port", tport, "--s3-port", sport}, common...)...)
	c := apiClient{t: t, base: srv.waitFor(t, listeningRe)[1]}
	for _, index := range []string{"english", "multi"} {
		var ans schemas.Answer
		c.json("POST", "/v1/ask", apispec.AskRequest{Index: index, AsOf: "2023-03-03", Query: "What is the name of Rishi Sunak's new Brexit deal with the European Union?"}, &ans)
		if len(ans.Results) == 0 || !strings.HasPrefix(ans.Results[0].DocID, "windsor-") {
			t.Errorf("serve, ask %s: %+v", index, ans.Results)
		}
	}
	srv.interrupt(t)
}

// TestQueryModelLoaderErrors: the loader a worker loads an index's model with says what to do
// when it cannot: the pull command for a catalogue model not pulled, where a folder model goes,
// and that an int8 model needs ONNX Runtime on a pure-Go worker; a path is no model id.
func TestQueryModelLoaderErrors(t *testing.T) {
	modelDir := t.TempDir()
	cfg := config.Default()
	cfg.ModelDir = modelDir
	cfg.Embed.Backend = embed.BackendGo
	load := worker.QueryModelLoader(cfg)
	for _, tt := range []struct{ id, want string }{
		{models.EnglishID, "model not pulled: " + models.EnglishID + " is not in " + modelDir + " (fetch it with `asof models pull " + models.EnglishID + "`)"},
		{"my-e5", "unknown model: my-e5 is neither a catalogue model (asof models list) nor a folder in " + modelDir + "; put the model folder the index was built with there"},
		{"../elsewhere", `"../elsewhere" is not a model id`},
	} {
		if _, _, err := load(tt.id); err == nil || err.Error() != tt.want {
			t.Errorf("load %s: %v\nwant: %s", tt.id, err, tt.want)
		}
	}
	if err := os.Symlink(testmodel.DirOf(t, models.EnglishID), filepath.Join(modelDir, models.EnglishID)); err != nil {
		t.Fatal(err)
	}
	_, _, err := load(models.EnglishID)
	want := models.EnglishID + " needs ONNX Runtime and this worker embeds on the pure-Go backend (embed: the pure-Go backend cannot run quantized (int8) models); run the worker from a binary built with ONNX Runtime (`make setup-ort`, then `make build`)"
	if err == nil || err.Error() != want {
		t.Fatalf("load %s on pure Go: %v\nwant: %s", models.EnglishID, err, want)
	}
}
