package rerank_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/internal/rerank/reranktest"
)

// testKey is distinctive so that any leak into an error message is found.
const (
	testKeyEnv = "ASOF_RERANK_TEST_KEY"
	testKey    = "sk-asof-rerank-test-7c2e9a"
)

var docs = []string{
	"Weather in Paris today",
	"The central bank raised interest rates",
	"Central bank holds rates; the bank's governor speaks",
	"Football results",
}

const query = "central bank rates"

// want are reranktest.Overlap's scores of docs for query.
var want = []float64{0, 3, 3, 0}

func newClient(t *testing.T, srv *reranktest.Server, api string, mod func(*rerank.ClientConfig)) *rerank.Client {
	t.Helper()
	t.Setenv(testKeyEnv, testKey)
	cfg := rerank.ClientConfig{BaseURL: srv.URL, API: api, Model: "test-reranker", APIKeyEnv: testKeyEnv,
		Timeout: 2 * time.Second, Backoff: 10 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	c, err := rerank.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// TestClientProtocols checks each request shape against a server speaking it: the fields
// sent, the bearer key, and the scores put back in document order from a best-first reply.
func TestClientProtocols(t *testing.T) {
	tests := []struct {
		name, api string
		check     func(t *testing.T, r reranktest.Request)
	}{
		{"cohere", rerank.APICohere, func(t *testing.T, r reranktest.Request) {
			if r.Model != "test-reranker" || r.TopN != len(docs) {
				t.Errorf("model %q top_n %d, want test-reranker and %d", r.Model, r.TopN, len(docs))
			}
		}},
		{"voyage (top_k, reply under data)", rerank.APIVoyage, func(t *testing.T, r reranktest.Request) {
			if r.Model != "test-reranker" || r.TopN != len(docs) {
				t.Errorf("model %q top_k %d, want test-reranker and %d", r.Model, r.TopN, len(docs))
			}
		}},
		{"tei", rerank.APITEI, func(t *testing.T, r reranktest.Request) {
			if r.Model != "" || r.RawScores {
				t.Errorf("model %q raw_scores %v, want none and false", r.Model, r.RawScores)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := reranktest.New(t, tc.api)
			c := newClient(t, srv, tc.api, nil)
			got, err := c.Rerank(context.Background(), query, docs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("scores %v, want %v", got, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Query != query || !slices.Equal(r.Docs, docs) {
				t.Errorf("sent query %q docs %q", r.Query, r.Docs)
			}
			if r.Authorization != "Bearer "+testKey {
				t.Errorf("Authorization %q, want the bearer key", r.Authorization)
			}
			tc.check(t, r)
		})
	}
}

// TestClientBatches checks that TEI gets at most 32 texts a request by default (its
// --max-client-batch-size) and that the scores of every batch land in document order.
func TestClientBatches(t *testing.T) {
	srv := reranktest.New(t, rerank.APITEI)
	srv.SetScore(func(_, doc string) float64 {
		var n float64
		fmt.Sscanf(doc, "doc %g", &n)
		return n
	})
	c := newClient(t, srv, rerank.APITEI, nil)
	var in []string
	for i := range 70 {
		in = append(in, fmt.Sprintf("doc %d", i))
	}
	got, err := c.Rerank(context.Background(), "q", in)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s != float64(i) {
			t.Fatalf("score %d is %v, want %d", i, s, i)
		}
	}
	var sizes []int
	for _, r := range srv.Requests() {
		sizes = append(sizes, len(r.Docs))
	}
	if !slices.Equal(sizes, []int{32, 32, 6}) {
		t.Errorf("request sizes %v, want [32 32 6]", sizes)
	}
}

// TestClientFaults injects faults: what is retried, what is not, and how each error reads.
func TestClientFaults(t *testing.T) {
	status := func(code int, body string, header ...string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	body := func(s string) func(http.ResponseWriter) { return status(200, s) }
	tests := []struct {
		name string
		api  string
		// fail answers these requests (1-based); later ones are answered normally.
		fail     map[int]func(http.ResponseWriter)
		requests int
		kind     error // nil: success
		contains []string
		// minWait is the least time the call must take (a Retry-After honoured).
		minWait time.Duration
	}{
		{name: "500 then success is retried", api: rerank.APICohere,
			fail: map[int]func(http.ResponseWriter){1: status(500, `{"message":"overloaded"}`)}, requests: 2},
		{name: "502 and 503 then success (tei)", api: rerank.APITEI,
			fail: map[int]func(http.ResponseWriter){1: status(502, "bad gateway"), 2: status(503, `{"error":"loading"}`)}, requests: 3},
		{name: "429 with Retry-After waits as asked", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: status(429, `{"message":"slow down"}`, "Retry-After", "1")},
			requests: 2, minWait: time.Second},
		{name: "400 is not retried and names the server", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: status(400, `{"message":"model \"nope\" not found"}`)},
			requests: 1, kind: llm.ErrConfig, contains: []string{"/rerank", "status 400", `model "nope" not found`, "rerank.model"}},
		{name: "401 is not retried", api: rerank.APITEI,
			fail:     map[int]func(http.ResponseWriter){1: status(401, `{"error":"bad key `+testKey+`"}`)},
			requests: 1, kind: llm.ErrConfig, contains: []string{"status 401", "[redacted]"}},
		{name: "500 every time gives up after the attempts", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: status(500, "x"), 2: status(500, "x"), 3: status(500, "x"), 4: status(500, "boom")},
			requests: 4, kind: llm.ErrServer, contains: []string{"status 500", "boom", "after 4 attempts"}},
		{name: "malformed body", api: rerank.APICohere, fail: map[int]func(http.ResponseWriter){1: body(`{"results": [{"index": 0,`)},
			requests: 1, kind: llm.ErrBadResponse, contains: []string{"not {\"results\"", "rerank.api"}},
		{name: "tei shape from a cohere server", api: rerank.APITEI, fail: map[int]func(http.ResponseWriter){1: body(`{"results": []}`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"TEI's list", "rerank.api"}},
		{name: "neither results nor data", api: rerank.APICohere, fail: map[int]func(http.ResponseWriter){1: body(`{"scores": [1,2,3,4]}`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"neither"}},
		{name: "index out of range", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: body(`{"results":[{"index":0,"relevance_score":1},{"index":1,"relevance_score":1},{"index":2,"relevance_score":1},{"index":4,"relevance_score":1}]}`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"index 4 out of range for 4 documents"}},
		{name: "negative index (tei)", api: rerank.APITEI, fail: map[int]func(http.ResponseWriter){1: body(`[{"index":-1,"score":1}]`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"index -1 out of range"}},
		{name: "duplicate index", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: body(`{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":1},{"index":2,"relevance_score":1},{"index":3,"relevance_score":1}]}`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"duplicate index 0"}},
		{name: "fewer scores than documents", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: body(`{"results":[{"index":0,"relevance_score":1},{"index":2,"relevance_score":1}]}`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"2 scores for 4 documents (index 1 missing)"}},
		{name: "missing score", api: rerank.APITEI,
			fail:     map[int]func(http.ResponseWriter){1: body(`[{"index":0,"relevance_score":1}]`)},
			requests: 1, kind: llm.ErrInvalidReply, contains: []string{"has no score"}},
		{name: "non-finite score", api: rerank.APICohere,
			fail:     map[int]func(http.ResponseWriter){1: body(`{"results":[{"index":0,"relevance_score":NaN}]}`)},
			requests: 1, kind: llm.ErrBadResponse},
		{name: "a number too large for float64", api: rerank.APITEI,
			fail:     map[int]func(http.ResponseWriter){1: body(`[{"index":0,"score":1e999}]`)},
			requests: 1, kind: llm.ErrInvalidReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := reranktest.New(t, tc.api)
			srv.SetFault(func(n int, _ reranktest.Request, w http.ResponseWriter) bool {
				if f := tc.fail[n]; f != nil {
					f(w)
					return true
				}
				return false
			})
			c := newClient(t, srv, tc.api, nil)
			began := time.Now()
			got, err := c.Rerank(context.Background(), query, docs)
			took := time.Since(began)
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.kind == nil {
				if err != nil {
					t.Fatalf("err %v, want success", err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("scores %v, want %v", got, want)
				}
				if took < tc.minWait {
					t.Errorf("took %v, want at least %v (Retry-After)", took, tc.minWait)
				}
				return
			}
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err %v, want %v", err, tc.kind)
			}
			msg := err.Error()
			if !strings.Contains(msg, srv.URL+"/rerank") {
				t.Errorf("error %q does not name the server", msg)
			}
			for _, s := range tc.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
			if strings.Contains(msg, testKey) {
				t.Errorf("error %q leaks the key", msg)
			}
		})
	}
}

// TestClientTimeout checks that a server that does not answer is given up on after the
// timeout of each attempt, retried, and reported as a server error.
func TestClientTimeout(t *testing.T) {
	srv := reranktest.New(t, rerank.APICohere)
	srv.SetFault(func(_ int, _ reranktest.Request, w http.ResponseWriter) bool {
		time.Sleep(2 * time.Second) // the handler outlives the client's timeout
		return false
	})
	c := newClient(t, srv, rerank.APICohere, func(c *rerank.ClientConfig) {
		c.Timeout, c.Attempts = 150*time.Millisecond, 2
	})
	began := time.Now()
	_, err := c.Rerank(context.Background(), query, docs)
	took := time.Since(began)
	if !errors.Is(err, llm.ErrServer) || !strings.Contains(err.Error(), "no answer within 150ms") {
		t.Fatalf("err %v, want a server error saying it timed out", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (retried once)", n)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("took %v: the timeout did not bound the call", took)
	}
}

// TestClientCallerCancel checks that the caller's cancellation stops the retries at once.
func TestClientCallerCancel(t *testing.T) {
	srv := reranktest.New(t, rerank.APICohere)
	srv.SetFault(func(_ int, _ reranktest.Request, w http.ResponseWriter) bool {
		w.WriteHeader(503)
		return true
	})
	c := newClient(t, srv, rerank.APICohere, func(c *rerank.ClientConfig) { c.Backoff = 5 * time.Second })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := c.Rerank(ctx, query, docs)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the caller's deadline", err)
	}
	if time.Since(began) > 2*time.Second {
		t.Errorf("the backoff outlived the caller's deadline")
	}
}

// TestClientConfig checks validation: what is refused, naming no key.
func TestClientConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  rerank.ClientConfig
		want string // "" valid
	}{
		{"cohere", rerank.ClientConfig{BaseURL: "http://127.0.0.1:8000/v1", Model: "m"}, ""},
		{"tei needs no model", rerank.ClientConfig{BaseURL: "http://127.0.0.1:8080", API: "tei"}, ""},
		{"no url", rerank.ClientConfig{Model: "m"}, "base URL"},
		{"ftp", rerank.ClientConfig{BaseURL: "ftp://x", Model: "m"}, "http or https"},
		{"credentials in url", rerank.ClientConfig{BaseURL: "http://u:p@x", Model: "m"}, "credentials"},
		{"cohere needs a model", rerank.ClientConfig{BaseURL: "http://x"}, "needs a model"},
		{"unknown api", rerank.ClientConfig{BaseURL: "http://x", Model: "m", API: "openai"}, `api "openai"`},
		{"a key in api_key_env", rerank.ClientConfig{BaseURL: "http://x", Model: "m", APIKeyEnv: "sk-123-abc"}, "not an environment variable name"},
		{"negative timeout", rerank.ClientConfig{BaseURL: "http://x", Model: "m", Timeout: -1}, "negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, llm.ErrConfig) {
				t.Fatalf("err %v, want ErrConfig mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-123") {
				t.Errorf("error echoes api_key_env: %v", err)
			}
		})
	}
}

// TestClientDescribe names the server and the key's variable, never the key.
func TestClientDescribe(t *testing.T) {
	srv := reranktest.New(t, rerank.APICohere)
	d := newClient(t, srv, rerank.APICohere, nil).Describe()
	for _, s := range []string{srv.URL + "/rerank", `"test-reranker"`, "api cohere", "$" + testKeyEnv} {
		if !strings.Contains(d, s) {
			t.Errorf("Describe %q lacks %q", d, s)
		}
	}
	if strings.Contains(d, testKey) {
		t.Errorf("Describe leaks the key: %q", d)
	}
}
