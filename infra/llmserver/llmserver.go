// Package llmserver runs a local language model for `--llm local`: llama.cpp's
// OpenAI-compatible server (xllamacpp, from PyPI, in the venv `make setup-llm` makes) as a
// child process on 127.0.0.1, started and health-checked before the worker polls, restarted
// when it dies or hangs (stops answering /health), and stopped with the process.
//
// The runtime folder (Options.Dir; `make setup-llm` fills <repo>/.asof/llm, the build bakes
// that path into DefaultDir) holds venv/ (Python with xllamacpp) and serve.py (scripts/llm).
package llmserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/asofrag/asof/internal/loopback"
)

// DefaultDir is the runtime folder when none is configured: set at build time
// (-ldflags "-X github.com/asofrag/asof/infra/llmserver.DefaultDir=…") by the Makefile.
var DefaultDir = ""

// Options say what to run and how.
type Options struct {
	// Dir is the runtime folder (venv/bin/python, serve.py); "" is DefaultDir.
	Dir string
	// Model is the GGUF file; Alias the model name it is served under.
	Model, Alias string
	// Threads, Ctx and Parallel are serve.py's --threads, --ctx and --parallel (0: its defaults).
	Threads, Ctx, Parallel int
	// StartTimeout bounds loading the model and the first health answer (0: 3 min).
	StartTimeout time.Duration
	// HungAfter is how long a running server may leave /health unanswered before it is
	// killed and restarted (0: DefaultHungAfter).
	HungAfter time.Duration
	// Log receives the server's output and the supervisor's lines (nil: discarded).
	Log io.Writer
}

// Server is a running, supervised local LLM server.
type Server struct {
	// BaseURL is the OpenAI API root (http://127.0.0.1:PORT/v1).
	BaseURL string
	o       Options
	python  string
	script  string
	port    int

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan error // the current child's exit
	stopping bool
	restarts int
	done     chan struct{} // closed when the supervisor has ended
}

// ErrNotSetUp is returned (wrapped) by Start when the runtime folder lacks the venv or serve.py.
var ErrNotSetUp = errors.New("the local LLM runtime is not set up")

// Start starts the server and returns once it answers /health, or the reason it did not.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 3 * time.Minute
	}
	if o.HungAfter == 0 {
		o.HungAfter = DefaultHungAfter
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	s := &Server{o: o, python: filepath.Join(o.Dir, "venv", "bin", "python"), script: filepath.Join(o.Dir, "serve.py"), done: make(chan struct{})}
	for _, f := range []string{s.python, s.script} {
		if o.Dir == "" {
			return nil, fmt.Errorf("%w: no runtime folder (run make setup-llm, or set llm.runtime_dir / ASOF_LLM_RUNTIME_DIR)", ErrNotSetUp)
		}
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("%w: %s is missing (run make setup-llm, or set llm.runtime_dir / ASOF_LLM_RUNTIME_DIR)", ErrNotSetUp, f)
		}
	}
	if _, err := os.Stat(o.Model); err != nil {
		return nil, fmt.Errorf("local LLM model: %w", err)
	}
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	s.port = port
	s.BaseURL = "http://" + loopback.Addr(port) + "/v1"
	if err := s.spawn(ctx); err != nil {
		return nil, err
	}
	go s.supervise()
	return s, nil
}

// args are serve.py's arguments.
func (s *Server) args() []string {
	a := []string{s.script, "--model", s.o.Model, "--port", strconv.Itoa(s.port), "--alias", s.o.Alias}
	for _, f := range []struct {
		flag string
		v    int
	}{{"--threads", s.o.Threads}, {"--ctx", s.o.Ctx}, {"--parallel", s.o.Parallel}} {
		if f.v > 0 {
			a = append(a, f.flag, strconv.Itoa(f.v))
		}
	}
	return a
}

