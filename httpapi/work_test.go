package httpapi_test

// The long-running use cases of the API (index builds, evaluations, digest schedules) against
// the real embedded Temporal server (infra/temporalserver, SQLite, 127.0.0.1) and a local
// store. No worker runs: a started workflow stays running, which is what the conflicts
// (409) and the running status need; every run started is terminated before the test ends.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"

	"github.com/asofrag/asof/httpapi"
	"github.com/asofrag/asof/infra/temporalserver"
	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// workEnv is one API served over HTTP on 127.0.0.1, its Temporal client and its store.
type workEnv struct {
	t     *testing.T
	tc    client.Client
	store blob.Bucket
	base  string
}

// workStart starts the embedded Temporal server, dials it and serves the API over a local
// store; all of it stops when the test ends.
func workStart(t *testing.T) *workEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts the embedded Temporal server (-short skips)")
	}
	dir := t.TempDir()
	began := time.Now()
	srv, err := temporalserver.Start(context.Background(), temporalserver.Options{
		DBPath: filepath.Join(dir, "temporal.db"), FrontendPort: -1, ReadyTimeout: 45 * time.Second,
	})
	if err != nil {
		t.Fatalf("start the embedded Temporal server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop the Temporal server: %v", err)
		}
	})
	t.Logf("Temporal server on %s ready in %s", srv.HostPort(), time.Since(began).Round(time.Millisecond))
	tc, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: temporalserver.DefaultNamespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatalf("dial Temporal: %v", err)
	}
	t.Cleanup(tc.Close)
	store, err := blob.NewLocal(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := httpapi.New(httpapi.Config{Client: tc, Bucket: store, Version: "test", Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h) // 127.0.0.1
	t.Cleanup(hs.Close)
	if !strings.HasPrefix(hs.URL, "http://127.0.0.1:") {
		t.Fatalf("API served on %s, want 127.0.0.1", hs.URL)
	}
	return &workEnv{t: t, tc: tc, store: store, base: hs.URL}
}

// do calls the API: body nil sends none, a string is sent as it is, anything else as JSON.
func (e *workEnv) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the body: %v", method, path, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	return resp.StatusCode, data
}

// workJSON calls the API, wants status and decodes the body into a T (unknown fields refused).
func workJSON[T any](t *testing.T, e *workEnv, method, path string, body any, status int) T {
	t.Helper()
	code, data := e.do(t, method, path, body)
	if code != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, code, data, status)
	}
	var v T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
	}
	return v
}

// wantError calls the API and wants status with an {"error"} naming every one of parts.
func (e *workEnv) wantError(t *testing.T, method, path string, body any, status int, parts ...string) string {
	t.Helper()
	eb := workJSON[apispec.ErrorBody](t, e, method, path, body, status)
	if eb.Error == "" {
		t.Fatalf("%s %s: %d with an empty error", method, path, status)
	}
	for _, p := range parts {
		if !strings.Contains(eb.Error, p) {
			t.Errorf("%s %s: error %q lacks %q", method, path, eb.Error, p)
		}
	}
	return eb.Error
}

func (e *workEnv) put(t *testing.T, key string, data []byte) {
	t.Helper()
	if _, err := e.store.Put(context.Background(), key, bytes.NewReader(data)); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

func (e *workEnv) exists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := e.store.Exists(context.Background(), key)
	if err != nil {
		t.Fatalf("exists %s: %v", key, err)
	}
	return ok
}

// describe is workflow id's latest run: its status and run id.
func (e *workEnv) describe(t *testing.T, id string) (enumspb.WorkflowExecutionStatus, string) {
	t.Helper()
	d, err := e.tc.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatalf("describe workflow %s: %v", id, err)
	}
	info := d.GetWorkflowExecutionInfo()
	return info.GetStatus(), info.GetExecution().GetRunId()
}

// terminateAtEnd terminates workflow id when the test ends, unless it already ended.
func (e *workEnv) terminateAtEnd(t *testing.T, id string) {
	t.Cleanup(func() { e.terminate(t, id) })
}

