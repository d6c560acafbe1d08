package temporalserver_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/infra/temporalserver"
	"github.com/asofrag/asof/internal/loopback"
)

const queue = "restart-test"

// Stamp is a tiny workflow: it returns its input with the workflow's own start day.
func Stamp(ctx workflow.Context, s string) (string, error) {
	return s + "@" + workflow.Now(ctx).UTC().Format("2006-01-02"), nil
}

func start(t *testing.T, db string, port int) *temporalserver.Server {
	t.Helper()
	began := time.Now()
	srv, err := temporalserver.Start(context.Background(), temporalserver.Options{DBPath: db, FrontendPort: port, Namespaces: []string{"asof-test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server on %s ready in %s", srv.HostPort(), time.Since(began).Round(time.Millisecond))
	return srv
}

func runStamp(t *testing.T, c client.Client, id, in string) string {
	t.Helper()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(Stamp)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, Stamp, in)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := run.Get(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func dial(t *testing.T, srv *temporalserver.Server) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: "asof-test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRestartKeepsHistory starts a server on a SQLite file, runs a workflow, stops, starts
// again on the same file and port, finds the old run's history and runs a new workflow.
func TestRestartKeepsHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "temporal.db")
	port, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}

	srv := start(t, db, port)
	c := dial(t, srv)
	first := runStamp(t, c, "before-restart", "one")
	c.Close()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", srv.HostPort(), time.Second); err == nil {
		conn.Close()
		t.Fatal("frontend still listening after Stop")
	}

	srv = start(t, db, port)
	defer srv.Stop()
	c = dial(t, srv)
	defer c.Close()
	ctx := context.Background()
	desc, err := c.DescribeWorkflowExecution(ctx, "before-restart", "")
	if err != nil {
		t.Fatalf("old run lost after restart: %v", err)
	}
	if st := desc.WorkflowExecutionInfo.Status; st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Fatalf("old run status %v, want completed", st)
	}
	var old string
	if err := c.GetWorkflow(ctx, "before-restart", "").Get(ctx, &old); err != nil || old != first {
		t.Fatalf("old result = %q, %v; want %q", old, err, first)
	}
	events := 0
	for it := c.GetWorkflowHistory(ctx, "before-restart", "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT); it.HasNext(); {
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
		events++
	}
	if events < 5 {
		t.Fatalf("old history has %d events", events)
	}
	if second := runStamp(t, c, "after-restart", "two"); !strings.HasPrefix(second, "two@") {
		t.Fatalf("new run result %q", second)
	}
}

func TestBusyPortIsAClearError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = temporalserver.Start(context.Background(), temporalserver.Options{DBPath: filepath.Join(t.TempDir(), "t.db"), FrontendPort: port})
	if err == nil || !strings.Contains(err.Error(), "another asof") {
		t.Fatalf("err = %v, want a busy-port message", err)
	}
}

func TestMissingDBPath(t *testing.T) {
	if _, err := temporalserver.Start(context.Background(), temporalserver.Options{}); err == nil {
		t.Fatal("started without a database path")
	}
}