// spawn starts a child and waits for its health answer.
func (s *Server) spawn(ctx context.Context) error {
	cmd := exec.Command(s.python, s.args()...)
	cmd.Stdout, cmd.Stderr = s.o.Log, s.o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // never outlives this process
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the local LLM server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := loopback.WaitHTTP(ctx, "http://"+loopback.Addr(s.port)+"/health", s.o.StartTimeout, exited); err != nil {
		_ = cmd.Process.Kill()
		return fmt.Errorf("the local LLM server (%s) did not come up: %w", filepath.Base(s.o.Model), err)
	}
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	fmt.Fprintf(s.o.Log, "llm: %s serves %s at %s (pid %d, up in %s)\n", filepath.Base(s.python), s.o.Alias, s.BaseURL, cmd.Process.Pid, time.Since(began).Round(time.Millisecond))
	return nil
}

// maxRestarts bounds the restarts within restartWindow: a server that keeps dying is left down
// (the judge's failure policy and the summary's fallback then apply) rather than restarted in a loop.
const (
	maxRestarts   = 5
	restartWindow = 10 * time.Minute
)

// DefaultHungAfter is Options.HungAfter's default. The server answers /health within
// milliseconds even while it reads a long prompt on every core (measured on 2 cores), so 15 s
// without an answer is a server that will not answer again.
const DefaultHungAfter = 15 * time.Second

// healthEvery is how often a running server's /health is asked.
const healthEvery = time.Second

// supervise restarts the child when it exits, or hangs, while the server is not stopping.
func (s *Server) supervise() {
	defer close(s.done)
	var recent []time.Time
	for {
		s.mu.Lock()
		exited, cmd := s.exited, s.cmd
		s.mu.Unlock()
		err := s.watch(cmd, exited)
		s.mu.Lock()
		stopping := s.stopping
		s.mu.Unlock()
		if stopping {
			return
		}
		now := time.Now()
		recent = append(recent, now)
		for len(recent) > 0 && now.Sub(recent[0]) > restartWindow {
			recent = recent[1:]
		}
		if len(recent) > maxRestarts {
			fmt.Fprintf(s.o.Log, "llm: the local LLM server exited (%v) %d times in %s; left down\n", err, len(recent), restartWindow)
			return
		}
		fmt.Fprintf(s.o.Log, "llm: the local LLM server exited (%v); restarting it\n", err)
		if err := s.spawn(context.Background()); err != nil {
			fmt.Fprintf(s.o.Log, "llm: %v; left down\n", err)
			return
		}
		s.mu.Lock()
		s.restarts++
		if s.stopping { // Close came while this child started: it signalled the one before
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
		}
		s.mu.Unlock()
	}
}

// watch waits for the child cmd to exit (exited) and returns how it exited. A child that
// stops answering /health for HungAfter while the server is not stopping is killed first: a
// server that hangs never exits by itself. llama.cpp's server does hang so when a SIGTERM (a
// `pkill`, say) finds a request in flight: it closes its port, then waits forever for the
// request it will never answer, and the request's client waits with it.
func (s *Server) watch(cmd *exec.Cmd, exited <-chan error) error {
	tick := time.NewTicker(healthEvery)
	defer tick.Stop()
	answered := time.Now()
	for {
		select {
		case err := <-exited:
			return err
		case <-tick.C:
		}
		s.mu.Lock()
		stopping := s.stopping
		s.mu.Unlock()
		switch {
		case stopping: // Close stops it
			answered = time.Now()
		case s.Healthy(context.Background()):
			answered = time.Now()
		case time.Since(answered) >= s.o.HungAfter:
			fmt.Fprintf(s.o.Log, "llm: the local LLM server (pid %d) has not answered /health for %s; killing it\n", cmd.Process.Pid, s.o.HungAfter)
			_ = cmd.Process.Kill()
			answered = time.Now() // its exit comes next
		}
	}
}

// Restarts counts the restarts so far.
func (s *Server) Restarts() int { s.mu.Lock(); defer s.mu.Unlock(); return s.restarts }

// PID is the current child's process id.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Pid
}

// Healthy reports whether the server answers /health now.
func (s *Server) Healthy(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+loopback.Addr(s.port)+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Close stops the server (SIGTERM, then SIGKILL after 10 s) and its supervision.
func (s *Server) Close() error {
	s.mu.Lock()
	s.stopping = true
	cmd := s.cmd
	s.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done: // the supervisor saw it exit
	case <-time.After(10 * time.Second):
		s.mu.Lock()
		_ = s.cmd.Process.Kill()
		s.mu.Unlock()
		<-s.done
	}
	return nil
}
