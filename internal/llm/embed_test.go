package llm_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed/embedtest"
	"github.com/asofrag/asof/internal/llm"
)

func TestEmbedSuccess(t *testing.T) {
	three := []string{"first text", "the second one", "third"}
	tests := []struct {
		name      string
		inputs    []string
		extra     map[string]any
		reply     embedtest.Reply
		wantExtra map[string]any
	}{
		{name: "no extra", inputs: three},
		{name: "one input", inputs: []string{"alone here"}},
		{name: "input_type", inputs: three, extra: map[string]any{"input_type": "passage"}, wantExtra: map[string]any{"input_type": "passage"}},
		{
			name: "several extra fields", inputs: three,
			extra:     map[string]any{"truncate": "END", "input_type": "query", "dimensions": 16},
			wantExtra: map[string]any{"truncate": "END", "input_type": "query", "dimensions": float64(16)},
		},
		{name: "shuffled reply", inputs: three, reply: embedtest.Reply{Shuffle: true}},
		{name: "larger vectors", inputs: three, reply: embedtest.Reply{Dim: 384}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply }, embedtest.WithAPIKey(testKey))
			c := newClient(t, srv.URL(), nil)

			vecs, usage, err := c.Embed(context.Background(), tt.inputs, tt.extra)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			dim := max(tt.reply.Dim, embedtest.DefaultDim)
			words := 0
			for i, in := range tt.inputs {
				if !reflect.DeepEqual(vecs[i], embedtest.Vector(in, dim)) {
					t.Errorf("vector %d is not the one of %q", i, in)
				}
				words += len(strings.Fields(in))
			}
			if len(vecs) != len(tt.inputs) {
				t.Errorf("%d vectors for %d inputs", len(vecs), len(tt.inputs))
			}
			if want := (llm.Usage{PromptTokens: words}); usage != want {
				t.Errorf("usage = %+v, want %+v", usage, want)
			}

			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Model != "test-model" || !reflect.DeepEqual(req.Input, tt.inputs) || req.EncodingFormat != "float" {
				t.Errorf("request model %q input %q encoding_format %q", req.Model, req.Input, req.EncodingFormat)
			}
			if !reflect.DeepEqual(req.Extra, tt.wantExtra) {
				t.Errorf("extra fields = %v, want %v", req.Extra, tt.wantExtra)
			}
			if req.Authorization != "Bearer "+testKey {
				t.Errorf("Authorization = %q, want Bearer <key>", req.Authorization)
			}
			if strings.Contains(string(req.Body), testKey) {
				t.Error("the API key appears in the request body")
			}
		})
	}
}

