package temporalserver

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
	"go.uber.org/zap"
)

// TestFatalSaysWhyOnStderr: a Fatal from inside the Temporal server used to end the process
// with one line in the server's log file and nothing on the terminal (a test binary running
// the embedded server then failed with no test named). The hook writes the reason and the
// log's path to stderr, then exits 1.
func TestFatalSaysWhyOnStderr(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "temporal.db.log")
	var stderr bytes.Buffer
	exitCode := -1
	z := log.BuildZapLogger(log.Config{Level: "warn", OutputFile: logPath, Format: "json"})
	z = z.WithOptions(zap.WithFatalHook(fatalHook{logPath: logPath, w: &stderr, exit: func(c int) { exitCode = c }}))
	logger := log.NewZapLogger(z)

	logger.Error("a plain error is not fatal", tag.Error(errors.New("x")))
	if stderr.Len() != 0 || exitCode != -1 {
		t.Fatalf("an Error entry reached the hook: exit %d, %q", exitCode, stderr.String())
	}
	logger.Fatal("Failed to serve on matching listener", tag.Error(errors.New("use of closed network connection")), tag.Address("127.0.0.1:7235"))
	if exitCode != 1 {
		t.Fatalf("exit code %d, want 1", exitCode)
	}
	got := stderr.String()
	for _, want := range []string{
		"asof: the embedded Temporal server stopped this process: Failed to serve on matching listener; error: use of closed network connection; address: 127.0.0.1:7235\n",
		"asof: its log: " + logPath + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "logging-call-at") {
		t.Errorf("stderr carries the caller field: %s", got)
	}
}