func (e *workEnv) terminate(t *testing.T, id string) {
	t.Helper()
	d, err := e.tc.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil || d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return
	}
	if err := e.tc.TerminateWorkflow(context.Background(), id, "", "work_test: done"); err != nil {
		t.Errorf("terminate %s: %v", id, err)
	}
}

// workIndexInput is the input the latest run of workflow id was started with.
func workIndexInput(t *testing.T, e *workEnv, id string) workflows.IndexBuildInput {
	t.Helper()
	it := e.tc.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		t.Fatalf("workflow %s has no history", id)
	}
	ev, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		t.Fatalf("workflow %s: first event is %s", id, ev.GetEventType())
	}
	var in workflows.IndexBuildInput
	if err := converter.GetDefaultDataConverter().FromPayloads(attrs.GetInput(), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// workSeedIndex publishes an index as a finished build leaves it: manifest 1 and its CURRENT.
func workSeedIndex(t *testing.T, e *workEnv, index string) {
	t.Helper()
	e.put(t, layout.ManifestKey(index, 1), []byte(`{"version":1,"index":"`+index+`","seq":1,"shards":[]}`))
	cur, err := json.Marshal(layout.Current{Manifest: layout.ManifestName(1), Seq: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.put(t, layout.CurrentKey(index), cur)
}

func TestWorkAPIOnRealTemporal(t *testing.T) {
	e := workStart(t)
	t.Run("schedules", func(t *testing.T) { t.Parallel(); workSchedules(t, e) })
	t.Run("index build", func(t *testing.T) { t.Parallel(); workIndexBuild(t, e) })
	t.Run("evals", func(t *testing.T) { t.Parallel(); workEvals(t, e) })
	t.Run("takedowns", func(t *testing.T) { t.Parallel(); workTakedowns(t, e) })
}

func workSchedules(t *testing.T, e *workEnv) {
	const name = "work-morning"
	body := func() map[string]any {
		return map[string]any{"name": name, "cron": "0 7 * * *", "index": "news", "topics": []map[string]string{{"name": "a", "query": "b"}},
			"time_zone": "Europe/Moscow", "paused": true}
	}

	// Refused before anything is created.
	bad := body()
	delete(bad, "cron")
	e.wantError(t, "POST", "/v1/schedules", bad, http.StatusBadRequest, "cron", "required")
	bad = body()
	bad["as_of"] = "2025-01-01"
	e.wantError(t, "POST", "/v1/schedules", bad, http.StatusBadRequest, "as_of", "2025-01-01")
	bad = body()
	bad["time_zone"] = "Mars/Olympus"
	e.wantError(t, "POST", "/v1/schedules", bad, http.StatusBadRequest, "time_zone", "Mars/Olympus")
	bad = body()
	bad["name"] = "Bad Name"
	e.wantError(t, "POST", "/v1/schedules", bad, http.StatusBadRequest, "name")
	e.wantError(t, "POST", "/v1/schedules", `{"name":"x","cron":"0 7 * * *","bogus":1}`, http.StatusBadRequest, "unknown field", "bogus")
	e.wantError(t, "GET", "/v1/schedules/"+name, nil, http.StatusNotFound, name)

	created := workJSON[apispec.ScheduleInfo](t, e, "POST", "/v1/schedules", body(), http.StatusCreated)
	if created.Name != name || created.State != apispec.SchedulePaused || created.Cron != "0 7 * * *" ||
		created.TimeZone != "Europe/Moscow" || created.Index != "news" || created.Runs != 0 {
		t.Errorf("created schedule = %+v, want %s paused, cron 0 7 * * *, Europe/Moscow, index news, no runs", created, name)
	}
	if created.NextRun == nil {
		t.Error("created schedule has no next run")
	} else if msk := created.NextRun.In(time.FixedZone("MSK", 3*3600)); msk.Hour() != 7 || msk.Minute() != 0 {
		t.Errorf("next run %s is not 07:00 in Moscow (%s)", created.NextRun, msk)
	}
	// The server holds it as created.
	d, err := e.tc.ScheduleClient().GetHandle(context.Background(), "asof-digest-"+name).Describe(context.Background())
	if err != nil {
		t.Fatalf("describe the created schedule on the server: %v", err)
	}
	if !d.Schedule.State.Paused || d.Schedule.Spec.TimeZoneName != "Europe/Moscow" {
		t.Errorf("server's schedule: paused %v, zone %q", d.Schedule.State.Paused, d.Schedule.Spec.TimeZoneName)
	}

	e.wantError(t, "POST", "/v1/schedules", body(), http.StatusConflict, name)

	got := workJSON[apispec.ScheduleInfo](t, e, "GET", "/v1/schedules/"+name, nil, http.StatusOK)
	if got.Name != name || got.State != apispec.SchedulePaused || got.Cron != "0 7 * * *" {
		t.Errorf("GET schedule = %+v", got)
	}

	// The listing reads visibility, which may lag the create a little.
	var listed []apispec.ScheduleInfo
	for deadline := time.Now().Add(20 * time.Second); ; {
		listed = workJSON[[]apispec.ScheduleInfo](t, e, "GET", "/v1/schedules", nil, http.StatusOK)
		if slices.ContainsFunc(listed, func(s apispec.ScheduleInfo) bool { return s.Name == name }) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if i := slices.IndexFunc(listed, func(s apispec.ScheduleInfo) bool { return s.Name == name }); i < 0 {
		t.Errorf("GET /v1/schedules = %+v, lacks %s", listed, name)
	} else if listed[i].State != apispec.SchedulePaused || listed[i].TimeZone != "Europe/Moscow" {
		t.Errorf("listed %+v", listed[i])
	}

	// Unpause with no body at all, pause with a note.
	un := workJSON[apispec.ScheduleInfo](t, e, "POST", "/v1/schedules/"+name+"/unpause", nil, http.StatusOK)
	if un.State != apispec.ScheduleActive {
		t.Errorf("after unpause: state %q, want active", un.State)
	}
	p := workJSON[apispec.ScheduleInfo](t, e, "POST", "/v1/schedules/"+name+"/pause", map[string]string{"note": "why"}, http.StatusOK)
	if p.State != apispec.SchedulePaused || p.Note != "why" {
		t.Errorf("after pause: state %q note %q, want paused, why", p.State, p.Note)
	}
	e.wantError(t, "POST", "/v1/schedules/"+name+"/pause", `{"reason":"x"}`, http.StatusBadRequest, "unknown field", "reason")
	e.wantError(t, "POST", "/v1/schedules/nope/pause", nil, http.StatusNotFound, "nope")
	e.wantError(t, "POST", "/v1/schedules/nope/unpause", nil, http.StatusNotFound, "nope")
	e.wantError(t, "POST", "/v1/schedules/nope/trigger", nil, http.StatusNotFound, "nope")
	e.wantError(t, "GET", "/v1/schedules/nope", nil, http.StatusNotFound, "nope")
	e.wantError(t, "GET", "/v1/schedules/Bad_Name", nil, http.StatusBadRequest, "schedule name")

	// Trigger starts a digest run now (no worker: it stays running until terminated).
	started := workJSON[apispec.Started](t, e, "POST", "/v1/schedules/"+name+"/trigger", nil, http.StatusAccepted)
	if !strings.HasPrefix(started.WorkflowID, "asof-digest-"+name) {
		t.Errorf("triggered workflow id %q, want one starting asof-digest-%s", started.WorkflowID, name)
	} else {
		e.terminateAtEnd(t, started.WorkflowID)
		if st, _ := e.describe(t, started.WorkflowID); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			t.Errorf("triggered run is %s, want running", st)
		}
	}
	after := workJSON[apispec.ScheduleInfo](t, e, "GET", "/v1/schedules/"+name, nil, http.StatusOK)
	if after.Runs != 1 || after.LastRun == nil {
		t.Errorf("after the trigger: runs %d, last run %v; want 1 and a time", after.Runs, after.LastRun)
	}

	gone := workJSON[apispec.ScheduleInfo](t, e, "DELETE", "/v1/schedules/"+name, nil, http.StatusOK)
	if gone.Name != name || gone.Cron != "0 7 * * *" {
		t.Errorf("DELETE answered %+v, want the schedule deleted", gone)
	}
	e.wantError(t, "GET", "/v1/schedules/"+name, nil, http.StatusNotFound, name)
	e.wantError(t, "DELETE", "/v1/schedules/"+name, nil, http.StatusNotFound, name)
}

func workIndexBuild(t *testing.T, e *workEnv) {
	const name = "work-ix"
	const path = "/v1/indexes/" + name + "/build"
	id := "asof-index-" + name
	e.put(t, "corpora/work-a.parquet", []byte("PAR1 any bytes PAR1"))
	e.put(t, "corpora/work-b.parquet", []byte("PAR1 other bytes PAR1"))

	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"corpora/work-missing.parquet"}}, http.StatusBadRequest, "corpora/work-missing.parquet")
	e.wantError(t, "POST", "/v1/indexes/Bad_Name/build", map[string]any{"inputs": []string{"corpora/work-a.parquet"}}, http.StatusBadRequest, "index name", "Bad_Name")
	e.wantError(t, "POST", path, map[string]any{}, http.StatusBadRequest, "inputs")
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{}}, http.StatusBadRequest, "inputs")
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"../etc/passwd"}}, http.StatusBadRequest, "inputs", "../etc/passwd")
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"corpora/work-a.parquet"}, "append": true, "replace": true},
		http.StatusBadRequest, "append", "replace")
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"corpora/work-a.parquet"}, "period": "fortnight"}, http.StatusBadRequest, "period")
	e.wantError(t, "POST", path, `{"inputs":["corpora/work-a.parquet"]`, http.StatusBadRequest, "JSON")
	e.wantError(t, "GET", path, nil, http.StatusNotFound, name)
	if _, err := e.tc.DescribeWorkflowExecution(context.Background(), id, ""); err == nil {
		t.Fatalf("a refused request started workflow %s", id)
	}

	valid := map[string]any{"inputs": []string{"corpora/work-a.parquet"}, "period": "week"}
	started := workJSON[apispec.Started](t, e, "POST", path, valid, http.StatusAccepted)
	e.terminateAtEnd(t, id)
	if started.WorkflowID != id {
		t.Fatalf("started workflow %q, want %q", started.WorkflowID, id)
	}
	st, runID := e.describe(t, id)
	if st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Fatalf("build is %s, want running", st)
	}
	// The build was started with the request: its input list stored, naming the object.
	in := workIndexInput(t, e, id)
	if in.Index != name || in.Period != "week" || in.InputsKey == "" {
		t.Errorf("build input: index %q period %q inputs key %q", in.Index, in.Period, in.InputsKey)
	}
	if in.InputsKey != "" {
		data, err := blob.ReadAll(context.Background(), e.store, in.InputsKey)
		if err != nil {
			t.Fatalf("read the stored input list: %v", err)
		}
		var files []workflows.InputFile
		if err := json.Unmarshal(data, &files); err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Key != "corpora/work-a.parquet" || files[0].Name != "work-a.parquet" {
			t.Errorf("stored input list = %+v, want corpora/work-a.parquet", files)
		}
	}

	status := workJSON[apispec.Status](t, e, "GET", path, nil, http.StatusOK)
	if status.WorkflowID != id || status.Status != apispec.StatusRunning || status.Error != "" || len(status.Result) != 0 {
		t.Errorf("GET build = %+v, want %s running", status, id)
	}
	e.wantError(t, "GET", "/v1/indexes/work-other/build", nil, http.StatusNotFound, "work-other")

	// Another build of the index while this one runs: refused; the same one again: followed.
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"corpora/work-b.parquet"}, "period": "week"}, http.StatusConflict, id)
	e.wantError(t, "POST", path, map[string]any{"inputs": []string{"corpora/work-a.parquet"}, "period": "month"}, http.StatusConflict, id)
	again := workJSON[apispec.Started](t, e, "POST", path, valid, http.StatusAccepted)
	if again.WorkflowID != id {
		t.Errorf("the same build again: workflow %q, want %q", again.WorkflowID, id)
	}
	if st, r := e.describe(t, id); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || r != runID {
		t.Errorf("after the same build again: %s run %s, want the first run %s still running", st, r, runID)
	}

	// Delete while it builds: refused, nothing removed.
	workSeedIndex(t, e, name)
	e.wantError(t, "DELETE", "/v1/indexes/"+name, nil, http.StatusConflict, "being built", id)
	if !e.exists(t, layout.CurrentKey(name)) {
		t.Fatal("a refused delete removed the index's CURRENT")
	}
	// A purge while it builds: refused too, before any takedown starts.
	e.wantError(t, "DELETE", "/v1/indexes/"+name+"/docs/d1?reason=x&purge=true", nil, http.StatusConflict, "being built", "purge")
	// And a rollback.
	e.wantError(t, "POST", "/v1/indexes/"+name+"/rollback", map[string]any{"seq": 1}, http.StatusConflict, "being built", "roll back")

	// Terminated: the build is failed, and the index can go.
	e.terminate(t, id)
	status = workJSON[apispec.Status](t, e, "GET", path, nil, http.StatusOK)
	if status.Status != apispec.StatusFailed || status.Error == "" {
		t.Errorf("GET a terminated build = %+v, want failed with an error", status)
	}
	del := workJSON[apispec.DeletedIndex](t, e, "DELETE", "/v1/indexes/"+name, nil, http.StatusOK)
	if del.Index != name || del.Prefix != "indexes/"+name+"/" || del.Objects != 2 || del.Bytes <= 0 {
		t.Errorf("DELETE = %+v, want 2 objects under indexes/%s/", del, name)
	}
	if e.exists(t, layout.CurrentKey(name)) || e.exists(t, layout.ManifestKey(name, 1)) {
		t.Error("the deleted index's objects are still in the store")
	}
	if !e.exists(t, "corpora/work-a.parquet") {
		t.Error("deleting the index removed its input")
	}
	e.wantError(t, "DELETE", "/v1/indexes/"+name, nil, http.StatusNotFound, name)
	e.wantError(t, "DELETE", "/v1/indexes/Bad_Name", nil, http.StatusBadRequest, "index name")
}

