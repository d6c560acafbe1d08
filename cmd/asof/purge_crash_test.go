package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/purgetest"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestPurgeKilledMidwayWithModel is issue 47's takedown done-when on the real servers, each in
// its own process: `asof server`, a worker and the CLI. An index of 12 months holds a document
// in 12 versions (one a month) beside other news; an answer cites it. `asof docs delete
// --purge` takes it down, and the worker is killed (SIGKILL) as soon as the first shard
// written without its rows is in the store; another worker finishes the purge, reusing the
// shards the first one wrote. Afterwards no object in the store holds its text or vectors
// (every object read back through the S3 gateway), no answer cites it, and the counts
// reconcile.
func TestPurgeKilledMidwayWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and workers in subprocesses")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	server, env, hostPort, store := startServer(t, dir, "--ui-port", "0")
	conn := []string{"--temporal", hostPort, "--store", store}
	workerArgs := append([]string{"worker", "--model-dir", modelDir}, conn...)
	first := startProc(t, env, workerArgs...)
	first.waitFor(t, regexp.MustCompile(`asof worker polling`))

	const months, marker = 12, "Zorbulon"
	var rows []newsRow
	for m := 1; m <= months; m++ {
		rows = append(rows,
			newsRow{"a", fmt.Sprintf("2024-%02d-05", m), fmt.Sprintf("Update %d from %s: the central bank kept the key rate at %d percent.", m, marker, 10+m)},
			newsRow{fmt.Sprint("n", m), fmt.Sprintf("2024-%02d-10", m), fmt.Sprintf("Market note %d: the central bank key rate weighs on the rouble.", m)})
	}
	file := writeParquetFile(t, dir, "news.parquet", rows)
	wait := func(p *proc, what string, limit time.Duration) string {
		t.Helper()
		select {
		case err := <-p.done:
			<-p.read
			if err != nil {
				t.Fatalf("%s: %v\n%s", what, err, p.output())
			}
		case <-time.After(limit):
			t.Fatalf("%s did not finish within %s:\n%s", what, limit, p.output())
		}
		return p.output()
	}
	idx := startProc(t, env, append([]string{"index", "--model-dir", modelDir, "--index", "pk", "--corpus", file, "--period", "month", "--json"}, conn...)...)
	var built workflows.IndexBuildResult
	decodeJSONOutput(t, wait(idx, "index", 4*time.Minute), &built)
	if built.Counts.Indexed != 2*months || built.ShardsBuilt != months {
		t.Fatalf("index: %+v", built)
	}
	ask := func() schemas.Answer {
		t.Helper()
		p := startProc(t, env, append([]string{"ask", "--model-dir", modelDir, "--index", "pk", "--as-of", "2024-12-31", "--mode", "hybrid",
			"--judge", "heuristic", "--summarizer", "extractive", "--json", "central bank key rate"}, conn...)...)
		var ans schemas.Answer
		decodeJSONOutput(t, wait(p, "ask", 2*time.Minute), &ans)
		return ans
	}
	cites := func(ans schemas.Answer) bool {
		return slices.ContainsFunc(ans.Results, func(r schemas.AnswerResult) bool { return r.DocID == "a" && r.Title != "(removed)" })
	}
	if !cites(ask()) {
		t.Fatal("before the takedown the answer does not cite a: the check after could not fail")
	}

	b, err := blob.Open(context.Background(), store, blob.S3Options{AccessKeyID: envValue(env, "ASOF_S3_ACCESS_KEY_ID"), SecretAccessKey: envValue(env, "ASOF_S3_SECRET_ACCESS_KEY")})
	if err != nil {
		t.Fatal(err)
	}
	vecs := purgetest.DocVectors(t, b, "pk", "a")
	metas := filepath.Join(dir, "s3", "asof", "indexes", "pk", "shards", "*", "*", "meta.json")
	before, _ := filepath.Glob(metas)
	del := startProc(t, env, append([]string{"docs", "delete", "--index", "pk", "--doc-id", "a", "--reason", "court order 12/2026", "--purge", "--json"}, conn...)...)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if now, _ := filepath.Glob(metas); len(now) > len(before) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no purged shard written within 2 minutes\nworker:\n%s\ndocs delete:\n%s", first.output(), del.output())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	now, _ := filepath.Glob(metas)
	written := len(now) - len(before)
	t.Logf("killed the worker with %d of %d purged shards written", written, months)

	second := startProc(t, env, workerArgs...)
	var res workflows.TakeDownResult
	decodeJSONOutput(t, wait(del, "docs delete --purge", 4*time.Minute), &res)
	p := res.Purge
	if p == nil || !slices.Equal(p.Docs, []string{"a"}) || p.Rows != months || p.Written+p.Reused != months || p.Dropped != 0 {
		t.Fatalf("purge %+v: want a's %d rows out of %d shards written again", p, months, months)
	}
	if written < months && p.Reused < 1 {
		t.Fatalf("purge %+v: the kill left %d shards written, and the rerun wrote them again", p, written)
	}
	if c := res.Counts; c.Indexed != months || c.Deleted != months || !c.Reconciles() {
		t.Fatalf("counts %+v: want %d indexed and %d deleted, reconciling", c, months, months)
	}
	if left := purgetest.Leftovers(t, b, marker, vecs); len(left) > 0 {
		t.Fatalf("after the purge these objects still hold a's text or vectors:\n%v", left)
	}
	if cites(ask()) {
		t.Fatal("after the purge the answer cites a")
	}
	second.interrupt(t)
	server.interrupt(t)
}

// envValue is the value of name in env (NAME=value entries), "" when absent.
func envValue(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return ""
}
