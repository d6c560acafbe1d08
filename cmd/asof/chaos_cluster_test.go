package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/testmodel"
)

// clusterScript brings up and restarts the pieces of the external cluster.
const clusterScript = "../../deploy/cluster/cluster.sh"

// externalCluster is a cluster that deploy/cluster/cluster.sh runs: its folder and the settings
// it wrote to asof.env for asof.
type externalCluster struct {
	dir string
	env map[string]string // ASOF_TEMPORAL, ASOF_NAMESPACE, ASOF_STORE, ASOF_S3_* from asof.env
}

// loadExternalCluster reads dir/asof.env, which `cluster.sh up` writes as `export K=V` lines.
func loadExternalCluster(dir string) (*externalCluster, error) {
	f, err := os.Open(filepath.Join(dir, "asof.env"))
	if err != nil {
		return nil, fmt.Errorf("%w (bring the cluster up first: ASOF_CLUSTER_DIR=%s deploy/cluster/cluster.sh up)", err, dir)
	}
	defer f.Close()
	c := &externalCluster{dir: dir, env: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			return nil, fmt.Errorf("%s: not K=V: %q", f.Name(), line)
		}
		c.env[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range []string{"ASOF_TEMPORAL", "ASOF_NAMESPACE", "ASOF_STORE", "ASOF_S3_ENDPOINT", "ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY"} {
		if c.env[k] == "" {
			return nil, fmt.Errorf("%s sets no %s", f.Name(), k)
		}
	}
	return c, nil
}

// restart kills one piece of the cluster hard (postgres: an immediate stop, crash recovery on
// start; s3 and temporal: SIGKILL) and starts it again, through cluster.sh.
func (c *externalCluster) restart(t *testing.T, what string) {
	t.Helper()
	cmd := exec.Command("bash", clusterScript, "restart", what)
	cmd.Env = append(os.Environ(), "ASOF_CLUSTER_DIR="+c.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cluster.sh restart %s: %v\n%s", what, err, out)
	}
}

// stack is a chaosStack on the cluster: no server process of its own; workers and clients get
// the cluster's Temporal address, namespace, bucket, endpoint and keys.
func (c *externalCluster) stack(t *testing.T, modelDir string) *chaosStack {
	t.Helper()
	return &chaosStack{
		dir: t.TempDir(), modelDir: modelDir, workers: map[string]*proc{},
		hostPort: c.env["ASOF_TEMPORAL"], namespace: c.env["ASOF_NAMESPACE"],
		store: c.env["ASOF_STORE"], endpoint: c.env["ASOF_S3_ENDPOINT"],
		env: []string{
			"ASOF_S3_ACCESS_KEY_ID=" + c.env["ASOF_S3_ACCESS_KEY_ID"],
			"ASOF_S3_SECRET_ACCESS_KEY=" + c.env["ASOF_S3_SECRET_ACCESS_KEY"],
		},
		s3Root: filepath.Join(c.dir, "s3", "data"),
	}
}

func TestLoadExternalCluster(t *testing.T) {
	full := "# comment\nexport ASOF_TEMPORAL=127.0.0.1:7233\nexport ASOF_NAMESPACE=default\nexport ASOF_STORE=s3://asof\n" +
		"export ASOF_S3_ENDPOINT=http://127.0.0.1:7070\nexport ASOF_S3_ACCESS_KEY_ID=k\nexport ASOF_S3_SECRET_ACCESS_KEY=s\n"
	for _, tc := range []struct {
		name, file, wantErr string
	}{
		{name: "complete", file: full},
		{name: "a setting missing", file: strings.Replace(full, "export ASOF_S3_ENDPOINT=http://127.0.0.1:7070\n", "", 1), wantErr: "sets no ASOF_S3_ENDPOINT"},
		{name: "not K=V", file: full + "export oops\n", wantErr: `not K=V: "export oops"`},
		{name: "no file", wantErr: "bring the cluster up first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "asof.env"), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := loadExternalCluster(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := c.stack(t, "/models")
			want := []string{"--temporal", "127.0.0.1:7233", "--store", "s3://asof", "--model-dir", "/models", "--namespace", "default", "--s3-endpoint", "http://127.0.0.1:7070"}
			if got := s.client(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("client flags %v, want %v", got, want)
			}
			if s.s3Root != filepath.Join(dir, "s3", "data") {
				t.Errorf("s3Root %s", s.s3Root)
			}
		})
	}
}

// TestChaosExternalClusterWithModel is the chaos test on an external cluster
// (deploy/cluster/cluster.sh: the upstream Temporal server on PostgreSQL, versitygw as the S3
// server, each its own process) with asof workers as separate processes on it. While the
// append builds it SIGKILLs an embed worker mid-part, restarts PostgreSQL (an immediate stop:
// crash recovery), SIGKILLs the other embed worker and starts a fresh one, then SIGKILLs and
// restarts versitygw; a second --append runs meanwhile. The checks are the chaos test's:
// counts reconcile, every chunk in exactly one published shard, the manifest chain intact, the
// shard ids and answers of a fault-free reference (built on `asof server`). It logs the
// recovery times. It runs only when ASOF_TEST_CLUSTER names the cluster's folder (`make
// cluster-chaos` brings the cluster up and sets it).
func TestChaosExternalClusterWithModel(t *testing.T) {
	dir := os.Getenv("ASOF_TEST_CLUSTER")
	if dir == "" {
		t.Skip("ASOF_TEST_CLUSTER is unset: `make cluster-chaos` runs this against deploy/cluster/cluster.sh's cluster")
	}
	if testing.Short() {
		t.Skip("starts workers in subprocesses")
	}
	cl, err := loadExternalCluster(dir)
	if err != nil {
		t.Fatal(err)
	}
	modelDir := testmodel.ModelsDir(t)
	testmodel.Fast(t)
	// A new index each run, so the cluster can be reused; parts of 4 chunks (13 a shard) leave
	// shards in flight for all four faults.
	c := newChaosCase(t, fmt.Sprintf("chaos-%d", time.Now().Unix()), 4)
	ref := c.reference(t, modelDir)

	// 1. An embed worker dies mid-part; the second append starts.
	s := cl.stack(t, modelDir)
	run := c.start(t, s)
	build := run.build
	run.killEmbedder(t)

	// 2. PostgreSQL stops without a checkpoint (pg_ctl -m immediate) and starts again with
	// shards in flight: Temporal loses its persistence and visibility for that long.
	inFlight := run.beforeNextFault(t)
	f := run.strike("restart PostgreSQL (immediate stop, crash recovery)", inFlight, func() { cl.restart(t, "postgres") })
	awaitRecovery(t, s.root(), f, build, 3*time.Minute)

	// 3. The other embed worker dies mid-part (none left); a fresh one starts.
	run.replaceEmbedder(t)

	// 4. The S3 server dies (SIGKILL) with shards in flight and starts again on its folder.
	inFlight = run.beforeNextFault(t)
	f = run.strike("SIGKILL versitygw (S3), restart it", inFlight, func() { cl.restart(t, "s3") })
	awaitRecovery(t, s.root(), f, build, 3*time.Minute)

	run.finish(t, ref)
	s.stopWorkers(t)
}
