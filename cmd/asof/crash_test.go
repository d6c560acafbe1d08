package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/workflows"
)

type newsRow struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Text        string `parquet:"text"`
}

// TestWorkerKilledDuringEmbeddingWithModel runs `asof server`, a worker, and `asof index` as
// separate processes, kills the worker (SIGKILL) once embedding has stored its first part,
// starts another worker, and checks that the build completes with every chunk embedded once:
// the stored parts are resumed, not redone, and none is missing.
func TestWorkerKilledDuringEmbeddingWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and workers in subprocesses")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	server, env, hostPort, store := startServer(t, dir, "--ui-port", "0")
	workerArgs := []string{"worker", "--temporal", hostPort, "--store", store, "--model-dir", modelDir}
	first := startProc(t, env, workerArgs...)
	first.waitFor(t, regexp.MustCompile(`asof worker polling`))

	const docs = 8
	var rows []newsRow
	for i := range docs {
		rows = append(rows, newsRow{fmt.Sprint("n", i), fmt.Sprintf("2024-05-%02d", i+1), fmt.Sprintf("Report %d: the central bank kept the key rate unchanged and signalled caution.", i)})
	}
	file := writeParquetFile(t, dir, "news.parquet", rows)

	idx := startProc(t, env, "index", "--temporal", hostPort, "--store", store, "--model-dir", modelDir,
		"--index", "crash", "--corpus", file, "--embed-part-size", "1", "--embed-heartbeat", "4s", "--json")
	parts := filepath.Join(dir, "s3", "asof", "indexes", "crash", "staging", "*", "vectors", "*.f32")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if got, _ := filepath.Glob(parts); len(got) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no embedding part stored within 2 minutes\nworker:\n%s\nindex:\n%s", first.output(), idx.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	stored, _ := filepath.Glob(parts)
	t.Logf("killed the worker with %d of %d parts stored", len(stored), docs)

	second := startProc(t, env, workerArgs...)
	select {
	case err := <-idx.done:
		if err != nil {
			t.Fatalf("index failed: %v\n%s\nsecond worker:\n%s", err, idx.output(), second.output())
		}
	case <-time.After(4 * time.Minute):
		t.Fatalf("index did not finish within 4 minutes after the restart\n%s", idx.output())
	}
	out := idx.output()
	var res workflows.IndexBuildResult
	decodeJSONOutput(t, out, &res)
	if res.ShardsBuilt != 1 || res.Counts.Chunks != docs || !res.Counts.Reconciles() {
		t.Fatalf("result %+v", res)
	}
	if res.PartsResumed < 1 || res.PartsEmbedded+res.PartsResumed != docs {
		t.Fatalf("parts: %d embedded + %d resumed, want %d in all with at least one resumed", res.PartsEmbedded, res.PartsResumed, docs)
	}
	second.interrupt(t)
	server.interrupt(t)
}
