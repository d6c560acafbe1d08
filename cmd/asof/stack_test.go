package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/asofrag/asof/infra/stackfile"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// startDev runs `asof dev` on free ports over dir in a subprocess and returns it once it is
// up, with its Temporal address, S3 endpoint and Web UI.
func startDev(t *testing.T, dir string, extra ...string) (dev *proc, temporal, s3, ui string) {
	t.Helper()
	up := regexp.MustCompile(`(?s)Temporal  (\S+) .*Web UI    (\S+)\n.*S3        (\S+) .*asof dev is up`)
	for attempt := 1; ; attempt++ {
		args := append([]string{"dev", "--data-dir", dir, "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", freePort(t)}, extra...)
		dev = startProc(t, nil, args...)
		m, err := dev.await(up)
		if err == nil {
			return dev, m[1], m[3], m[2]
		}
		if attempt < 3 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("retrying with other ports: %v", err)
			continue
		}
		t.Fatal(err)
	}
}

// TestCommandsUseTheRunningDev runs `asof dev` on a data dir, then other commands on the same
// data dir with no exports: they use its Temporal and S3 (and say so) instead of starting
// their own, a second dev is refused, and once dev has stopped its record is gone and a stale
// one is ignored.
func TestCommandsUseTheRunningDev(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	dir := t.TempDir()
	dev, temporal, s3, ui := startDev(t, dir)

	rec := stackfile.Path(dir)
	fi, err := os.Stat(rec)
	if err != nil {
		t.Fatalf("asof dev wrote no stack record: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", rec, fi.Mode().Perm())
	}
	raw, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secret") || !strings.Contains(string(raw), "s3-credentials.json") {
		t.Errorf("the record should name the keys file and hold no secret:\n%s", raw)
	}
	// Any variable that points elsewhere would hide what is tested.
	for _, k := range []string{"ASOF_TEMPORAL", "ASOF_STORE", "ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY", "ASOF_CONFIG"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}

	using := "using the running asof dev on this data dir"
	tests := []struct {
		name string
		args []string
		want string // in stdout: proof that the command reached dev's servers
	}{
		{"indexes", []string{"indexes", "--data-dir", dir}, "no indexes in s3://asof"},
		{"ping", []string{"ping", "--data-dir", dir}, "temporal " + temporal + " namespace default: ok"},
		{"schedule list", []string{"schedule", "list", "--data-dir", dir}, ""},
		{"digest list", []string{"digest", "list", "--data-dir", dir}, "no digests in s3://asof/ at " + s3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			line := using + " (pid "
			if !strings.Contains(errOut, line) || !strings.Contains(errOut, "temporal "+temporal+", s3 "+s3+" bucket asof, Web UI "+ui+"\n") {
				t.Errorf("stderr does not say which stack it used (%s):\n%s", temporal, errOut)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, out)
			}
		})
	}

	t.Run("explicit temporal wins", func(t *testing.T) {
		code, _, errOut := runCLI(t, nil, "ping", "--data-dir", dir, "--temporal", "127.0.0.1:1", "--store", "file://"+t.TempDir(), "--timeout", "2s")
		if code == 0 || strings.Contains(errOut, using) || !strings.Contains(errOut, "127.0.0.1:1") {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
	})

	t.Run("second dev refused", func(t *testing.T) {
		code, _, errOut := runCLI(t, nil, "dev", "--once", "--data-dir", dir, "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", "0")
		if code == 0 || !strings.Contains(errOut, "asof dev already runs on data dir "+dir) || !strings.Contains(errOut, "Web UI "+ui) {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
	})

	dev.interrupt(t)
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Fatalf("the stack record outlived a clean stop: %v", err)
	}

	// A record left by a crash (its process gone, its ports closed) is ignored: the command
	// starts its own servers.
	if err := os.WriteFile(rec, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, map[string]string{"ASOF_TEMPORAL_PORT": freePort(t), "ASOF_S3_PORT": freePort(t)}, "indexes", "--data-dir", dir)
	if code != 0 || strings.Contains(errOut, using) || !strings.Contains(out, "no indexes in") {
		t.Fatalf("with a stale record: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "temporal.db")); err != nil {
		t.Fatal(err)
	}
}

func TestPortClashNamesTheFix(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, inUse := net.Listen("tcp", l.Addr().String())
	if inUse == nil {
		t.Fatal("listening twice on one port succeeded")
	}
	tests := []struct {
		name      string
		err       error
		withFlags bool
		want      string
	}{
		{"dev", inUse, true, "--temporal-port, --s3-port, --ui-port"},
		{"other command", inUse, false, "pass its --data-dir, else choose free ports with ASOF_TEMPORAL_PORT and ASOF_S3_PORT"},
		{"other error", errors.New("boom"), false, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := portClash(tt.err, tt.withFlags).Error()
			if !strings.HasSuffix(got, tt.want) || !errors.Is(portClash(tt.err, tt.withFlags), tt.err) {
				t.Fatalf("portClash = %q, want it to end in %q and wrap the cause", got, tt.want)
			}
		})
	}
}

