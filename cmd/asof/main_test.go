package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/internal/loopback"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/vecindex"
	"github.com/asofrag/asof/workflows"
)

// The test binary doubles as the asof binary: with ASOF_TEST_MAIN=1 it runs main, so the
// multi-process tests exercise exactly the code under test without a separate build.
func TestMain(m *testing.M) {
	// No test downloads a model: a new English index whose English model is not pulled takes
	// the default, as it does offline (TestIndexChoosesTheModelByTheCorpusWithModel pulls
	// through its own stand-in).
	pullModel = func(_ context.Context, id, _ string, _ io.Writer) (models.Model, error) {
		return models.Model{}, fmt.Errorf("tests do not download models (%s)", id)
	}
	if os.Getenv("ASOF_TEST_CHATTER") == "1" { // a child that talks, then hangs (TestBrokenChildNamesItsTest)
		for i := 1; i <= 3; i++ {
			fmt.Printf("chatter line %d\n", i)
		}
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if os.Getenv("ASOF_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	flag.Parse()
	os.Exit(m.Run())
}

func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// freePort picks a free port (below the kernel's ephemeral range: loopback.FreePort) for a
// command that binds it later.
func freePort(t testing.TB) string {
	t.Helper()
	p, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(p)
}

func TestDevOnceRunsTheHealthCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	dir := t.TempDir()
	args := []string{"dev", "--once", "--data-dir", dir, "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", freePort(t)}
	for i := range 2 { // the second run restarts on the same SQLite file and S3 folder
		code, out, errOut := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, code, out, errOut)
		}
		for _, want := range []string{"asof is up in", "Temporal  127.0.0.1:", "Web UI    http://127.0.0.1:", "S3        http://127.0.0.1:", "Health check asof-health-", "passed", "asof-default, asof-embed, asof-llm"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: output lacks %q:\n%s", i, want, out)
			}
		}
		// Another shell needs the gateway's keys to use this stack (else the AWS SDK looks for
		// an EC2 role and fails with its IMDS message).
		creds, err := s3gw.LoadOrCreateCredentials(filepath.Join(dir, "s3-credentials.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := "export ASOF_S3_ACCESS_KEY_ID=" + creds.AccessKeyID + " ASOF_S3_SECRET_ACCESS_KEY=" + creds.SecretAccessKey + "\n"
		if !strings.Contains(out, want) || !strings.Contains(out, "export ASOF_TEMPORAL=127.0.0.1:") {
			t.Errorf("run %d: output lacks the settings for another process (%q):\n%s", i, want, out)
		}
	}
	for _, f := range []string{"temporal.db", "s3-credentials.json", "s3/asof"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("data dir lacks %s: %v", f, err)
		}
	}
}

func TestClearOneLineErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"worker without server", nil, []string{"worker"}, "worker needs a server to poll: pass --temporal"},
		{"worker without store", nil, []string{"worker", "--temporal", "127.0.0.1:1"}, "worker needs a store"},
		{"bad store scheme", nil, []string{"config", "--store", "gs://b"}, "use s3://bucket/prefix or file:///path"},
		{"bad env", map[string]string{"ASOF_TEMPORAL_PORT": "x"}, []string{"config"}, "ASOF_TEMPORAL_PORT"},
		{"unknown queue", nil, []string{"dev", "--task-queues", "asof-gpu"}, `unknown queue "asof-gpu"`},
		{"missing config file", nil, []string{"config", "--config", "/nonexistent/asof.yaml"}, "config file"},
		{"unknown command", nil, []string{"frobnicate"}, "unknown command"},
		{"server with external temporal", nil, []string{"server", "--temporal", "h:7233"}, "drop --temporal"},
		{"unreachable external store", nil, []string{"worker", "--temporal", "127.0.0.1:1", "--store", "s3://b"}, "connect to Temporal at 127.0.0.1:1"},
		{"takedown without a reason", nil, []string{"docs", "delete", "--index", "news", "--doc-id", "d1", "--reason", " "}, "--reason: required"},
		{"takedown of a bad index name", nil, []string{"docs", "delete", "--index", "Bad_Name", "--doc-id", "d1", "--reason", "x"}, "--index"},
		{"takedown without a doc", nil, []string{"docs", "delete", "--index", "news", "--reason", "x"}, "doc-id"},
		{"ask without a question", nil, []string{"ask", "--index", "news"}, "no question"},
		{"ask with a question twice", nil, []string{"ask", "--index", "news", "--query-file", "q.txt", "key rate"}, "not both"},
		{"a purge with a doc but no reason", nil, []string{"docs", "delete", "--index", "news", "--doc-id", "d1", "--purge"}, "--reason: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.env, tt.args...)
			if code == 0 {
				t.Fatal("exit code 0")
			}
			if !strings.HasPrefix(errOut, "asof: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("stderr = %q, want one line containing %q", errOut, tt.want)
			}
		})
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	for _, cmd := range []string{"", "dev", "server", "worker", "config", "version", "models", "models pull", "models list", "index", "docs", "docs delete", "docs list"} {
		args := append(strings.Fields(cmd), "--help")
		code, out, _ := runCLI(t, nil, args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("asof %s --help: exit %d\n%s", cmd, code, out)
		}
	}
}

