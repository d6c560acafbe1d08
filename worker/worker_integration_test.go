package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/server/temporaltest"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/worker"
	"github.com/asofrag/asof/workflows"
)

// -update-history rewrites workflows/testdata/*.json from real runs, for the replay tests.
var updateHistory = flag.Bool("update-history", false, "write the histories of real runs to workflows/testdata")

// One real Temporal server (in memory) and one real S3 gateway for the whole package.
var (
	ts *temporaltest.TestServer
	// tc is the server's default client, made once: temporaltest creates it lazily without a
	// lock, which races when tests call GetDefaultClient from several goroutines.
	tc client.Client
	gw *s3gw.Gateway
	// testdata is workflows/testdata, resolved before the gateway changes the working directory.
	testdata string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	testdata = filepath.Join(wd, "..", "workflows", "testdata")
	dir, err := os.MkdirTemp("", "asof-worker-it-")
	if err != nil {
		panic(err)
	}
	creds, err := s3gw.LoadOrCreateCredentials(filepath.Join(dir, "creds.json"))
	if err != nil {
		panic(err)
	}
	gw, err = s3gw.Start(context.Background(), s3gw.Options{Root: filepath.Join(dir, "s3"), Port: -1, Credentials: creds, Buckets: []string{"itest"}})
	if err != nil {
		panic(err)
	}
	ts = temporaltest.NewServer()
	tc = ts.GetDefaultClient()
	code := m.Run()
	ts.Stop()
	if err := gw.Stop(); err != nil {
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func integration(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs the Temporal server and S3 gateway (-short skips)")
	}
}

func s3Bucket(t *testing.T, prefix string) blob.Bucket {
	t.Helper()
	c := gw.Credentials()
	b, err := blob.NewS3(context.Background(), blob.S3Options{Bucket: "itest", Prefix: prefix, Endpoint: gw.Endpoint(), Region: gw.Region(), AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runWorkers runs the real worker (worker.Run) on queues until the test ends.
func runWorkers(t *testing.T, b blob.Bucket, queues ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := config.Default().Worker
	cfg.TaskQueues = queues
	cfg.ShutdownTimeout = 2 * time.Second
	go func() {
		done <- worker.Run(ctx, tc, cfg, worker.Deps{Bucket: b, Identity: "it-worker"})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker.Run: %v", err)
		}
	})
}

func runHealthCheck(t *testing.T, in workflows.HealthCheckInput) (workflows.HealthCheckResult, error) {
	t.Helper()
	return runHealthCheckID(t, t.Name()+"-"+time.Now().Format("150405.000000"), in)
}

// runHealthCheckID runs a health check under a chosen workflow ID (the recorded histories are
// named after it; the replay test needs it back).
func runHealthCheckID(t *testing.T, id string, in workflows.HealthCheckInput) (workflows.HealthCheckResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.TaskQueue,
	}, workflows.HealthCheck, in)
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.HealthCheckResult
	err = run.Get(ctx, &res)
	return res, err
}

// saveHistory writes a finished run's history as JSON (the format `temporal workflow show
// --output json` writes and the replayer reads) to testdata/<workflowID>.json.
func saveHistory(t *testing.T, workflowID string) {
	t.Helper()
	saveHistoryAs(t, workflowID, workflowID)
}

// saveHistoryAs writes workflowID's history to testdata/<name>.json (for IDs that are no file
// name, such as a child's).
func saveHistoryAs(t *testing.T, workflowID, name string) {
	t.Helper()
	path := filepath.Join(testdata, name+".json")
	ctx := context.Background()
	hist := &historypb.History{}
	it := tc.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d events)", path, len(hist.Events))
}

