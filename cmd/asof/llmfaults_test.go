package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// faultLLM is the catalogue's smallest language model, the fastest real judge on a CPU.
const faultLLM = "qwen2.5-coder-0.5b-instruct"

// TestAskLocalLLMFaultsWithModel: the faults of issue 37 on the real local LLM, not a fake
// server. `asof ask --llm local:qwen2.5-coder-0.5b-instruct --judge llm` runs llama.cpp's
// server (infra/llmserver) as its child; the test skips, saying what to run, without the
// runtime (make setup-llm) or the model (asof models pull qwen2.5-coder-0.5b-instruct).
//
//  1. The server is SIGKILLed once it has answered a judge request and is reading the next:
//     the supervisor restarts it under a new pid, the batches that were in flight are retried
//     on the new server, the ask completes, and every candidate of the stored pool is judged.
//  2. The real model's replies are cut at 6 tokens (llm.max_tokens), so they are not JSON: the
//     repair turn gets the same, the batch fails after its tries, and the keep policy keeps
//     the whole pool unjudged; the report's reason says why.
//  3. A request timeout (300 ms) shorter than the model needs: every batch times out on each
//     try and the fail policy fails the answer with a short error naming the timeout.
//
// Each step is bounded (the ask runs in minutes on 2 cores); none may hang.
func TestAskLocalLLMFaultsWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers and llama.cpp's")
	}
	runtime := localLLMRuntime(t)
	modelDir := withLocalLLM(t, testmodel.ModelsDir(t), faultLLM)
	dir := t.TempDir()
	file := writeParquetFile(t, dir, "news.parquet", askCorpus)
	data := filepath.Join(dir, "data")
	common := []string{"--data-dir", data, "--model-dir", modelDir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}
	began := time.Now()
	if code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("indexed in %s", time.Since(began).Round(time.Millisecond))
	t.Setenv("ASOF_LLM_RUNTIME_DIR", runtime)
	logPath := filepath.Join(data, "llm-server.log")
	// As of 2023-02-28 the pool is the 3 documents published by then within the year (the
	// pool is what a context would hold, which --judge-pool cannot shrink below 30): a judge
	// prompt of 1 to 3 short documents, which the model reads in seconds.
	ask := func(batch int, failure string, attempts int) []string {
		return append([]string{"ask", "--index", "news", "--json", "--as-of", "2023-02-28", "--llm", "local:" + faultLLM,
			"--judge", "llm", "--judge-batch", strconv.Itoa(batch), "--judge-failure", failure,
			"--judge-attempts", strconv.Itoa(attempts), "--summarizer", "extractive", "Brexit deal"}, common...)
	}

	t.Run("server killed mid fan-out", func(t *testing.T) {
		from := fileSize(logPath)
		began := time.Now()
		done := make(chan cliResult, 1)
		go func() { done <- runAsync(ask(2, "keep", 4)) }() // batches of 2 and 1; 4 tries span 14 s of backoff
		// Kill once the server has answered a judge request and is reading the next.
		var killed int
		deadline := time.Now().Add(3 * time.Minute)
		for killed == 0 {
			seg := logSince(t, logPath, from)
			pids := servedPIDs(seg)
			if len(pids) > 0 {
				served, started := len(releaseLine.FindAllString(seg, -1)), len(launchLine.FindAllString(seg, -1))
				if served >= 1 && started > served {
					killed = pids[0]
					if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
						t.Fatalf("kill the llama.cpp server (pid %d): %v", killed, err)
					}
					t.Logf("SIGKILLed the llama.cpp server (pid %d) %s into the ask: %d judge request(s) answered, one in flight",
						killed, time.Since(began).Round(time.Millisecond), served)
				}
			}
			select {
			case r := <-done:
				t.Fatalf("the ask ended (exit %d) before a judge request was in flight to kill\n%s\n%s\nllm-server.log:\n%s", r.code, r.out, r.err, tail(seg, 3000))
			case <-time.After(50 * time.Millisecond):
			}
			if killed == 0 && time.Now().After(deadline) {
				t.Fatalf("no judge request in flight within 3 minutes\nllm-server.log:\n%s", tail(seg, 3000))
			}
		}
		r := waitCLI(t, done, 4*time.Minute, logPath, from)
		t.Logf("the ask ended %s after it started", time.Since(began).Round(time.Millisecond))
		seg := logSince(t, logPath, from)
		logServer(t, seg)
		if r.code != 0 {
			t.Fatalf("ask: exit %d\n%s\nllm-server.log:\n%s", r.code, r.err, tail(seg, 3000))
		}
		// Restarted under a new pid, which answered the retried requests and stopped cleanly.
		pids := servedPIDs(seg)
		if len(pids) != 2 || pids[1] == killed || !strings.Contains(seg, "llm: the local LLM server exited (signal: killed); restarting it") {
			t.Fatalf("want one restart under a new pid after pid %d was killed; pids served %v\nllm-server.log:\n%s", killed, pids, tail(seg, 3000))
		}
		after := seg[strings.Index(seg, "restarting it"):]
		if len(releaseLine.FindAllString(after, -1)) == 0 || !strings.Contains(after, "stopping on SIGTERM") {
			t.Fatalf("the restarted server (pid %d) answered no judge request, or was not stopped\n%s", pids[1], tail(after, 3000))
		}
		ans := decodeAnswer(t, r.out)
		pool := storedPool(t, data, ans.RunID)
		j := ans.Judge
		t.Logf("pool %d, judge %+v", len(pool), *j)
		// The killed batches were retried: all of them judged, none failed, no candidate lost.
		if j.Method != "llm:"+faultLLM || j.Batches != (len(pool)+1)/2 || j.FailedBatches != 0 || j.Failed != 0 || j.Reason != "" ||
			j.Judged != len(pool) || j.Kept+j.Dropped != len(pool) || len(pool) < 3 {
			t.Fatalf("judge report %+v for a pool of %d: want every candidate judged by %s after the retries", *j, len(pool), faultLLM)
		}
		inPool := map[string]bool{}
		for _, c := range pool {
			inPool[c.DocID] = true
		}
		for _, res := range ans.Results {
			if inPool[res.DocID] && res.Relevance == nil {
				t.Errorf("candidate %s (%s) has no verdict", res.DocID, res.Title)
			}
		}
		if alive := syscall.Kill(pids[1], 0); !errors.Is(alive, syscall.ESRCH) {
			t.Errorf("the restarted server (pid %d) outlived the ask: %v", pids[1], alive)
		}
	})

	t.Run("reply not JSON", func(t *testing.T) {
		t.Setenv("ASOF_LLM_MAX_TOKENS", "6") // {"verdicts":[{"id — cut, so never JSON
		from := fileSize(logPath)
		began := time.Now()
		done := make(chan cliResult, 1)
		go func() { done <- runAsync(ask(3, "keep", 2)) }() // one batch
		r := waitCLI(t, done, 3*time.Minute, logPath, from)
		t.Logf("the ask ended in %s", time.Since(began).Round(time.Millisecond))
		seg := logSince(t, logPath, from)
		logServer(t, seg)
		if r.code != 0 {
			t.Fatalf("ask: exit %d\n%s\nllm-server.log:\n%s", r.code, r.err, tail(seg, 3000))
		}
		ans := decodeAnswer(t, r.out)
		pool := storedPool(t, data, ans.RunID)
		j := ans.Judge
		t.Logf("pool %d, judge %+v", len(pool), *j)
		// 2 tries × (a reply + its repair turn), each answered by the real server.
		if n := len(releaseLine.FindAllString(seg, -1)); n != 4 {
			t.Errorf("the server answered %d requests, want 4: two tries, each with its repair turn", n)
		}
		if j.Method != "llm (every batch failed)" || j.Policy != "keep" || j.Batches != 1 || j.FailedBatches != 1 ||
			j.Failed != len(pool) || j.Judged != 0 || j.Kept != len(pool) || j.Dropped != 0 || len(pool) != 3 {
			t.Fatalf("judge report %+v for a pool of %d: want the batch failed and every candidate kept unjudged", *j, len(pool))
		}
		for _, want := range []string{"candidates 1..3: ", "reply unusable after one repair", "reply is not a JSON object"} {
			if !strings.Contains(j.Reason, want) {
				t.Errorf("the report's reason %q lacks %q", j.Reason, want)
			}
		}
		if len(ans.Blocks) == 0 {
			t.Fatal("the keep policy left no context")
		}
	})

	t.Run("request timeout", func(t *testing.T) {
		t.Setenv("ASOF_LLM_TIMEOUT", "300ms") // the model reads a batch's ~500-token prompt in seconds
		from := fileSize(logPath)
		began := time.Now()
		done := make(chan cliResult, 1)
		go func() { done <- runAsync(ask(3, "fail", 2)) }()
		r := waitCLI(t, done, 3*time.Minute, logPath, from)
		t.Logf("the ask ended in %s", time.Since(began).Round(time.Millisecond))
		logServer(t, logSince(t, logPath, from))
		if r.code == 0 {
			t.Fatalf("ask succeeded with a 300 ms timeout and the fail policy:\n%s", r.out)
		}
		msg := strings.TrimSpace(r.err)
		t.Logf("exit %d:\n%s", r.code, msg)
		if !strings.Contains(msg, "judge candidates 1..3") || !strings.Contains(msg, "no answer within 300ms") || strings.Count(msg, "\n") > 1 {
			t.Fatalf("want a two-line error naming the failed batch and the timeout, got:\n%s", msg)
		}
	})
}

