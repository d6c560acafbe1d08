package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// TestModelsListReadsTheSharedCache: a fresh --data-dir lists the models of the shared cache
// (<user cache dir>/asof/models, here under XDG_CACHE_HOME) after its own models/ folder, so a
// model pulled once serves every data dir; --model-dir alone replaces both.
func TestModelsListReadsTheSharedCache(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	if err := os.MkdirAll(filepath.Join(cache, "asof", "models", "e5-small-v2"), 0o755); err != nil { // a damaged copy: listed, and said why
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CACHE_HOME": cache, "ASOF_MODEL_DIR": ""}
	data := filepath.Join(dir, "fresh")
	code, out, errOut := runCLI(t, env, "models", "list", "--data-dir", data)
	if code != 0 || !strings.HasPrefix(out, "models in "+filepath.Join(data, "models")+", then "+filepath.Join(cache, "asof", "models")+" ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !regexp.MustCompile(`(?m)^. e5-small-v2 .*unusable: `).MatchString(out) {
		t.Errorf("the cache's e5-small-v2 is not listed from the cache:\n%s", out)
	}
	mine := filepath.Join(dir, "mine")
	code, out, _ = runCLI(t, env, "models", "list", "--data-dir", data, "--model-dir", mine)
	if code != 0 || !strings.HasPrefix(out, "models in "+mine+" (") || !regexp.MustCompile(`(?m)^. e5-small-v2 .*not pulled`).MatchString(out) {
		t.Errorf("--model-dir: exit %d\n%s", code, out)
	}
}
