package main

import (
	"strings"
	"testing"
)

// TestNamespaceCreate registers a namespace on a Temporal that did not have it (`asof server`
// in a subprocess stands in for an external cluster), then again (it exists: no error), and
// checks the two refusals: no --temporal, and a frontend that never answers.
func TestNamespaceCreate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers in a subprocess")
	}
	t.Setenv("ASOF_DATA_DIR", t.TempDir())
	_, _, hostPort, _ := startServer(t, t.TempDir())
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{name: "new namespace", args: []string{"--temporal", hostPort, "--namespace", "asof-ns-test"}, want: "namespace asof-ns-test registered on " + hostPort + " (retention 72h0m0s)"},
		{name: "again: it exists", args: []string{"--temporal", hostPort, "--namespace", "asof-ns-test"}, want: "namespace asof-ns-test already exists on " + hostPort},
		{name: "the server's own", args: []string{"--temporal", hostPort, "--retention", "24h"}, want: "namespace default already exists"},
		{name: "no external Temporal", wantCode: 1, want: "namespace create registers a namespace on an external Temporal: pass --temporal"},
		{name: "nothing answers", args: []string{"--temporal", "127.0.0.1:" + freePort(t), "--timeout", "2s"}, wantCode: 1, want: "register namespace default at 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, append([]string{"namespace", "create"}, tc.args...)...)
			if code != tc.wantCode || !strings.Contains(stdout+stderr, tc.want) {
				t.Fatalf("exit %d, want %d; output (want %q):\n%s%s", code, tc.wantCode, tc.want, stdout, stderr)
			}
		})
	}
}
