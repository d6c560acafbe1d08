package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/infra/stackfile"
)

// TestConfigShowsTheStack: `asof config` ends with the stack a command on its data dir would
// use, as YAML comments: the embedded servers it would start, the asof dev recorded in
// stack.json when that runs (addresses redacted), or the external ones given.
func TestConfigShowsTheStack(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, map[string]string{"ASOF_TEMPORAL_PORT": "7301"}, "config", "--data-dir", dir)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"# stack: none runs on this data dir", "#   temporal  embedded on 127.0.0.1:7301", "SQLite " + filepath.Join(dir, "temporal.db"), "#   s3        embedded gateway on 127.0.0.1:7070"} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rec := stackfile.Record{By: "asof dev", PID: os.Getpid(), Temporal: l.Addr().String(), Namespace: "default", UI: "http://127.0.0.1:8233",
		Store: "s3://asof?endpoint=http://" + l.Addr().String(), S3Endpoint: "http://k:hunter2@" + l.Addr().String(), Bucket: "asof", S3KeysFile: filepath.Join(dir, "s3-credentials.json")}
	if err := stackfile.Write(dir, rec); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, nil, "config", "--data-dir", dir)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"# stack: the asof dev running on this data dir (pid ", "#   temporal  " + rec.Temporal + "  namespace default",
		"#   s3        http://k:***@" + l.Addr().String() + "  bucket asof", "#   web ui    http://127.0.0.1:8233"} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("a secret printed:\n%s", out)
	}

	code, out, _ = runCLI(t, nil, "config", "--data-dir", dir, "--temporal", "10.0.0.1:7233", "--store", "s3://bucket/p")
	if code != 0 || !strings.Contains(out, "#   temporal  10.0.0.1:7233  namespace default  (--temporal)") || !strings.Contains(out, "#   store     s3://bucket/p  (--store)") {
		t.Errorf("explicit stack not shown:\n%s", out)
	}
}
