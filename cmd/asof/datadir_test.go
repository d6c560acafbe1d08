package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataDirIsPrivate: a data dir others could read (0755) is made its owner's only, with a
// note; what asof creates in it (the SQLite file, the S3 folder, the keys) is not readable
// by others either.
func TestDataDirIsPrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "dev", "--once", "--data-dir", dir, "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", "0")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "chmod 700") {
		t.Errorf("no note that the data dir was tightened:\n%s", errOut)
	}
	for _, f := range []string{".", "temporal.db", "s3", "s3/asof", "s3-credentials.json"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v: others may read it", f, st.Mode().Perm())
		}
	}
}

// TestGatewayStartupIsQuiet: a command that starts the embedded S3 gateway prints none of
// versitygw's start-up lines ("Using sidecar directory…", "No IAM service configured…"),
// which it printed on every command (a separate process: they are written to the process's
// file descriptors, not to the command's writers).
func TestGatewayStartupIsQuiet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	p := startProc(t, nil, "dev", "--once", "--data-dir", t.TempDir(), "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", "0")
	err := <-p.done
	<-p.read
	out := p.output()
	if err != nil || !strings.Contains(out, "asof is up in") {
		t.Fatalf("asof dev --once: %v\n%s", err, out)
	}
	for _, noise := range []string{"Using sidecar directory", "No IAM service configured"} {
		if strings.Contains(out, noise) {
			t.Errorf("output holds versitygw's %q:\n%s", noise, out)
		}
	}
}
