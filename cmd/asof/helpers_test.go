package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/blob"
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

// storeCase is one run of the command line against a store and what it must print.
type storeCase struct {
	name    string
	args    []string
	wantOut []string // each in stdout; "=" + text: stdout is exactly text
	wantErr string   // in stderr; with a non-zero exit unless wantOut is set
}

// runStoreCases runs each case, with common after its arguments, as a subtest of t.
func runStoreCases(t *testing.T, common []string, tests []storeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append(tt.args, common...)...)
			if len(tt.wantOut) == 0 {
				if code == 0 || !strings.Contains(errOut, tt.wantErr) {
					t.Fatalf("exit %d, stderr %q, want an error with %q", code, errOut, tt.wantErr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, want := range tt.wantOut {
				if exact, ok := strings.CutPrefix(want, "="); ok {
					if out != exact {
						t.Errorf("stdout =\n%s\nwant\n%s", out, exact)
					}
				} else if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, errOut)
			}
		})
	}
}

// tempStore makes a local-folder store in a temporary folder dir and returns them with the
// flags that point the command line at the store (and at a data folder of its own in dir).
func tempStore(t *testing.T) (dir, store string, b blob.Bucket, common []string) {
	t.Helper()
	dir = t.TempDir()
	store = filepath.Join(dir, "store")
	b, err := blob.NewLocal(store)
	if err != nil {
		t.Fatal(err)
	}
	return dir, store, b, []string{"--data-dir", filepath.Join(dir, "data"), "--store", "file://" + store}
}