// historySteps lists the activities of workflowID's history: those scheduled on a task queue
// and the local activities (their markers), in order.
func historySteps(t *testing.T, workflowID string) (scheduled, local []string) {
	t.Helper()
	it := tc.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			scheduled = append(scheduled, ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName())
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			m := ev.GetMarkerRecordedEventAttributes()
			if m.GetMarkerName() != "LocalActivity" {
				continue
			}
			var data struct{ ActivityType string }
			if p := m.GetDetails()["data"].GetPayloads(); len(p) == 0 || json.Unmarshal(p[0].GetData(), &data) != nil {
				t.Fatalf("local activity marker without its data: %v", m)
			}
			local = append(local, data.ActivityType)
		}
	}
	return scheduled, local
}

func TestHealthCheckThroughRealServerAndS3(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "hc")
	runWorkers(t, b, config.AllQueues...)
	res, err := runHealthCheckID(t, "healthcheck-ok", workflows.HealthCheckInput{Prefix: "probes"})
	if err != nil {
		t.Fatal(err)
	}
	if *updateHistory {
		saveHistory(t, "healthcheck-ok")
	}
	if !strings.Contains(res.Store, gw.Endpoint()) || res.Bytes < 1000 {
		t.Fatalf("result = %+v", res)
	}
	var queues []string
	for _, q := range res.Queues {
		queues = append(queues, q.TaskQueue)
		if q.Identity != "it-worker" {
			t.Errorf("queue %s answered by %q", q.TaskQueue, q.Identity)
		}
	}
	if strings.Join(queues, ",") != strings.Join(config.AllQueues, ",") {
		t.Fatalf("queues answered = %v", queues)
	}
	left, err := blob.List(context.Background(), b, "probes/")
	if err != nil || len(left) != 0 {
		t.Fatalf("probe objects left behind: %v, %v", left, err)
	}
}

func TestHealthCheckNamesQueuesWithoutWorkers(t *testing.T) {
	integration(t)
	runWorkers(t, s3Bucket(t, "hc-missing"), config.QueueDefault)
	_, err := runHealthCheckID(t, "healthcheck-missing-queues", workflows.HealthCheckInput{QueueTimeout: 2 * time.Second})
	if *updateHistory {
		saveHistory(t, "healthcheck-missing-queues")
	}
	if err == nil {
		t.Fatal("health check passed with no worker on the embed and LLM queues")
	}
	for _, q := range []string{config.QueueEmbed, config.QueueLLM} {
		if !strings.Contains(err.Error(), q) {
			t.Errorf("error does not name %s: %v", q, err)
		}
	}
}

func TestHealthCheckFailsClearlyOnBadCredentials(t *testing.T) {
	integration(t)
	bad, err := blob.NewS3(context.Background(), blob.S3Options{Bucket: "itest", Endpoint: gw.Endpoint(), Region: gw.Region(), AccessKeyID: "nobody", SecretAccessKey: "nothing"})
	if err != nil {
		t.Fatal(err)
	}
	runWorkers(t, bad, config.AllQueues...)
	_, err = runHealthCheck(t, workflows.HealthCheckInput{})
	if err == nil || !strings.Contains(err.Error(), "write probe") {
		t.Fatalf("err = %v, want a write-probe failure", err)
	}
}

// TestActivitiesClassifyErrors runs the activities alone against the real S3 gateway.
func TestActivitiesClassifyErrors(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "act")
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(worker.NewActivities(worker.Deps{Bucket: b}))
	var a *activities.Activities

	_, err := env.ExecuteActivity(a.WriteProbe, activities.WriteProbeInput{Key: "../escape"})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != activities.ErrTypeInvalidInput || !appErr.NonRetryable() {
		t.Fatalf("bad key: err = %v, want non-retryable %s", err, activities.ErrTypeInvalidInput)
	}

	if _, err := b.Put(context.Background(), "garbage.json", strings.NewReader("not json")); err != nil {
		t.Fatal(err)
	}
	_, err = env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "garbage.json"})
	if !errors.As(err, &appErr) || appErr.Type() != activities.ErrTypeMismatch {
		t.Fatalf("garbage probe: err = %v, want %s", err, activities.ErrTypeMismatch)
	}

	_, err = env.ExecuteActivity(a.ReadProbe, activities.ReadProbeInput{Key: "never-written.json"})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("missing probe: err = %v", err)
	}
}
