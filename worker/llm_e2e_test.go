package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/loopback"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

// llmGGUF is the model `make setup-llm` puts in .asof/llm (scripts/llm/setup.sh).
const llmGGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

// llmDir and serveScript are resolved when the package loads, before TestMain starts the S3
// gateway, which changes the working directory.
var llmDir, serveScript = func() (string, string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	dir := filepath.Join(wd, "..", ".asof", "llm")
	if d := os.Getenv("ASOF_TEST_LLM_DIR"); d != "" {
		if dir, err = filepath.Abs(d); err != nil {
			dir = d
		}
	}
	return dir, filepath.Join(wd, "..", "scripts", "llm", "serve.py")
}()

// TestAskWithLocalLLM runs the Ask workflow, judge and summary included, against a real small
// instruct model (SmolLM2-135M-Instruct) served by llama.cpp's OpenAI-compatible server, both
// from PyPI through `make setup-llm`; it skips when they are not there. A 135M model often
// cannot follow the JSON formats, so the test asserts what must hold whatever it replies: the
// workflow ends in bounded time, every candidate is accounted for, and the summary is either
// the LLM's, checked (every claim cites an existing block and is dated no later than the
// anchor), or the extractive one with a note saying why. It logs what the model did.
func TestAskWithLocalLLM(t *testing.T) {
	integration(t)
	python := filepath.Join(llmDir, "venv", "bin", "python")
	model := filepath.Join(llmDir, llmGGUF)
	for _, f := range []string{model, python} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no local LLM: %s is missing (make setup-llm, or set ASOF_TEST_LLM_DIR)", f)
		}
	}
	start := time.Now()
	base := startLocalLLM(t, python, model)
	t.Logf("llama.cpp server ready in %s", time.Since(start).Round(time.Millisecond))
	tap := &llmTap{upstream: base}
	proxy := httptest.NewServer(tap)
	t.Cleanup(proxy.Close)

	b := s3Bucket(t, "llm-e2e")
	publishToyIndex(t, b, "toy", 8)
	c, err := llm.New(llm.Config{BaseURL: proxy.URL + "/v1", Model: "smollm2", Timeout: 60 * time.Second, MaxTokens: 512, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := config.Default().Worker
	cfg.ShutdownTimeout = 2 * time.Second
	go func() { done <- worker.Run(ctx, tc, cfg, worker.Deps{Bucket: b, LLM: c, Identity: "llm-e2e"}) }()
	defer func() { cancel(); <-done }()

	asOf := time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)
	const id = "ask-local-llm"
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Minute)
	defer rcancel()
	start = time.Now()
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.Ask, workflows.AskInput{
		Index: "toy", Query: "key rate decision", Mode: "bm25", AsOf: asOf,
		Judge: &workflows.JudgeOptions{Mode: "llm", Pool: 8, Batch: 4, Failure: "keep", MaxAttempts: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ans schemas.Answer
	err = run.Get(rctx, &ans)
	took := time.Since(start)
	tap.log(t)
	if err != nil {
		t.Fatalf("Ask did not complete (after %s): %v", took.Round(time.Millisecond), err)
	}
	t.Logf("Ask completed in %s", took.Round(time.Millisecond))

	j := ans.Judge
	if j == nil {
		t.Fatal("the answer has no judge report")
	}
	t.Logf("judge: %+v", *j)
	for _, r := range ans.Results {
		grade := "unjudged"
		if r.Relevance != nil {
			grade = strconv.Itoa(*r.Relevance)
		}
		t.Logf("  verdict %s (%s): %s", r.DocID, r.Title, grade)
	}
	if j.Policy != "keep" || j.Batches != 2 || !(j.Method == "llm:smollm2" || j.FailedBatches > 0) {
		t.Fatalf("judge report %+v: want policy keep, 2 batches, and method llm:smollm2 unless batches failed", *j)
	}
	if j.Judged+j.Failed != 8 || j.Kept+j.Dropped != 8 {
		t.Fatalf("judge report %+v: want judged+failed = kept+dropped = 8 candidates", *j)
	}

	t.Logf("summary (%s, %d context blocks):\n%s", ans.SummaryMethod, len(ans.Blocks), ans.Summary)
	if ans.Brief != nil && ans.Brief.Note != "" {
		t.Logf("note: %s", ans.Brief.Note)
	}
	if strings.TrimSpace(ans.Summary) == "" {
		t.Fatal("empty summary")
	}
	switch {
	case len(ans.Blocks) == 0:
		// The model graded every candidate 0: nothing to summarize, no LLM summary asked for.
		if ans.SummaryMethod != "none" || j.Kept != 0 {
			t.Fatalf("no context blocks but summary method %q and %d kept", ans.SummaryMethod, j.Kept)
		}
	case ans.SummaryMethod == "llm:smollm2":
		if ans.Brief == nil || ans.Brief.Method != "llm:smollm2" {
			t.Fatalf("LLM summary without its brief: %+v", ans.Brief)
		}
		anchorEnd := asOf.AddDate(0, 0, 1)
		for _, cl := range slices.Concat(ans.Brief.New, ans.Brief.Earlier, ans.Brief.Timeline) {
			if !cl.Date.Before(anchorEnd) {
				t.Errorf("claim %q is dated %s, after the anchor %s", cl.Text, cl.Date.Format(time.DateOnly), asOf.Format(time.DateOnly))
			}
			if len(cl.Cites) == 0 {
				t.Errorf("claim %q cites nothing", cl.Text)
			}
			for _, n := range cl.Cites {
				if n < 1 || n > len(ans.Blocks) {
					t.Errorf("claim %q cites [%d]; the context has blocks 1..%d", cl.Text, n, len(ans.Blocks))
				}
			}
		}
	case ans.SummaryMethod == "extractive":
		if ans.Brief == nil || !strings.Contains(ans.Brief.Note, "LLM summary failed") {
			t.Fatalf("extractive summary without a note on the LLM's failure: %+v", ans.Brief)
		}
	default:
		t.Fatalf("summary method %q", ans.SummaryMethod)
	}

	data, err := blob.ReadAll(ctx, b, "runs/"+id+"/answer.json")
	if err != nil {
		t.Fatal(err)
	}
	var saved schemas.Answer
	if err := json.Unmarshal(data, &saved); err != nil || saved.SummaryMethod != ans.SummaryMethod || saved.Judge == nil || *saved.Judge != *j {
		t.Fatalf("stored answer: method %q judge %+v, err %v", saved.SummaryMethod, saved.Judge, err)
	}
}

// startLocalLLM runs scripts/llm/serve.py on a free loopback port until the test ends and
// returns its base URL (without /v1) once /health answers.
func startLocalLLM(t *testing.T, python, model string) string {
	t.Helper()
	port, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, python, serveScript, "--model", model, "--port", strconv.Itoa(port),
		"--parallel", "2", "--ctx", "8192") // one slot per judge batch, 4096 tokens each
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second // then SIGKILL
	ready := make(chan struct{})
	stdout, stderr := &syncBuffer{ready: ready}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	stopped, waited := make(chan error, 1), make(chan struct{})
	go func() {
		stopped <- cmd.Wait()
		close(waited)
	}()
	t.Cleanup(func() {
		cancel() // SIGTERM; SIGKILL after WaitDelay
		<-waited
	})
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("llama.cpp server: %s\nstdout: %s\nstderr (tail): %s", fmt.Sprintf(format, args...), stdout.String(), tail(stderr.String(), 2000))
	}
	const wait = 60 * time.Second
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ready:
	case err := <-stopped:
		fail("serve.py exited before READY: %v", err)
	case <-timer.C:
		fail("no READY line within %s", wait)
	}
	base := "http://" + loopback.Addr(port)
	if err := loopback.WaitHTTP(ctx, base+"/health", wait, stopped); err != nil {
		fail("%v", err)
	}
	return base
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec and the test's reads. If
// ready is not nil, it is closed once a line starts with "READY ".
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	ready chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.ready != nil && (bytes.HasPrefix(s.b.Bytes(), []byte("READY ")) || bytes.Contains(s.b.Bytes(), []byte("\nREADY "))) {
		close(s.ready)
		s.ready = nil
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// llmTap forwards chat requests to the model server and records each exchange, so the test
// can report what the model did: which calls were judge or summary calls, which were repair
// turns, the replies and the time each took.
type llmTap struct {
	upstream string
	mu       sync.Mutex
	calls    []llmCall
}

type llmCall struct {
	kind       string // judge or summary
	repair     bool   // the conversation already holds an assistant reply
	problems   string // the repair turn's message: what was wrong with the reply before
	status     int
	err        error
	took       time.Duration
	prompt     int
	completion int
	finish     string
	server     string // llama.cpp's timings
	reply      string
}

func (p *llmTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	call := llmCall{kind: "summary"}
	if len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "verdicts") {
		call.kind = "judge"
	}
	for _, m := range req.Messages {
		call.repair = call.repair || m.Role == "assistant"
	}
	if call.repair {
		call.problems = req.Messages[len(req.Messages)-1].Content // what the last reply got wrong
	}
	start := time.Now()
	defer func() {
		call.took = time.Since(start)
		p.mu.Lock()
		p.calls = append(p.calls, call)
		p.mu.Unlock()
	}()
	up, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		call.err = err
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	up.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(up)
	if err != nil {
		call.err = err
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	call.status, call.err = resp.StatusCode, err
	var res struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		// llama.cpp's own account: prompt tokens taken from its cache and evaluated, and the
		// time spent evaluating the prompt and generating.
		Timings struct {
			CacheN      int     `json:"cache_n"`
			PromptN     int     `json:"prompt_n"`
			PromptMS    float64 `json:"prompt_ms"`
			PredictedN  int     `json:"predicted_n"`
			PredictedMS float64 `json:"predicted_ms"`
		} `json:"timings"`
	}
	if json.Unmarshal(out, &res) == nil && len(res.Choices) > 0 {
		call.reply, call.finish = res.Choices[0].Message.Content, res.Choices[0].FinishReason
		call.prompt, call.completion = res.Usage.PromptTokens, res.Usage.CompletionTokens
		if tm := res.Timings; tm.PredictedN > 0 {
			call.server = fmt.Sprintf("server: %d prompt tokens cached, %d evaluated in %.1f s; %d generated at %.0f ms/token",
				tm.CacheN, tm.PromptN, tm.PromptMS/1000, tm.PredictedN, tm.PredictedMS/float64(tm.PredictedN))
		}
	} else {
		call.reply = string(out)
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// log reports every recorded exchange.
func (p *llmTap) log(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	count := map[string]int{}
	for i, c := range p.calls {
		kind := c.kind
		if c.repair {
			kind += " (repair turn)"
		}
		count[kind]++
		if c.repair {
			t.Logf("LLM call %d is a repair turn; the client told the model:\n%s", i+1, head(c.problems, 600))
		}
		errText := ""
		if c.err != nil {
			errText = " error: " + c.err.Error()
		}
		t.Logf("LLM call %d (in order of completion): %s, status %d, %s, %d prompt + %d completion tokens, finish %q%s\n%s\n%s",
			i+1, kind, c.status, c.took.Round(time.Millisecond), c.prompt, c.completion, c.finish, errText, c.server, head(c.reply, 600))
	}
	t.Logf("LLM calls: %d in all, %v", len(p.calls), count)
}
