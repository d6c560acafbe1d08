// Package openaitest is the part that the project's fake OpenAI-protocol servers share
// (internal/llm/llmtest for chat completions, internal/embed/embedtest for embeddings): a
// real HTTP server on 127.0.0.1 shut down with the test, the log of the requests it
// received, the API-key check, the fault injection (error statuses, hangs, raw bodies) and
// the OpenAI-shaped error object. Each fake parses and answers its own endpoint.
package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start starts an HTTP server on 127.0.0.1 running h and closes it with t.Cleanup. The
// returned context is done when the test ends, before the server closes, so that answers
// held back by a Fault's Delay are released.
func Start(t testing.TB, h http.HandlerFunc) (*httptest.Server, context.Context) {
	t.Helper()
	stop, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		cancel() // release handlers still waiting on a Delay
		srv.Close()
	})
	return srv, stop
}

// Log records requests in arrival order. The zero Log is empty and ready; it is safe for
// concurrent use.
type Log[R any] struct {
	mu   sync.Mutex
	reqs []R
}

// Add records req and returns its number in arrival order, counting from 1.
func (l *Log[R]) Add(req R) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, req)
	return len(l.reqs)
}

// Requests returns a copy of the requests recorded so far, in arrival order.
func (l *Log[R]) Requests() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R(nil), l.reqs...)
}

// Authorized reports whether a request whose Authorization header is auth may be answered
// by a server that wants key: any request when key is empty, else only "Bearer " + key. When
// it may not, Authorized answers 401 with an error object.
func Authorized(w http.ResponseWriter, key, auth string) bool {
	if key == "" || auth == "Bearer "+key {
		return true
	}
	WriteError(w, http.StatusUnauthorized, "invalid API key")
	return false
}

// Fault is how an answer departs from a plain 200: what every fake's Reply can ask for.
type Fault struct {
	// Status is the HTTP status; 0 means 200. A status of 400 or more sends an error object
	// whose message is Message.
	Status int
	// Message is the error message for an error status (default: the status text).
	Message string
	// Delay holds the answer back; the wait ends early, with nothing written, if the client
	// goes away or the server's stop context is done, so a long Delay simulates a hang.
	Delay time.Duration
	// Raw, when not empty, is written verbatim as the JSON body (with Status) instead of the
	// generated one, e.g. malformed JSON.
	Raw string
}

// Respond answers r as f says: after f.Delay (or nothing at all when r's context or stop is
// done first), f.Raw verbatim, an error object for a status of 400 or more, or else the JSON
// of body(), which is called only then.
func Respond(w http.ResponseWriter, r *http.Request, stop context.Context, f Fault, body func() any) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-stop.Done():
			return
		}
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case f.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(f.Raw))
	case status >= 400:
		WriteError(w, status, f.Message)
	default:
		WriteJSON(w, status, body())
	}
}

// WriteError sends an error object shaped like the OpenAI API's: type server_error for a
// 5xx status, invalid_request_error otherwise; an empty msg is the status text.
func WriteError(w http.ResponseWriter, status int, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	WriteJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": nil,
	}})
}

// WriteJSON sends v as a JSON body with status. A v that does not encode (a NaN in a fake's
// vectors) is answered 500 with an error object that says why.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("openaitest: cannot encode the reply: %v", err), "type": "server_error", "param": nil, "code": nil,
		}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// Call sends one request to url, with an Authorization header when auth is not empty, and
// returns the answer's status and body; an error sending it or reading the answer fails t.
// The fakes' own tests use it to check their wire behaviour.
func Call(t testing.TB, method, url, auth, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer of %s %s: %v", method, url, err)
	}
	return resp.StatusCode, b
}
