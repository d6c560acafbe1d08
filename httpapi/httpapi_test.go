package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// fakeClient starts no workflow: it keeps the input of each start, and an Ask "answers" with
// an answer that repeats its input's query (as the Ask workflow stores it).
type fakeClient struct {
	client.Client
	started []any
}

func (c *fakeClient) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, args ...any) (client.WorkflowRun, error) {
	c.started = append(c.started, args[0])
	run := fakeRun{id: o.ID}
	if in, ok := args[0].(workflows.AskInput); ok {
		run.ans = schemas.Answer{RunID: o.ID, Index: in.Index, Query: in.Query, AsOf: in.AsOf}
	}
	return run, nil
}

type fakeRun struct {
	client.WorkflowRun
	id  string
	ans schemas.Answer
}

func (r fakeRun) GetID() string { return r.id }

func (r fakeRun) Get(_ context.Context, v any) error {
	*v.(*schemas.Answer) = r.ans
	return nil
}

// controlChar reports whether r is a C0 or C1 control character (tab and line breaks
// included) or a bidirectional override or isolate.
func controlChar(r rune) bool {
	return r < ' ' || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// TestRequestsLoseControlCharacters: a question posted with terminal escape sequences (clear
// the screen, set the window title), a C1 CSI and a bidi override reaches the Ask workflow,
// and so the stored answer and `asof answers list`, without them, and the 200 answer holds
// none; a digest's topic names and queries are cleaned the same way.
func TestRequestsLoseControlCharacters(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, layout.CurrentKey("news"), strings.NewReader(`{"manifest":"manifest-000001.json","seq":1}`)); err != nil {
		t.Fatal(err)
	}
	fc := &fakeClient{}
	h, err := New(Config{Client: fc, Bucket: b, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(path, body string) (int, []byte) {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, data
	}

	code, data := post("/v1/ask", `{"index":"news","as_of":"2026-03-31","query":"key rate \u001b[2J\u001b]0;API-TITLE\u0007 via\tapi \u009b31m\u202e"}`)
	if code != http.StatusOK {
		t.Fatalf("POST /v1/ask: %d %s", code, data)
	}
	const wantQuery = "key rate [2J]0;API-TITLE via api 31m"
	if len(fc.started) != 1 {
		t.Fatalf("%d workflows started, want 1", len(fc.started))
	}
	if in := fc.started[0].(workflows.AskInput); in.Query != wantQuery {
		t.Errorf("the Ask workflow got query %q, want %q", in.Query, wantQuery)
	}
	var ans schemas.Answer
	if err := json.Unmarshal(data, &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Query != wantQuery || strings.ContainsFunc(ans.Query, controlChar) {
		t.Errorf("the answer's query is %q, want %q", ans.Query, wantQuery)
	}

	code, data = post("/v1/digests", `{"index":"news","as_of":"2026-03-31","topics":[{"name":"Rates\u001b[2J\u009b","query":"key rate\u001b]0;T\u0007\r\nnow"}]}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /v1/digests: %d %s", code, data)
	}
	in := fc.started[1].(workflows.DigestInput)
	if len(in.Topics) != 1 || in.Topics[0].Name != "Rates[2J" || in.Topics[0].Query != "key rate]0;T  now" {
		t.Errorf("the Digest workflow got topics %q", in.Topics)
	}
}
