package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// writeParquetFile writes rows to dir/name and returns its path, failing t on any error.
func writeParquetFile[T any](t *testing.T, dir, name string, rows []T) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// attachRe reads the worker command `asof server` prints: keys, Temporal address, store URL.
var attachRe = regexp.MustCompile(`ASOF_S3_ACCESS_KEY_ID=(\S+) ASOF_S3_SECRET_ACCESS_KEY=(\S+) \\\n\s+asof worker --temporal (\S+) --store '([^']+)'`)

// startServer runs `asof server` on free ports over dir and returns it with what a worker
// needs: the S3 key environment, the Temporal address and the store URL.
func startServer(t *testing.T, dir string, extra ...string) (server *proc, env []string, hostPort, store string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		args := append([]string{"server", "--data-dir", dir, "--temporal-port", freePort(t), "--s3-port", freePort(t)}, extra...)
		server = startProc(t, nil, args...)
		m, err := server.await(attachRe)
		if err == nil {
			return server, []string{"ASOF_S3_ACCESS_KEY_ID=" + m[1], "ASOF_S3_SECRET_ACCESS_KEY=" + m[2]}, m[3], m[4]
		}
		// freePort's port can be taken by a parallel test before the server binds it.
		if attempt < 3 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("retrying with other ports: %v", err)
			continue
		}
		t.Fatal(err)
	}
}