func workEvals(t *testing.T, e *workEnv) {
	e.put(t, "evalsets/work-q.parquet", []byte("PAR1 questions PAR1"))
	e.put(t, "evalsets/work-r.parquet", []byte("PAR1 qrels PAR1"))
	judged := func(index string) map[string]any {
		return map[string]any{"index": index, "questions": "evalsets/work-q.parquet", "qrels": "evalsets/work-r.parquet"}
	}

	e.wantError(t, "POST", "/v1/evals", judged("work-nope"), http.StatusNotFound, "work-nope")
	both := judged("work-ev")
	both["queries"] = "evalsets/work-q.parquet"
	e.wantError(t, "POST", "/v1/evals", both, http.StatusBadRequest, "queries", "questions", "not both")
	e.wantError(t, "POST", "/v1/evals", map[string]any{"index": "work-ev", "questions": "evalsets/work-q.parquet"}, http.StatusBadRequest, "qrels")
	sys := judged("work-ev")
	sys["systems"] = []string{"no-such-system"}
	e.wantError(t, "POST", "/v1/evals", sys, http.StatusBadRequest, "systems", "no-such-system")
	neg := judged("work-ev")
	neg["limit"] = -1
	e.wantError(t, "POST", "/v1/evals", neg, http.StatusBadRequest, "limit")
	e.wantError(t, "POST", "/v1/evals", judged("Bad_Name"), http.StatusBadRequest, "index")
	missing := judged("work-ev")
	missing["qrels"] = "evalsets/work-missing.parquet"
	e.wantError(t, "POST", "/v1/evals", missing, http.StatusBadRequest, "evalsets/work-missing.parquet")

	// On a published index the evaluation starts; the same request again finds the same run.
	workSeedIndex(t, e, "work-ev")
	started := workJSON[apispec.Started](t, e, "POST", "/v1/evals", judged("work-ev"), http.StatusAccepted)
	if !strings.HasPrefix(started.WorkflowID, "asof-eval-") {
		t.Fatalf("eval workflow id %q, want asof-eval-…", started.WorkflowID)
	}
	e.terminateAtEnd(t, started.WorkflowID)
	_, runID := e.describe(t, started.WorkflowID)
	again := workJSON[apispec.Started](t, e, "POST", "/v1/evals", judged("work-ev"), http.StatusAccepted)
	if again.WorkflowID != started.WorkflowID {
		t.Errorf("the same eval again: %q, want %q", again.WorkflowID, started.WorkflowID)
	}
	if _, r := e.describe(t, started.WorkflowID); r != runID {
		t.Errorf("the same eval again started run %s, want the first run %s followed", r, runID)
	}
	status := workJSON[apispec.Status](t, e, "GET", "/v1/evals/"+started.WorkflowID, nil, http.StatusOK)
	if status.WorkflowID != started.WorkflowID || status.Status != apispec.StatusRunning {
		t.Errorf("GET eval = %+v, want running", status)
	}
	// Other inputs are another evaluation.
	other := judged("work-ev")
	other["limit"] = 5
	o := workJSON[apispec.Started](t, e, "POST", "/v1/evals", other, http.StatusAccepted)
	e.terminateAtEnd(t, o.WorkflowID)
	if o.WorkflowID == started.WorkflowID || !strings.HasPrefix(o.WorkflowID, "asof-eval-") {
		t.Errorf("an eval with a limit: workflow %q, want another asof-eval-… than %q", o.WorkflowID, started.WorkflowID)
	}
}

