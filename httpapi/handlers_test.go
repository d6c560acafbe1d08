package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/httpapi"
	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// testUI is the Config.UI of the handlers under test: a failed run's 500 must end with it.
const testUI = "in the Web UI at http://127.0.0.1:8233"

// newStore is an empty local store in the test's temporary folder.
func newStore(t *testing.T) blob.Bucket {
	t.Helper()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// put writes data at key.
func put(t *testing.T, b blob.Bucket, key string, data []byte) {
	t.Helper()
	if _, err := b.Put(context.Background(), key, bytes.NewReader(data)); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

// seedIndex publishes index: manifest 1 (no shards) and the CURRENT that names it, as a
// finished build leaves them.
func seedIndex(t *testing.T, b blob.Bucket, index string) schemas.Manifest {
	t.Helper()
	m := schemas.Manifest{
		Version: schemas.ManifestVersion, Index: index, Seq: 1,
		CreatedAt: time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC),
		Model:     schemas.ModelRef{ID: "test-model", SHA256: "abc123", Dim: 8},
		Period:    "month",
		Shards:    []schemas.ShardMeta{},
		Counts:    schemas.IndexCounts{Read: 12, Indexed: 10, Chunks: 40, Quarantined: map[string]int64{}},
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	put(t, b, layout.ManifestKey(index, 1), data)
	cur, err := json.Marshal(layout.Current{Manifest: layout.ManifestName(1), Seq: 1})
	if err != nil {
		t.Fatal(err)
	}
	put(t, b, layout.CurrentKey(index), cur)
	return m
}

// newHandler is the API over c and b, with token required when it is set.
func newHandler(t *testing.T, c client.Client, b blob.Bucket, token string) http.Handler {
	t.Helper()
	h, err := httpapi.New(httpapi.Config{Client: c, Bucket: b, Token: token, UI: testUI, Version: "test",
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// request is one call of the API.
type request struct {
	method, path, body string
	// contentType defaults to application/json for a request with a body ("-": none).
	contentType string
	// auth is the Authorization header ("": none).
	auth string
}

func serve(t *testing.T, h http.Handler, r request) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.path, body)
	switch {
	case r.contentType == "-":
	case r.contentType != "":
		req.Header.Set("Content-Type", r.contentType)
	case r.body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if r.auth != "" {
		req.Header.Set("Authorization", r.auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decodeJSON decodes the JSON body of rec, after checking its status and Content-Type.
func decodeJSON[T any](t *testing.T, rec *httptest.ResponseRecorder, status int) T {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json; body %s", ct, rec.Body)
	}
	var v T
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("body is not a %T: %v", v, err)
	}
	return v
}

// wantError checks that rec is an {"error": "..."} body with status whose message holds every
// one of parts.
func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, parts ...string) string {
	t.Helper()
	e := decodeJSON[apispec.ErrorBody](t, rec, status)
	if e.Error == "" {
		t.Fatalf("status %d with an empty error", status)
	}
	for _, p := range parts {
		if !strings.Contains(e.Error, p) {
			t.Errorf("error %q does not say %q", e.Error, p)
		}
	}
	return e.Error
}

// sameFunc reports whether the workflow a start was given is want.
func sameFunc(want any) func(any) bool {
	return func(got any) bool {
		return reflect.ValueOf(got).Kind() == reflect.Func && reflect.ValueOf(got).Pointer() == reflect.ValueOf(want).Pointer()
	}
}

// onStart expects one ExecuteWorkflow of wf whose options opts accepts and whose single input
// in accepts; the run it returns has the id the options gave, and its Get calls get (nil: no
// Get expected). It returns where the options are recorded.
func onStart[In any](t *testing.T, c *mocks.Client, wf any, opts func(client.StartWorkflowOptions) bool, in func(In) bool,
	get func(ctx context.Context, valuePtr any) error) *client.StartWorkflowOptions {
	t.Helper()
	var started client.StartWorkflowOptions
	c.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(opts), mock.MatchedBy(sameFunc(wf)), mock.MatchedBy(in)).
		Return(func(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
			started = o
			run := mocks.NewWorkflowRun(t)
			run.On("GetID").Return(o.ID).Maybe()
			if get != nil {
				run.On("Get", mock.Anything, mock.Anything).Return(get).Once()
			}
			return run, nil
		}).Once()
	return &started
}

// workflowFailure is the error a client's Get returns for a run that failed with msg: the
// SDK's test environment wraps it in a *temporal.WorkflowExecutionError, as a real client does.
func workflowFailure(t *testing.T, msg string) error {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(func(workflow.Context) error {
		return temporal.NewNonRetryableApplicationError(msg, "Test", nil)
	}, workflow.RegisterOptions{Name: "Ask"})
	env.ExecuteWorkflow("Ask")
	err := env.GetWorkflowError()
	var wee *temporal.WorkflowExecutionError
	if !errors.As(err, &wee) {
		t.Fatalf("the test environment returned %T (%v), not a WorkflowExecutionError", err, err)
	}
	return err
}

const goodAsk = `{"query":"what did the central bank decide?","index":"news","as_of":"2024-05-01","mode":"recency","k":3}`

// TestAskRunsTheWorkflow: a good POST /v1/ask starts the Ask workflow on asof's task queue,
// eagerly, under an ask id of its index, with the checked input, and answers what the run
// returned.
func TestAskRunsTheWorkflow(t *testing.T) {
	b := newStore(t)
	seedIndex(t, b, "news")
	c := mocks.NewClient(t)
	want := schemas.Answer{
		Version: 1, RunID: "asof-ask-news-x", Index: "news", ManifestSeq: 1, Query: "what did the central bank decide?",
		AsOf: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), Mode: "recency", Summary: "It held rates [1].",
		Results: []schemas.AnswerResult{{DocID: "d1", Source: "wire", Title: "Rates held"}},
	}
	started := onStart(t, c, workflows.Ask,
		func(o client.StartWorkflowOptions) bool {
			return strings.HasPrefix(o.ID, "asof-ask-news-") && o.TaskQueue == workflows.TaskQueue && o.EnableEagerStart
		},
		func(in workflows.AskInput) bool {
			return in.Index == "news" && in.Query == "what did the central bank decide?" && in.Mode == "recency" &&
				in.AsOf.Equal(want.AsOf) && !in.AsOfToday && in.Options != nil && in.Options.K == 3
		},
		func(_ context.Context, v any) error {
			p, ok := v.(*schemas.Answer)
			if !ok {
				return errors.New("Get was not given a *schemas.Answer")
			}
			*p = want
			return nil
		})

	rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/ask", body: goodAsk})
	got := decodeJSON[schemas.Answer](t, rec, http.StatusOK)
	if got.RunID != want.RunID || got.Summary != want.Summary || got.Index != "news" || !got.AsOf.Equal(want.AsOf) ||
		len(got.Results) != 1 || got.Results[0].DocID != "d1" || got.Results[0].Title != "Rates held" {
		t.Errorf("answer %+v, want %+v", got, want)
	}
	if rest := strings.TrimPrefix(started.ID, "asof-ask-news-"); len(rest) < len("20240501T000000.000Z-") {
		t.Errorf("ask id %q has no time and suffix after its index", started.ID)
	}
	c.AssertNumberOfCalls(t, "ExecuteWorkflow", 1)
}

// TestAskRefuses: a request the API refuses starts no workflow and answers an error body with
// the status that says why.
func TestAskRefuses(t *testing.T) {
	b := newStore(t)
	seedIndex(t, b, "news")
	put(t, b, layout.IndexKey("draft", "staging/s1/docs.parquet"), []byte("x")) // objects, no CURRENT
	tests := []struct {
		name   string
		req    request
		status int
		says   []string
	}{
		{name: "an index not in the store", req: request{body: `{"query":"q","index":"missing","as_of":"2024-05-01"}`},
			status: http.StatusNotFound, says: []string{`index "missing" does not exist`}},
		{name: "an index never published", req: request{body: `{"query":"q","index":"draft","as_of":"2024-05-01"}`},
			status: http.StatusNotFound, says: []string{`index "draft" does not exist`}},
		{name: "bad JSON", req: request{body: `{"query": nope}`},
			status: http.StatusBadRequest, says: []string{"bad JSON at byte"}},
		{name: "truncated JSON", req: request{body: `{"query":"q"`},
			status: http.StatusBadRequest, says: []string{"bad JSON"}},
		{name: "an unknown field", req: request{body: `{"query":"q","index":"news","as_of":"2024-05-01","asof":"x"}`},
			status: http.StatusBadRequest, says: []string{`unknown field "asof"`}},
		{name: "a field of the wrong type", req: request{body: `{"query":7,"index":"news","as_of":"2024-05-01"}`},
			status: http.StatusBadRequest, says: []string{"field query", "string"}},
		{name: "an empty body", req: request{body: "", contentType: "application/json"},
			status: http.StatusBadRequest, says: []string{"empty request body"}},
		{name: "two objects", req: request{body: goodAsk + goodAsk},
			status: http.StatusBadRequest, says: []string{"more than one value"}},
		{name: "data after the object", req: request{body: goodAsk + "]"},
			status: http.StatusBadRequest, says: []string{"data after the object"}},
		{name: "text/plain", req: request{body: goodAsk, contentType: "text/plain"},
			status: http.StatusUnsupportedMediaType, says: []string{`Content-Type "text/plain"`, "application/json"}},
		{name: "a form", req: request{body: "query=q", contentType: "application/x-www-form-urlencoded"},
			status: http.StatusUnsupportedMediaType, says: []string{"application/json"}},
		{name: "no Content-Type", req: request{body: goodAsk, contentType: "-"},
			status: http.StatusUnsupportedMediaType, says: []string{`Content-Type ""`}},
		{name: "a body over MaxBody", req: request{body: `{"query":"` + strings.Repeat("a", httpapi.MaxBody) + `","index":"news","as_of":"2024-05-01"}`},
			status: http.StatusRequestEntityTooLarge, says: []string{"larger than 65536 bytes"}},
		{name: "a body over MaxBody after the object", req: request{body: goodAsk + strings.Repeat(" ", httpapi.MaxBody)},
			status: http.StatusRequestEntityTooLarge, says: []string{"larger than 65536 bytes"}},
		{name: "no query", req: request{body: `{"index":"news","as_of":"2024-05-01"}`},
			status: http.StatusBadRequest, says: []string{"query is empty"}},
		{name: "a query of control characters only", req: request{body: `{"query":"\u001b\u0007","index":"news","as_of":"2024-05-01"}`},
			status: http.StatusBadRequest, says: []string{"query is empty"}},
		{name: "no day", req: request{body: `{"query":"q","index":"news"}`},
			status: http.StatusBadRequest, says: []string{"as_of is required"}},
		{name: "a day and today", req: request{body: `{"query":"q","index":"news","as_of":"2024-05-01","today":true}`},
			status: http.StatusBadRequest, says: []string{"as_of and today"}},
		{name: "a bad day", req: request{body: `{"query":"q","index":"news","as_of":"yesterday"}`},
			status: http.StatusBadRequest, says: []string{`as_of "yesterday" is not a date`}},
		{name: "a bad index name", req: request{body: `{"query":"q","index":"../etc","as_of":"2024-05-01"}`},
			status: http.StatusBadRequest, says: []string{"index", `"../etc"`}},
		{name: "an unknown mode", req: request{body: `{"query":"q","index":"news","as_of":"2024-05-01","mode":"recnecy"}`},
			status: http.StatusBadRequest, says: []string{`mode "recnecy"`}},
		{name: "an unknown judge", req: request{body: `{"query":"q","index":"news","as_of":"2024-05-01","judge":"oracle"}`},
			status: http.StatusBadRequest, says: []string{"judge", `"oracle"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mocks.NewClient(t)
			tc.req.method, tc.req.path = "POST", "/v1/ask"
			rec := serve(t, newHandler(t, c, b, ""), tc.req)
			wantError(t, rec, tc.status, tc.says...)
			c.AssertNotCalled(t, "ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
		})
	}
}

// TestAskFails: a run that fails, or cannot start, is a 500 that names the workflow (a failed
// run: its id and where to look) and its cause.
func TestAskFails(t *testing.T) {
	b := newStore(t)
	seedIndex(t, b, "news")
	askOpts := func(o client.StartWorkflowOptions) bool {
		return strings.HasPrefix(o.ID, "asof-ask-news-") && o.TaskQueue == workflows.TaskQueue
	}
	anyInput := func(workflows.AskInput) bool { return true }

	t.Run("a failed run", func(t *testing.T) {
		c := mocks.NewClient(t)
		failure := workflowFailure(t, "read manifest: the shard is gone")
		started := onStart(t, c, workflows.Ask, askOpts, anyInput, func(context.Context, any) error { return failure })
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/ask", body: goodAsk})
		msg := wantError(t, rec, http.StatusInternalServerError)
		if want := "ask news: read manifest: the shard is gone (see workflow " + started.ID + " " + testUI + ")"; msg != want {
			t.Errorf("error\n %q\nwant\n %q", msg, want)
		}
	})
	t.Run("a lost connection while waiting", func(t *testing.T) {
		c := mocks.NewClient(t)
		onStart(t, c, workflows.Ask, askOpts, anyInput, func(context.Context, any) error { return errors.New("connection reset") })
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/ask", body: goodAsk})
		wantError(t, rec, http.StatusInternalServerError, "ask news: connection reset")
	})
	t.Run("a start the server refuses", func(t *testing.T) {
		c := mocks.NewClient(t)
		c.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(askOpts), mock.Anything, mock.Anything).
			Return(nil, serviceerror.NewUnavailable("frontend down")).Once()
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/ask", body: goodAsk})
		wantError(t, rec, http.StatusInternalServerError, "start ask: frontend down")
	})
}

// TestStartDigest: POST /v1/digests starts the Digest workflow (not eagerly) under a digest id
// of its name and answers 202 with that id, without waiting; a refused request starts none.
func TestStartDigest(t *testing.T) {
	b := newStore(t)
	seedIndex(t, b, "news")
	t.Run("started", func(t *testing.T) {
		c := mocks.NewClient(t)
		started := onStart(t, c, workflows.Digest,
			func(o client.StartWorkflowOptions) bool {
				return strings.HasPrefix(o.ID, "asof-digest-morning-") && o.TaskQueue == workflows.TaskQueue && !o.EnableEagerStart
			},
			func(in workflows.DigestInput) bool {
				return in.Name == "morning" && in.Index == "news" && in.TimeZone == "Europe/Paris" &&
					in.AsOf.Equal(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)) &&
					len(in.Topics) == 2 && in.Topics[0].Query == "rates" && in.Topics[1].Query == "jobs"
			}, nil)
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/digests",
			body: `{"name":"morning","index":"news","topics":[{"query":"rates"},{"name":"Jobs","query":"jobs"}],"as_of":"2024-05-01","time_zone":"Europe/Paris"}`})
		got := decodeJSON[apispec.Started](t, rec, http.StatusAccepted)
		if got.WorkflowID == "" || got.WorkflowID != started.ID {
			t.Errorf("workflow_id %q, want the started id %q", got.WorkflowID, started.ID)
		}
	})
	t.Run("the default name", func(t *testing.T) {
		c := mocks.NewClient(t)
		onStart(t, c, workflows.Digest,
			func(o client.StartWorkflowOptions) bool { return strings.HasPrefix(o.ID, "asof-digest-digest-") },
			func(in workflows.DigestInput) bool {
				return in.Name == "digest" && in.TimeZone == "UTC" && in.AsOf.IsZero()
			}, nil)
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/digests",
			body: `{"index":"news","topics":[{"query":"rates"}],"today":true}`})
		if got := decodeJSON[apispec.Started](t, rec, http.StatusAccepted); !strings.HasPrefix(got.WorkflowID, "asof-digest-digest-") {
			t.Errorf("workflow_id %q", got.WorkflowID)
		}
	})
	tests := []struct {
		name, body  string
		contentType string
		status      int
		says        []string
	}{
		{name: "an index not in the store", body: `{"index":"missing","topics":[{"query":"rates"}],"as_of":"2024-05-01"}`,
			status: http.StatusNotFound, says: []string{`index "missing" does not exist`}},
		{name: "no topics", body: `{"index":"news","topics":[],"as_of":"2024-05-01"}`,
			status: http.StatusBadRequest, says: []string{"topics"}},
		{name: "no day", body: `{"index":"news","topics":[{"query":"rates"}]}`,
			status: http.StatusBadRequest, says: []string{"as_of is required"}},
		{name: "a bad time zone", body: `{"index":"news","topics":[{"query":"rates"}],"as_of":"2024-05-01","time_zone":"Mars/Olympus"}`,
			status: http.StatusBadRequest, says: []string{`time_zone "Mars/Olympus"`}},
		{name: "a bad name", body: `{"name":"Morning News","index":"news","topics":[{"query":"rates"}],"as_of":"2024-05-01"}`,
			status: http.StatusBadRequest, says: []string{"name", `"Morning News"`}},
		{name: "an unknown field", body: `{"index":"news","topic":[{"query":"rates"}],"as_of":"2024-05-01"}`,
			status: http.StatusBadRequest, says: []string{`unknown field "topic"`}},
		{name: "text/plain", body: `{"index":"news","topics":[{"query":"rates"}],"as_of":"2024-05-01"}`, contentType: "text/plain",
			status: http.StatusUnsupportedMediaType, says: []string{"application/json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mocks.NewClient(t)
			rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/digests", body: tc.body, contentType: tc.contentType})
			wantError(t, rec, tc.status, tc.says...)
			c.AssertNotCalled(t, "ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
		})
	}
}

// TestIndexes: GET /v1/indexes lists what the store holds (an empty list, not null, for none;
// an unpublished index with its problem), and GET /v1/indexes/{name} shows one or says 404/400.
// Neither touches Temporal.
func TestIndexes(t *testing.T) {
	empty := newStore(t)
	full := newStore(t)
	m := seedIndex(t, full, "news")
	put(t, full, layout.IndexKey("draft", "staging/s1/docs.parquet"), []byte("x"))

	t.Run("an empty store", func(t *testing.T) {
		rec := serve(t, newHandler(t, mocks.NewClient(t), empty, ""), request{method: "GET", path: "/v1/indexes"})
		if body := strings.TrimSpace(rec.Body.String()); body != "[]" {
			t.Errorf("body %q, want []", body)
		}
		if got := decodeJSON[[]catalog.Index](t, rec, http.StatusOK); got == nil || len(got) != 0 {
			t.Errorf("indexes %+v, want []", got)
		}
	})
	t.Run("two indexes", func(t *testing.T) {
		rec := serve(t, newHandler(t, mocks.NewClient(t), full, ""), request{method: "GET", path: "/v1/indexes"})
		got := decodeJSON[[]catalog.Index](t, rec, http.StatusOK)
		if len(got) != 2 {
			t.Fatalf("indexes %+v, want draft and news", got)
		}
		draft, news := got[0], got[1]
		if draft.Name != "draft" || !strings.Contains(draft.Problem, "no published manifest") || draft.Objects != 1 {
			t.Errorf("draft %+v", draft)
		}
		if news.Name != "news" || news.Problem != "" || news.Model != m.Model.ID || news.Documents != m.Counts.Indexed ||
			news.Chunks != m.Counts.Chunks || news.ManifestSeq != 1 || news.Objects != 2 || !news.BuiltAt.Equal(m.CreatedAt) {
			t.Errorf("news %+v", news)
		}
		if news.Counts != nil || news.ModelSHA256 != "" {
			t.Errorf("the list has the detail of news: %+v", news)
		}
	})
	t.Run("one index", func(t *testing.T) {
		rec := serve(t, newHandler(t, mocks.NewClient(t), full, ""), request{method: "GET", path: "/v1/indexes/news"})
		got := decodeJSON[catalog.Index](t, rec, http.StatusOK)
		if got.Name != "news" || got.ManifestSeq != 1 || got.Model != "test-model" || got.ModelSHA256 != "abc123" || got.ModelDim != 8 ||
			got.Counts == nil || got.Counts.Indexed != 10 || got.Counts.Read != 12 || got.Period != "month" {
			t.Errorf("index %+v", got)
		}
	})
	for _, tc := range []struct {
		name, path string
		status     int
		says       []string
	}{
		{name: "an unknown index", path: "/v1/indexes/missing", status: http.StatusNotFound, says: []string{`no index named "missing"`, "GET /v1/indexes"}},
		{name: "an upper-case name", path: "/v1/indexes/News", status: http.StatusBadRequest, says: []string{"index name", `"News"`}},
		{name: "a name with a space", path: "/v1/indexes/a%20b", status: http.StatusBadRequest, says: []string{"index name", `"a b"`}},
		{name: "a name too long", path: "/v1/indexes/" + strings.Repeat("a", 64), status: http.StatusBadRequest, says: []string{"index name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(t, newHandler(t, mocks.NewClient(t), full, ""), request{method: "GET", path: tc.path})
			wantError(t, rec, tc.status, tc.says...)
		})
	}
}

// describe is the DescribeWorkflowExecution answer of a run in status.
func describe(status enums.WorkflowExecutionStatus) *workflowservice.DescribeWorkflowExecutionResponse {
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: status}}
}

// TestGetEval: GET /v1/evals/{workflow_id} reports an eval run's state from Temporal, with its
// result once completed and its error once failed.
func TestGetEval(t *testing.T) {
	const id = "asof-eval-0123456789abcdef"
	b := newStore(t)
	result := json.RawMessage(`{"eval_id":"0123456789abcdef","recall_at_10":0.9}`)
	// getResult expects the result to be read: Get fills it, or fails with err.
	getResult := func(t *testing.T, c *mocks.Client, err error) {
		run := mocks.NewWorkflowRun(t)
		run.On("Get", mock.Anything, mock.Anything).Return(func(_ context.Context, v any) error {
			if err != nil {
				return err
			}
			p, ok := v.(*json.RawMessage)
			if !ok {
				return errors.New("Get was not given a *json.RawMessage")
			}
			*p = append(json.RawMessage(nil), result...)
			return nil
		}).Once()
		c.On("GetWorkflow", mock.Anything, id, "").Return(run).Once()
	}
	tests := []struct {
		name   string
		path   string
		setup  func(*testing.T, *mocks.Client)
		status int
		says   []string // the error's parts, for a 4xx/5xx
		want   apispec.Status
	}{
		{name: "not an eval's id", path: "/v1/evals/asof-ask-news-1", status: http.StatusBadRequest, says: []string{`"asof-ask-news-1"`, "asof-eval-"}},
		{name: "the eval prefix alone", path: "/v1/evals/asof-eval-", status: http.StatusBadRequest, says: []string{"asof-eval-"}},
		{name: "unknown", path: "/v1/evals/" + id, status: http.StatusNotFound, says: []string{`no workflow "` + id + `"`},
			setup: func(_ *testing.T, c *mocks.Client) {
				c.On("DescribeWorkflowExecution", mock.Anything, id, "").Return(nil, serviceerror.NewNotFound("workflow not found")).Once()
			}},
		{name: "Temporal unavailable", path: "/v1/evals/" + id, status: http.StatusInternalServerError, says: []string{"describe workflow " + id, "frontend down"},
			setup: func(_ *testing.T, c *mocks.Client) {
				c.On("DescribeWorkflowExecution", mock.Anything, id, "").Return(nil, serviceerror.NewUnavailable("frontend down")).Once()
			}},
		{name: "running", path: "/v1/evals/" + id, status: http.StatusOK, want: apispec.Status{WorkflowID: id, Status: apispec.StatusRunning},
			setup: func(_ *testing.T, c *mocks.Client) {
				c.On("DescribeWorkflowExecution", mock.Anything, id, "").Return(describe(enums.WORKFLOW_EXECUTION_STATUS_RUNNING), nil).Once()
			}},
		{name: "completed", path: "/v1/evals/" + id, status: http.StatusOK, want: apispec.Status{WorkflowID: id, Status: apispec.StatusCompleted, Result: result},
			setup: func(t *testing.T, c *mocks.Client) {
				c.On("DescribeWorkflowExecution", mock.Anything, id, "").Return(describe(enums.WORKFLOW_EXECUTION_STATUS_COMPLETED), nil).Once()
				getResult(t, c, nil)
			}},
		{name: "failed", path: "/v1/evals/" + id, status: http.StatusOK, want: apispec.Status{WorkflowID: id, Status: apispec.StatusFailed, Error: "batch 3: judge timed out"},
			setup: func(t *testing.T, c *mocks.Client) {
				c.On("DescribeWorkflowExecution", mock.Anything, id, "").Return(describe(enums.WORKFLOW_EXECUTION_STATUS_FAILED), nil).Once()
				getResult(t, c, errors.New("batch 3: judge timed out"))
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mocks.NewClient(t)
			if tc.setup != nil {
				tc.setup(t, c)
			}
			rec := serve(t, newHandler(t, c, b, ""), request{method: "GET", path: tc.path})
			if tc.status != http.StatusOK {
				wantError(t, rec, tc.status, tc.says...)
				if tc.setup == nil {
					c.AssertNotCalled(t, "DescribeWorkflowExecution", mock.Anything, mock.Anything, mock.Anything)
				}
				return
			}
			got := decodeJSON[apispec.Status](t, rec, http.StatusOK)
			if got.WorkflowID != tc.want.WorkflowID || got.Status != tc.want.Status || got.Error != tc.want.Error {
				t.Errorf("status %+v, want %+v", got, tc.want)
			}
			if string(got.Result) != string(tc.want.Result) {
				t.Errorf("result %s, want %s", got.Result, tc.want.Result)
			}
		})
	}
}

// TestBearerToken: with a token set, every /v1 request needs it (401 with a challenge
// otherwise, and nothing runs); the page at / does not.
func TestBearerToken(t *testing.T) {
	const token = "s3cret-t0ken"
	b := newStore(t)
	seedIndex(t, b, "news")
	tests := []struct {
		name   string
		req    request
		status int
	}{
		{name: "no token", req: request{method: "GET", path: "/v1/indexes"}, status: http.StatusUnauthorized},
		{name: "a wrong token", req: request{method: "GET", path: "/v1/indexes", auth: "Bearer nope"}, status: http.StatusUnauthorized},
		{name: "a prefix of the token", req: request{method: "GET", path: "/v1/indexes", auth: "Bearer " + token[:4]}, status: http.StatusUnauthorized},
		{name: "the token with another scheme", req: request{method: "GET", path: "/v1/indexes", auth: "Basic " + token}, status: http.StatusUnauthorized},
		{name: "the bare token", req: request{method: "GET", path: "/v1/indexes", auth: token}, status: http.StatusUnauthorized},
		{name: "an ask without it", req: request{method: "POST", path: "/v1/ask", body: goodAsk}, status: http.StatusUnauthorized},
		{name: "an unknown path without it", req: request{method: "GET", path: "/v1/nope"}, status: http.StatusUnauthorized},
		{name: "the openapi document without it", req: request{method: "GET", path: "/v1/openapi.json"}, status: http.StatusUnauthorized},
		{name: "the right token", req: request{method: "GET", path: "/v1/indexes", auth: "Bearer " + token}, status: http.StatusOK},
		{name: "the page", req: request{method: "GET", path: "/"}, status: http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mocks.NewClient(t)
			rec := serve(t, newHandler(t, c, b, token), tc.req)
			switch {
			case tc.status == http.StatusUnauthorized:
				wantError(t, rec, http.StatusUnauthorized, "bearer token")
				if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer ") {
					t.Errorf("WWW-Authenticate %q", got)
				}
				c.AssertNotCalled(t, "ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
			case tc.req.path == "/v1/indexes":
				if got := decodeJSON[[]catalog.Index](t, rec, tc.status); len(got) != 1 || got[0].Name != "news" {
					t.Errorf("indexes %+v", got)
				}
			default:
				if rec.Code != tc.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
					t.Errorf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
				}
			}
		})
	}
	t.Run("the right token on an ask (application/json with a charset)", func(t *testing.T) {
		c := mocks.NewClient(t)
		onStart(t, c, workflows.Ask, func(o client.StartWorkflowOptions) bool { return strings.HasPrefix(o.ID, "asof-ask-news-") },
			func(workflows.AskInput) bool { return true },
			func(_ context.Context, v any) error { v.(*schemas.Answer).RunID = "asof-ask-news-1"; return nil })
		rec := serve(t, newHandler(t, c, b, token), request{method: "POST", path: "/v1/ask", body: goodAsk, auth: "Bearer " + token,
			contentType: "application/json; charset=utf-8"})
		if got := decodeJSON[schemas.Answer](t, rec, http.StatusOK); got.RunID != "asof-ask-news-1" {
			t.Errorf("answer %+v", got)
		}
	})
}

// TestUnknownPath: a /v1 path no operation has is a JSON 404 that names it; so is a known path
// with a method it does not take.
func TestUnknownPath(t *testing.T) {
	h := newHandler(t, mocks.NewClient(t), newStore(t), "")
	for _, tc := range []struct{ method, path string }{
		{"GET", "/v1/nope"},
		{"GET", "/v1/"},
		{"GET", "/v1/indexes/news/shards"},
		{"PUT", "/v1/indexes/news"},
		{"GET", "/v1/ask"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := serve(t, h, request{method: tc.method, path: tc.path})
			wantError(t, rec, http.StatusNotFound, "no endpoint "+tc.method+" "+tc.path, "/v1/openapi.json")
		})
	}
}

const goodTimeline = `{"index":"news","topic":"Libia","as_of":"2011-09-01","dates":5}`

// TestTimelineRunsTheWorkflow: a good POST /v1/timeline starts the Timeline workflow under a
// timeline id of its index, with the checked input, and answers what the run returned; a bad
// one starts nothing.
func TestTimelineRunsTheWorkflow(t *testing.T) {
	b := newStore(t)
	seedIndex(t, b, "news")
	c := mocks.NewClient(t)
	day := time.Date(2011, 9, 1, 0, 0, 0, 0, time.UTC)
	want := schemas.Timeline{Version: 1, RunID: "asof-timeline-news-x", Index: "news", Topic: "Libia", AsOf: day,
		Entries: []schemas.TimelineEntry{{Day: time.Date(2011, 8, 23, 0, 0, 0, 0, time.UTC), Text: "Los rebeldes toman Trípoli."}}}
	onStart(t, c, workflows.Timeline,
		func(o client.StartWorkflowOptions) bool {
			return strings.HasPrefix(o.ID, "asof-timeline-news-") && o.TaskQueue == workflows.TaskQueue
		},
		func(in workflows.TimelineInput) bool {
			return in.Index == "news" && in.Topic == "Libia" && in.AsOf.Equal(day) && in.Dates == 5
		},
		func(_ context.Context, v any) error {
			p, ok := v.(*schemas.Timeline)
			if !ok {
				return errors.New("Get was not given a *schemas.Timeline")
			}
			*p = want
			return nil
		})
	rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/timeline", body: goodTimeline})
	got := decodeJSON[schemas.Timeline](t, rec, http.StatusOK)
	if got.RunID != want.RunID || len(got.Entries) != 1 || got.Entries[0].Text != want.Entries[0].Text {
		t.Errorf("timeline %+v, want %+v", got, want)
	}
	for _, bad := range []struct{ body, says string }{
		{`{"index":"news","topic":"","as_of":"2011-09-01"}`, "topic is empty"},
		{`{"index":"news","topic":"Libia"}`, "as_of is required"},
		{`{"index":"news","topic":"Libia","as_of":"2011-09-01","from":"2011-10-01"}`, "from 2011-10-01 is after as_of"},
		{`{"index":"news","topic":"Libia","as_of":"2011-09-01","sentences":9}`, "sentences 9"},
	} {
		c := mocks.NewClient(t)
		rec := serve(t, newHandler(t, c, b, ""), request{method: "POST", path: "/v1/timeline", body: bad.body})
		wantError(t, rec, http.StatusBadRequest, bad.says)
		c.AssertNotCalled(t, "ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
	}
}
