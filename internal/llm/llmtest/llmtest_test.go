package llmtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/internal/openaitest"
)

func TestServerProtocol(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hello there"}],"temperature":0,"max_tokens":7}`
	tests := []struct {
		name, method, path, auth, body string
		wantStatus                     int
		wantInBody                     string
	}{
		{name: "ok", method: "POST", path: "/chat/completions", auth: "Bearer k", body: body, wantStatus: 200, wantInBody: `"content":"pong"`},
		{name: "usage", method: "POST", path: "/chat/completions", auth: "Bearer k", body: body, wantStatus: 200, wantInBody: `"prompt_tokens":2`},
		{name: "wrong key", method: "POST", path: "/chat/completions", auth: "Bearer nope", body: body, wantStatus: 401, wantInBody: `"error"`},
		{name: "no key", method: "POST", path: "/chat/completions", body: body, wantStatus: 401},
		{name: "wrong path", method: "POST", path: "/completions", auth: "Bearer k", body: body, wantStatus: 404},
		{name: "wrong method", method: "GET", path: "/chat/completions", auth: "Bearer k", wantStatus: 405},
		{name: "invalid JSON", method: "POST", path: "/chat/completions", auth: "Bearer k", body: "{", wantStatus: 400},
	}
	srv := llmtest.Start(t, llmtest.Text("pong"), llmtest.WithAPIKey("k"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := openaitest.Call(t, tt.method, srv.URL()+tt.path, tt.auth, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d; body %s", status, tt.wantStatus, b)
			}
			if !json.Valid(b) {
				t.Errorf("body is not JSON: %s", b)
			}
			if !strings.Contains(string(b), tt.wantInBody) {
				t.Errorf("body %s does not contain %s", b, tt.wantInBody)
			}
		})
	}
	reqs := srv.Requests()
	if len(reqs) != 4 { // ok, usage, wrong key, no key
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m" || len(r.Messages) != 1 || r.Messages[0].Content != "hello there" ||
		r.Temperature == nil || *r.Temperature != 0 || r.MaxTokens == nil || *r.MaxTokens != 7 ||
		r.Authorization != "Bearer k" || string(r.Body) != body {
		t.Errorf("recorded request = %+v", r)
	}
}

func TestServerRecordsConcurrentRequests(t *testing.T) {
	srv := llmtest.Start(t, func(req llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Content: "echo " + req.Messages[0].Content}
	})
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"q%d"}]}`, i)
			resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf(`"content":"echo q%d"`, i); !strings.Contains(string(b), want) {
				t.Errorf("body %s does not contain %s", b, want)
			}
		})
	}
	wg.Wait()
	if got := len(srv.Requests()); got != n {
		t.Errorf("recorded %d requests, want %d", got, n)
	}
}
