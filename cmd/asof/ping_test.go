package main

import (
	"strings"
	"testing"
)

// TestPing runs `asof ping` against `asof server` in another process: it answers ok with the
// server's address, store and keys, and fails, naming the part, for a namespace the server
// does not have, wrong S3 keys and a port nobody listens on.
func TestPing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers in a subprocess")
	}
	server, env, hostPort, store := startServer(t, t.TempDir())
	defer server.interrupt(t)
	keys := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		keys[k] = v
	}
	wrongKeys := map[string]string{"ASOF_S3_ACCESS_KEY_ID": keys["ASOF_S3_ACCESS_KEY_ID"], "ASOF_S3_SECRET_ACCESS_KEY": "not-the-key"}
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		want     string // in stdout when the code is 0, else in stderr
	}{
		{"ok", keys, []string{"--temporal", hostPort, "--store", store}, 0, "namespace default: ok"},
		{"unknown namespace", keys, []string{"--temporal", hostPort, "--store", store, "--namespace", "nope"}, 1, "namespace nope"},
		{"wrong S3 key", wrongKeys, []string{"--temporal", hostPort, "--store", store}, 1, "ping: store"},
		{"nobody listens", keys, []string{"--temporal", "127.0.0.1:" + freePort(t), "--store", store, "--timeout", "3s"}, 1, "ping: connect to Temporal"},
		{"embedded default", keys, nil, 1, "ping checks an external Temporal and store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.env, append([]string{"ping"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			got := stdout
			if code != 0 {
				got = stderr
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", tt.want, stdout, stderr)
			}
		})
	}
}
