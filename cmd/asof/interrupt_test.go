package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/workflows"
)

// TestIndexCtrlCWithModel stops `asof index` (its own embedded servers and worker) with
// Ctrl-C once embedding has stored a part: it says, without log lines, that the build is
// paused and how to resume it, and exits 130; the same command run again follows the build
// and finishes it, each part embedded once.
func TestIndexCtrlCWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers in subprocesses")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	const docs = 40 // enough parts that the build is still embedding when Ctrl-C comes
	var rows []newsRow
	for i := range docs {
		rows = append(rows, newsRow{fmt.Sprint("n", i), time.Date(2024, 5, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), fmt.Sprintf("Report %d: the central bank kept the key rate unchanged and signalled caution.", i)})
	}
	file := writeParquetFile(t, dir, "news.parquet", rows)
	data := filepath.Join(dir, "data")
	newArgs := func() []string {
		return []string{"index", "--data-dir", data, "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t),
			"--index", "stop", "--corpus", file, "--embed-part-size", "1", "--embed-heartbeat", "4s", "--json"}
	}
	args := newArgs()
	idx := startProc(t, nil, args...)
	parts := filepath.Join(data, "s3", "asof", "indexes", "stop", "staging", "*", "vectors", "*.f32")
	deadline := time.Now().Add(2 * time.Minute)
	for retried := false; ; {
		if got, _ := filepath.Glob(parts); len(got) >= 1 {
			break
		}
		select {
		case err := <-idx.done:
			// A port freePort handed out can be taken by another process before the child
			// binds it: start once more on new ports; any other early exit fails at once.
			if <-idx.read; !retried && strings.Contains(idx.output(), "address already in use") {
				retried, args = true, newArgs()
				idx = startProc(t, nil, args...)
				continue
			}
			t.Fatalf("index exited (%v) before storing an embedding part\n%s", err, idx.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no embedding part stored within 2 minutes\n%s", idx.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	idx.cmd.Process.Signal(syscall.SIGINT)
	var err error
	select {
	case err = <-idx.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("index did not stop within 30 s of Ctrl-C\n%s", idx.output())
	}
	<-idx.read
	out := idx.output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit after Ctrl-C: %v, want code 130", err)
	}
	for _, want := range []string{"asof: stopped", "The build of index stop (workflow asof-index-stop) is paused, not lost", "Run the same command again to resume it"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"level=WARN", "level=ERROR", "context canceled"} {
		if strings.Contains(out, bad) {
			t.Errorf("an ordinary stop printed %q:\n%s", bad, out)
		}
	}

	again := startProc(t, nil, args...)
	for retried := false; ; {
		select {
		case err := <-again.done:
			// As above: a port of the first run's can be taken by another process between the
			// two runs; the rerun resumes from the data dir on new ports just the same.
			if <-again.read; err != nil && !retried && strings.Contains(again.output(), "address already in use") {
				retried = true
				again = startProc(t, nil, newArgs()...)
				continue
			}
			if err != nil {
				t.Fatalf("the rerun failed: %v\n%s", err, again.output())
			}
		case <-time.After(4 * time.Minute):
			t.Fatalf("the rerun did not finish within 4 minutes\n%s", again.output())
		}
		break
	}
	<-again.read
	out = again.output()
	if !strings.Contains(out, "a build of index stop with these inputs is already running (workflow asof-index-stop): following it") {
		t.Errorf("the rerun did not follow the paused build:\n%s", out)
	}
	var res workflows.IndexBuildResult
	decodeJSONOutput(t, out, &res)
	// Each part once: what the stopped attempt stored is resumed, not embedded again (whether
	// Ctrl-C came before the embedding activity ended depends on timing).
	if res.Counts.Chunks != docs || !res.Counts.Reconciles() || res.PartsEmbedded+res.PartsResumed != docs {
		t.Fatalf("result after the resume: %+v", res)
	}
}