// workTakedowns checks the takedown endpoints' requests (the takedown itself runs through the
// worker in worker's TestTakeDownThroughRealServer): a reason is required, the index must exist,
// and an index's takedowns list as [] when it has none.
func workTakedowns(t *testing.T, e *workEnv) {
	e.wantError(t, "DELETE", "/v1/indexes/work-td/docs/d1", nil, http.StatusBadRequest, "reason")
	e.wantError(t, "DELETE", "/v1/indexes/work-td/docs/d1?reason=court+order", nil, http.StatusNotFound, "work-td")
	e.wantError(t, "DELETE", "/v1/indexes/Bad_Name/docs/d1?reason=x", nil, http.StatusBadRequest, "index name")
	e.wantError(t, "DELETE", "/v1/indexes/work-td/docs/d1?reason=x&purge=maybe", nil, http.StatusBadRequest, "purge")
	e.wantError(t, "GET", "/v1/indexes/work-td/takedowns", nil, http.StatusNotFound, "work-td")
	workSeedIndex(t, e, "work-td")
	// History and rollback: one manifest, the live one; a rollback to it or to none is refused.
	if h := workJSON[[]apispec.ManifestInfo](t, e, "GET", "/v1/indexes/work-td/history", nil, http.StatusOK); len(h) != 1 || !h[0].Live || h[0].Seq != 1 {
		t.Fatalf("history of a fresh index: %+v", h)
	}
	e.wantError(t, "GET", "/v1/indexes/work-none/history", nil, http.StatusNotFound, "work-none")
	e.wantError(t, "POST", "/v1/indexes/work-td/rollback", map[string]any{"seq": 0}, http.StatusBadRequest, "seq")
	e.wantError(t, "POST", "/v1/indexes/work-td/rollback", map[string]any{"seq": 1}, http.StatusBadRequest, "live manifest")
	e.wantError(t, "POST", "/v1/indexes/work-td/rollback", map[string]any{"seq": 7}, http.StatusBadRequest, "no manifest 7")
	if l := workJSON[[]schemas.Takedown](t, e, "GET", "/v1/indexes/work-td/takedowns", nil, http.StatusOK); l == nil || len(l) != 0 {
		t.Fatalf("takedowns of a fresh index: %v, want []", l)
	}
}
