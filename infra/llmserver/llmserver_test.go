package llmserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the child's output and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// runtimeDir is the runtime `make setup-llm` makes in the repository (or ASOF_TEST_LLM_DIR).
func runtimeDir(t *testing.T) (dir, model string) {
	t.Helper()
	dir = os.Getenv("ASOF_TEST_LLM_DIR")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "..", ".asof", "llm"))
	}
	model = filepath.Join(dir, "SmolLM2-135M-Instruct.Q4_1.gguf")
	for _, f := range []string{filepath.Join(dir, "venv", "bin", "python"), filepath.Join(dir, "serve.py"), model} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no local LLM runtime: %s is missing (make setup-llm, or set ASOF_TEST_LLM_DIR)", f)
		}
	}
	return dir, model
}

// TestServerRestartsWhenKilled starts the real llama.cpp server on the small model, kills it
// (SIGKILL, as a crash would), and finds it answering again under a new pid; Close stops it.
func TestServerRestartsWhenKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts llama.cpp's server")
	}
	dir, model := runtimeDir(t)
	var log syncBuffer
	ctx := context.Background()
	s, err := Start(ctx, Options{Dir: dir, Model: model, Alias: "smollm2", Threads: 1, Ctx: 1024, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	first := s.PID()
	if !s.Healthy(ctx) {
		t.Fatalf("not healthy after Start\n%s", log.String())
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for s.Restarts() < 1 || !s.Healthy(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("not restarted within 2 minutes\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	second := s.PID()
	if second == first {
		t.Fatalf("the same pid %d after the restart", first)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(second, 0); err == nil || !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) outlived Close: %v", second, err)
	}
	if s.Healthy(ctx) {
		t.Error("still answering after Close")
	}
}

// TestServerRestartsWhenHung: a SIGTERM (a `pkill`, say) that finds a request in flight leaves
// llama.cpp's server hung: its port closed, the request never answered, the process never
// gone. The supervisor finds /health unanswered, kills it after HungAfter and starts another;
// the request in flight ends at once (with an error its caller retries) instead of waiting for
// its client's timeout.
func TestServerRestartsWhenHung(t *testing.T) {
	if testing.Short() {
		t.Skip("starts llama.cpp's server")
	}
	dir, model := runtimeDir(t)
	var log syncBuffer
	ctx := context.Background()
	s, err := Start(ctx, Options{Dir: dir, Model: model, Alias: "smollm2", Threads: 1, Ctx: 4096, HungAfter: 3 * time.Second, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	defer s.Close()
	first := s.PID()
	reply := make(chan error, 1)
	go func() { reply <- longChat(s.BaseURL) }()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), "processing task") {
		if time.Now().After(deadline) {
			t.Fatalf("no request in flight within a minute\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(first, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-reply:
		if err == nil {
			t.Fatalf("the request in flight was answered: SIGTERM came too late to test a hang\n%s", log.String())
		}
		t.Logf("the request in flight ended: %v", err)
	case <-time.After(time.Minute):
		t.Fatalf("the request in flight still waits a minute after the SIGTERM\n%s", log.String())
	}
	deadline = time.Now().Add(2 * time.Minute)
	for s.Restarts() < 1 || !s.Healthy(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("not restarted within 2 minutes\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s.PID() == first {
		t.Fatalf("the same pid %d after the restart", first)
	}
	if want := "has not answered /health for 3s; killing it"; !strings.Contains(log.String(), want) {
		t.Errorf("the log lacks %q\n%s", want, log.String())
	}
}

// longChat asks the server for a long completion (about a minute of SmolLM2's generation on
// one core) and returns its error, nil when it is answered.
func longChat(base string) error {
	body := `{"model":"smollm2","max_tokens":3000,"temperature":0,"messages":[{"role":"user","content":"Count from 1 to 2000, one number a line."}]}`
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// TestStartNamesWhatIsMissing: without the runtime, Start says what to run.
func TestStartNamesWhatIsMissing(t *testing.T) {
	_, err := Start(context.Background(), Options{Dir: t.TempDir(), Model: "/nope.gguf", Alias: "x"})
	if !errors.Is(err, ErrNotSetUp) {
		t.Fatalf("err = %v, want ErrNotSetUp", err)
	}
}