func TestConfigLayersAndRedaction(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asof.yaml")
	os.WriteFile(file, []byte("temporal:\n  namespace: from-file\n  address: file:7233\nstore:\n  url: s3://file-bucket\n"), 0o644)
	env := map[string]string{"ASOF_CONFIG": file, "ASOF_STORE": "s3://env-bucket/x", "ASOF_S3_SECRET_ACCESS_KEY": "hunter2"}
	code, out, errOut := runCLI(t, env, "config", "--temporal", "flag:7233")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"namespace: from-file", "url: s3://env-bucket/x", "address: flag:7233", "secret_access_key: '***'"} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Fatal("secret printed")
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "asof ") || !strings.Contains(out, "search kernel "+vecindex.Kernel()+"\n") {
		t.Fatalf("version: %d %q", code, out)
	}
}

// proc is the asof CLI running as a separate process.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
	read chan struct{} // closed when all output has been read
}

func startProc(t testing.TB, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1), read: make(chan struct{})}
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = append(append(os.Environ(), "ASOF_TEST_MAIN=1"), env...)
	pr, pw := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = pw, pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	go func() { err := p.cmd.Wait(); pw.Close(); p.done <- err }()
	t.Cleanup(func() {
		// A failing test shows what every process it started said last, whichever line
		// failed it: the cause is often in a child's output.
		if t.Failed() {
			t.Logf("last lines of child %v (pid %d):\n%s", p.cmd.Args[1:], p.cmd.Process.Pid, lastLines(p.output(), childTailLines))
		}
		p.cmd.Process.Kill()
	})
	return p
}

// childTailLines is how many of a child's last output lines a failing test prints.
const childTailLines = 40

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[… %d earlier lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func (p *proc) output() string { p.mu.Lock(); defer p.mu.Unlock(); return p.out.String() }

// waitFor polls the output until re matches, the process exits, or 60 s pass.
func (p *proc) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	m, err := p.await(re)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// await is waitFor returning the failure, with the process's whole output in it.
func (p *proc) await(re *regexp.Regexp) ([]string, error) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(p.output()); m != nil {
			return m, nil
		}
		select {
		case err := <-p.done:
			p.done <- err // for interrupt and later waits
			<-p.read      // the last lines, which say why
			if m := re.FindStringSubmatch(p.output()); m != nil {
				return m, nil
			}
			return nil, fmt.Errorf("%v exited (%v) before printing %s:\n%s", p.cmd.Args[1:], err, re, p.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("%v did not print %s within 60 s:\n%s", p.cmd.Args[1:], re, p.output())
}

func (p *proc) interrupt(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("%v: exit after SIGINT: %v\n%s", p.cmd.Args[1:], err, p.output())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%v did not stop within 30 s of SIGINT", p.cmd.Args[1:])
	}
}

// TestServerAndSeparateWorkerCooperate runs `asof server` and `asof worker` as two processes
// and drives the HealthCheck workflow from a third party (this test) through them.
func TestServerAndSeparateWorkerCooperate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers in subprocesses")
	}
	dir := t.TempDir()
	server, env, hostPort, store := startServer(t, dir, "--ui-port", freePort(t))
	uiURL := server.waitFor(t, regexp.MustCompile(`Web UI    (http://\S+)`))[1]

	wk := startProc(t, env, "worker", "--temporal", hostPort, "--store", store)
	wk.waitFor(t, regexp.MustCompile(`asof worker polling asof-default, asof-embed, asof-llm`))

	c, err := client.Dial(client.Options{HostPort: hostPort})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "cooperate", TaskQueue: workflows.TaskQueue}, workflows.HealthCheck, workflows.HealthCheckInput{})
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.HealthCheckResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatalf("health check through server + worker processes: %v\nserver:\n%s\nworker:\n%s", err, server.output(), wk.output())
	}
	if len(res.Queues) != 3 || !strings.Contains(res.Store, "s3://asof/") {
		t.Fatalf("result = %+v", res)
	}
	for _, q := range res.Queues {
		if q.Identity == "" || strings.HasSuffix(q.Identity, fmt.Sprintf(":%d", os.Getpid())) {
			t.Fatalf("queue %s answered by %q, want the worker process", q.TaskQueue, q.Identity)
		}
	}
	// The Web UI serves its page and reaches the server: the run shows in its API.
	for _, check := range []struct{ path, want string }{{"/", "<html"}, {"/api/v1/namespaces/default/workflows/cooperate", "HealthCheck"}} {
		resp, err := http.Get(uiURL + check.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), check.want) {
			t.Errorf("UI %s: %d, body lacks %q: %.300s", check.path, resp.StatusCode, check.want, body)
		}
	}
	wk.interrupt(t)
	server.interrupt(t)
	if !strings.Contains(wk.output(), "asof worker stopped") {
		t.Errorf("worker did not stop cleanly:\n%s", wk.output())
	}
}

// TestCPUProfile: ASOF_CPU_PROFILE=FILE writes a pprof CPU profile of the command; a path that
// cannot be created fails the command at once, saying why.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	t.Setenv("ASOF_CPU_PROFILE", path)
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b { // a profile is gzipped
		t.Fatalf("profile %d bytes, %v", len(data), err)
	}
	t.Setenv("ASOF_CPU_PROFILE", filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	errb.Reset()
	if code := run([]string{"version"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "ASOF_CPU_PROFILE") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}