func TestEmbedExtraFieldsInSortedOrder(t *testing.T) {
	srv := embedtest.Start(t, nil)
	c := newClient(t, srv.URL(), nil)
	extra := map[string]any{"zeta": 1, "alpha": 2, "mid": 3, "beta": 4}
	for range 5 { // map order varies from run to run; the body must not
		if _, _, err := c.Embed(context.Background(), []string{"x"}, extra); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range srv.Requests() {
		body := string(r.Body)
		if a, b, m, z := strings.Index(body, `"alpha"`), strings.Index(body, `"beta"`), strings.Index(body, `"mid"`), strings.Index(body, `"zeta"`); !(a < b && b < m && m < z) {
			t.Errorf("extra fields not in sorted order: %s", body)
		}
	}
}

func TestEmbedFaults(t *testing.T) {
	const ok3 = `{"object":"embedding","index":%d,"embedding":[0.1,0.2,0.3]}`
	tests := []struct {
		name      string
		reply     embedtest.Reply
		timeout   time.Duration
		want      error
		retryable bool
		wantMsg   string
	}{
		{name: "401", reply: embedtest.Reply{Status: 401, Message: "bad key"}, want: llm.ErrConfig, wantMsg: "status 401: bad key"},
		{name: "401 echoing the key", reply: embedtest.Reply{Status: 401, Message: "Incorrect API key provided: " + testKey}, want: llm.ErrConfig},
		{name: "404 unknown model", reply: embedtest.Reply{Status: 404, Message: "model test-model not found"}, want: llm.ErrConfig},
		{name: "413 input too large", reply: embedtest.Reply{Status: 413}, want: llm.ErrConfig},
		{name: "429", reply: embedtest.Reply{Status: 429, Message: "slow down"}, want: llm.ErrRateLimited, retryable: true},
		{name: "500", reply: embedtest.Reply{Status: 500}, want: llm.ErrServer, retryable: true, wantMsg: "status 500"},
		{name: "503", reply: embedtest.Reply{Status: 503, Message: "loading model"}, want: llm.ErrServer, retryable: true},
		{name: "502 non-JSON body echoing the key", reply: embedtest.Reply{Status: 502, Raw: "<html>upstream failed; Authorization: Bearer " + testKey + "</html>"}, want: llm.ErrServer, retryable: true},
		{name: "hang", reply: embedtest.Reply{Delay: time.Hour}, timeout: 150 * time.Millisecond, want: llm.ErrServer, retryable: true, wantMsg: "no answer within 150ms"},
		{name: "malformed JSON", reply: embedtest.Reply{Raw: `{"object":"list","data":[{"index":0,"embedding":[0.1,`}, want: llm.ErrBadResponse, retryable: true},
		{name: "not JSON at all", reply: embedtest.Reply{Raw: "I am not JSON"}, want: llm.ErrBadResponse, retryable: true},
		{name: "no data", reply: embedtest.Reply{Raw: `{"object":"list","data":[]}`}, want: llm.ErrInvalidReply, wantMsg: "0 vectors for 3 inputs (index 0 missing)"},
		{name: "dropped item", reply: embedtest.Reply{Drop: true}, want: llm.ErrInvalidReply, wantMsg: "2 vectors for 3 inputs (index 2 missing)"},
		{name: "duplicated item", reply: embedtest.Reply{Duplicate: true}, want: llm.ErrInvalidReply, wantMsg: "duplicate index 0"},
		{name: "duplicated item, shuffled", reply: embedtest.Reply{Duplicate: true, Shuffle: true}, want: llm.ErrInvalidReply, wantMsg: "duplicate index 0"},
		{name: "extra item", reply: embedtest.Reply{Vectors: [][]float32{{1}, {2}, {3}, {4}}}, want: llm.ErrInvalidReply, wantMsg: "index 3 out of range for 3 inputs"},
		{name: "negative index", reply: embedtest.Reply{Raw: `{"data":[` + fmt.Sprintf(ok3, 0) + `,` + fmt.Sprintf(ok3, -1) + `,` + fmt.Sprintf(ok3, 2) + `]}`}, want: llm.ErrInvalidReply, wantMsg: "index -1 out of range"},
		{name: "no index", reply: embedtest.Reply{Raw: `{"data":[{"embedding":[0.1]},{"embedding":[0.2]},{"embedding":[0.3]}]}`}, want: llm.ErrInvalidReply, wantMsg: "data[0] has no index"},
		{name: "empty vector", reply: embedtest.Reply{Vectors: [][]float32{{}, {}, {}}}, want: llm.ErrInvalidReply, wantMsg: "index 0: the embedding is empty"},
		{name: "null vector", reply: embedtest.Reply{Raw: `{"data":[` + fmt.Sprintf(ok3, 0) + `,{"index":1,"embedding":null},` + fmt.Sprintf(ok3, 2) + `]}`}, want: llm.ErrInvalidReply, wantMsg: "index 1: the embedding is empty or not a list of numbers"},
		{name: "vector of strings", reply: embedtest.Reply{Raw: `{"data":[` + fmt.Sprintf(ok3, 0) + `,{"index":1,"embedding":["a","b","c"]},` + fmt.Sprintf(ok3, 2) + `]}`}, want: llm.ErrInvalidReply, wantMsg: "index 1: the embedding is empty or not a list of numbers"},
		{name: "vector not base64", reply: embedtest.Reply{Raw: `{"data":[` + fmt.Sprintf(ok3, 0) + `,{"index":1,"embedding":"not base64!"},` + fmt.Sprintf(ok3, 2) + `]}`}, want: llm.ErrInvalidReply, wantMsg: "index 1: the embedding is empty or not a list of numbers"},
		{name: "differing lengths", reply: embedtest.Reply{Vectors: [][]float32{{1, 2, 3}, {1, 2, 3}, {1, 2, 3, 4}}}, want: llm.ErrInvalidReply, wantMsg: "differing lengths in one reply (3 and 4 values)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return tt.reply })
			c := newClient(t, srv.URL(), func(c *llm.Config) { c.Timeout = tt.timeout })

			start := time.Now()
			vecs, _, err := c.Embed(context.Background(), []string{"a", "b", "c"}, map[string]any{"input_type": "passage"})
			checkErr(t, err, tt.want, tt.retryable)
			if vecs != nil {
				t.Errorf("vectors returned with the error: %v", vecs)
			}
			if !strings.HasPrefix(err.Error(), "llm: embed test-model at "+srv.URL()+": ") {
				t.Errorf("error %q does not name the call, model and URL", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantMsg)
			}
			if tt.timeout > 0 && time.Since(start) > tt.timeout+2*time.Second {
				t.Errorf("Embed took %v with a %v timeout", time.Since(start), tt.timeout)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server got %d requests, want 1 (retries are the caller's job)", n)
			}
		})
	}
}

func TestEmbedBase64Reply(t *testing.T) {
	// A server may answer base64 even when asked for floats; the SDK decodes it.
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply {
		return embedtest.Reply{Raw: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAAMAAAEBA"}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`}
	})
	c := newClient(t, srv.URL(), nil)
	vecs, _, err := c.Embed(context.Background(), []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float32{{1, -2, 3}}; !reflect.DeepEqual(vecs, want) {
		t.Errorf("vectors = %v, want %v", vecs, want)
	}
}

func TestEmbedBadRequest(t *testing.T) {
	srv := embedtest.Start(t, nil)
	c := newClient(t, srv.URL(), nil)
	tests := []struct {
		name   string
		inputs []string
		extra  map[string]any
	}{
		{name: "no inputs"},
		{name: "empty inputs", inputs: []string{}},
		{name: "extra model", inputs: []string{"x"}, extra: map[string]any{"model": "other"}},
		{name: "extra input", inputs: []string{"x"}, extra: map[string]any{"input": "other"}},
		{name: "extra encoding_format", inputs: []string{"x"}, extra: map[string]any{"encoding_format": "base64"}},
		{name: "extra path", inputs: []string{"x"}, extra: map[string]any{"options.truncate": true}},
		{name: "extra wildcard", inputs: []string{"x"}, extra: map[string]any{"input*": true}},
		{name: "extra empty key", inputs: []string{"x"}, extra: map[string]any{"": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Embed(context.Background(), tt.inputs, tt.extra)
			checkErr(t, err, llm.ErrConfig, false)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests for invalid input", n)
	}
}

func TestEmbedCallerCancel(t *testing.T) {
	srv := embedtest.Start(t, func(embedtest.Request) embedtest.Reply { return embedtest.Reply{Delay: time.Hour} })
	c := newClient(t, srv.URL(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := c.Embed(ctx, []string{"x"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "llm: embed: ") {
		t.Fatalf("err = %v, want the caller's context error from embed", err)
	}
	if llm.Retryable(err) {
		t.Error("Retryable = true for the caller's own deadline")
	}
}