// llama.cpp's server logs a line when a slot takes a request and when it is done with it;
// the supervisor logs each child it started with its pid.
var (
	launchLine  = regexp.MustCompile(`launch_slot_: .*processing task`)
	releaseLine = regexp.MustCompile(`release: .*stop processing`)
	servesLine  = regexp.MustCompile(`serves \S+ at http://\S+ \(pid (\d+),`)
)

// logServer logs what the server did: the supervisor's lines and each request's timings.
func logServer(t *testing.T, log string) {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "llm: ") || strings.HasPrefix(line, "stopping on") ||
			strings.Contains(line, "prompt eval time") || strings.Contains(line, "total time") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// servedPIDs are the pids of the children the supervisor started, in order.
func servedPIDs(log string) []int {
	var pids []int
	for _, m := range servesLine.FindAllStringSubmatch(log, -1) {
		p, _ := strconv.Atoi(m[1])
		pids = append(pids, p)
	}
	return pids
}

// localLLMRuntime is the runtime make setup-llm makes (or ASOF_TEST_LLM_DIR); it skips t
// without it.
func localLLMRuntime(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", ".asof", "llm"))
	if d := os.Getenv("ASOF_TEST_LLM_DIR"); d != "" {
		dir = d
	}
	for _, f := range []string{filepath.Join(dir, "venv", "bin", "python"), filepath.Join(dir, "serve.py")} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no local LLM runtime: %s is missing (make setup-llm, or set ASOF_TEST_LLM_DIR)", f)
		}
	}
	return dir
}