// TestIndexAndAskThroughTheRunningStackWithModel indexes and asks on a data dir where `asof
// dev` (its worker embeds) or `asof server` (no worker: the command runs one itself) runs,
// with no exports: both commands use that stack's servers.
func TestIndexAndAskThroughTheRunningStackWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers")
	}
	modelDir := testmodel.ModelsDir(t)
	for _, who := range []string{"dev", "server"} {
		t.Run(who, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			if who == "dev" {
				startDev(t, data, "--model-dir", modelDir)
			} else {
				startServer(t, data)
			}
			for _, k := range []string{"ASOF_TEMPORAL", "ASOF_STORE", "ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY"} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			file := writeParquetFile(t, dir, "news.parquet", askCorpus)
			common := []string{"--data-dir", data, "--model-dir", modelDir}
			using := "using the running asof " + who + " on this data dir"
			code, out, errOut := runCLI(t, nil, append([]string{"index", "--index", "news", "--corpus", file}, common...)...)
			if code != 0 || !strings.Contains(errOut, using) {
				t.Fatalf("index: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			code, out, errOut = runCLI(t, nil, append([]string{"ask", "--index", "news", "--json", "--as-of", "2023-03-03", "Brexit deal for Northern Ireland"}, common...)...)
			var ans schemas.Answer
			if code != 0 || !strings.Contains(errOut, using) || json.Unmarshal([]byte(out), &ans) != nil || len(ans.Results) == 0 {
				t.Fatalf("ask: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.HasPrefix(ans.Results[0].DocID, "windsor-") && !strings.HasPrefix(ans.Results[0].DocID, "protocol-") {
				t.Errorf("ask led with %s", ans.Results[0].DocID)
			}
		})
	}
}

// TestAttachStack holds which settings a running stack's record fills in: only those left to
// the embedded servers; with an explicit --temporal that is the stack's, only the Web UI.
func TestAttachStack(t *testing.T) {
	listen := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.Addr().String()
	}
	temporal, s3 := listen(), listen()
	dir := t.TempDir()
	keys := filepath.Join(dir, "s3-credentials.json")
	if err := os.WriteFile(keys, []byte(`{"access_key_id":"asofAK","secret_access_key":"s3cr3t"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := stackfile.Record{By: "asof dev", PID: os.Getpid(), Temporal: temporal, Namespace: "default", UI: "http://127.0.0.1:8233",
		Store: "s3://asof?endpoint=http://" + s3, S3Endpoint: "http://" + s3, S3Region: "us-east-1", Bucket: "asof", S3KeysFile: keys, TaskQueues: []string{"asof-default"}}
	if err := stackfile.Write(dir, rec); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		temporal, store   string
		wantTemporal      string
		wantStore, wantUI string
		wantLine          string // "" : nothing said
	}{
		{name: "both embedded", wantTemporal: temporal, wantStore: rec.Store, wantUI: rec.UI,
			wantLine: "using the running asof dev on this data dir (pid "},
		{name: "explicit store", store: "file:///elsewhere", wantTemporal: temporal, wantStore: "file:///elsewhere", wantUI: rec.UI,
			wantLine: "): temporal " + temporal + ", Web UI http://127.0.0.1:8233\n"},
		{name: "explicit temporal", temporal: "10.0.0.1:7233", wantTemporal: "10.0.0.1:7233", wantStore: rec.Store,
			wantLine: "): s3 http://" + s3 + " bucket asof, Web UI"},
		{name: "both explicit, the stack's temporal", temporal: temporal, store: "file:///s", wantTemporal: temporal, wantStore: "file:///s", wantUI: rec.UI},
		{name: "both explicit elsewhere", temporal: "10.0.0.1:7233", store: "file:///s", wantTemporal: "10.0.0.1:7233", wantStore: "file:///s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb strings.Builder
			a := &app{cfg: config.Default(), stderr: &errb}
			a.cfg.DataDir, a.cfg.Temporal.Address, a.cfg.Store.URL = dir, tt.temporal, tt.store
			if err := a.attachStack(context.Background()); err != nil {
				t.Fatal(err)
			}
			if a.cfg.Temporal.Address != tt.wantTemporal || a.cfg.Store.URL != tt.wantStore || a.stackUI != tt.wantUI {
				t.Errorf("temporal %q store %q ui %q, want %q %q %q", a.cfg.Temporal.Address, a.cfg.Store.URL, a.stackUI, tt.wantTemporal, tt.wantStore, tt.wantUI)
			}
			if tt.store == "" && (a.cfg.Store.AccessKeyID != "asofAK" || a.cfg.Store.SecretAccessKey != "s3cr3t" || !a.cfg.Store.PathStyle) {
				t.Errorf("the gateway's keys and path style were not taken: %+v", a.cfg.Redacted().Store)
			}
			if tt.wantLine == "" && errb.Len() != 0 || !strings.Contains(errb.String(), tt.wantLine) || strings.Count(errb.String(), "\n") > 1 {
				t.Errorf("stderr = %q, want one line with %q", errb.String(), tt.wantLine)
			}
			if tt.wantUI != "" && !strings.Contains(a.uiHint(), tt.wantUI) {
				t.Errorf("uiHint = %q, want the stack's Web UI", a.uiHint())
			}
		})
	}
}