// withLocalLLM returns a models folder holding what embedDir holds and the catalogue language
// model id, found in embedDir or the shared cache; it skips t when the model is not pulled.
func withLocalLLM(t *testing.T, embedDir, id string) string {
	t.Helper()
	from := ""
	for _, d := range []string{embedDir, config.SharedModelsDir()} {
		if d != "" && models.CheckLLM(d, id) == nil {
			from = d
			break
		}
	}
	if from == "" {
		t.Skipf("no local LLM model: %s is not pulled in %s or %s (asof models pull %s)", id, embedDir, config.SharedModelsDir(), id)
	}
	dir := t.TempDir()
	entries, err := os.ReadDir(embedDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(embedDir, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if from != embedDir {
		if err := os.Symlink(filepath.Join(from, id), filepath.Join(dir, id)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cliResult is what a command run by runAsync returned.
type cliResult struct {
	code     int
	out, err string
}

// runAsync runs the CLI in this process, like runCLI, for a goroutine (the environment is the
// test's, set before).
func runAsync(args []string) cliResult {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

// waitCLI waits at most limit for done, failing t with the server's log when the command hangs.
func waitCLI(t *testing.T, done <-chan cliResult, limit time.Duration, logPath string, from int64) cliResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		t.Fatalf("the ask did not end within %s\nllm-server.log:\n%s", limit, tail(logSince(t, logPath, from), 3000))
		return cliResult{}
	}
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logSince is the file at path from byte from on ("" while there is none).
func logSince(t *testing.T, path string, from int64) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b[min(from, int64(len(b))):])
}

// decodeAnswer reads ask --json's answer, which must have a judge report.
func decodeAnswer(t *testing.T, out string) schemas.Answer {
	t.Helper()
	var ans schemas.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if ans.Judge == nil {
		t.Fatalf("the answer has no judge report:\n%s", out)
	}
	return ans
}

// storedPool is the judge pool the run stored (runs/<run-id>/candidates.parquet), read from
// the embedded gateway's folder.
func storedPool(t *testing.T, data, runID string) []schemas.CandidateRow {
	t.Helper()
	b, err := blob.NewLocal(filepath.Join(data, "s3", config.DefaultBucket))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := storeio.GetParquet[schemas.CandidateRow](context.Background(), b, layout.CandidatesKey(runID))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
