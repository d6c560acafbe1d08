// Package llmtest runs a real HTTP server on 127.0.0.1 that speaks the OpenAI
// chat-completions protocol (POST /v1/chat/completions, JSON in and out), for
// tests anywhere in the project. A [Handler] decides each answer, so tests can
// inject faults: error statuses, malformed bodies, empty choices and answers
// slower than the client's timeout. Every request is recorded.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/openaitest"
)

// Message is one chat message as sent on the wire.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a recorded chat-completions request. Temperature and
// MaxTokens are nil when the client did not send them.
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature"`
	MaxTokens   *int      `json:"max_tokens"`

	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
	// Body is the raw request body.
	Body []byte `json:"-"`
}

// Reply is the answer a [Handler] chooses.
type Reply struct {
	// Status is the HTTP status; 0 means 200. A status of 400 or more sends
	// an OpenAI-style error object whose message is Content.
	Status int
	// Content is the assistant message, or the error message for an error
	// status. An empty Content on 200 is sent as an empty message.
	Content string
	// Delay holds the answer back; the wait ends early if the client goes
	// away or the server shuts down, so a long Delay simulates a hang.
	Delay time.Duration
	// Raw, when not empty, is written verbatim as the JSON body instead of
	// the generated one, e.g. malformed JSON or {"choices":[]}.
	Raw string
}

// Handler answers one request. It may be called concurrently.
type Handler func(req ChatRequest) Reply

// Text returns a Handler that always answers content.
func Text(content string) Handler {
	return func(ChatRequest) Reply { return Reply{Content: content} }
}

// Option configures a [Server].
type Option func(*Server)

// WithAPIKey makes the server answer 401, without calling the handler, to
// any request whose Authorization header is not "Bearer " + key.
func WithAPIKey(key string) Option {
	return func(s *Server) { s.key = key }
}

// Server is a running fake endpoint. Its methods are safe for concurrent use.
type Server struct {
	h    Handler
	key  string
	srv  *httptest.Server
	stop context.Context
	log  openaitest.Log[ChatRequest]
}

// Start starts a server answering with h (a nil h answers "ok") and shuts it
// down with t.Cleanup.
func Start(t testing.TB, h Handler, opts ...Option) *Server {
	t.Helper()
	if h == nil {
		h = Text("ok")
	}
	s := &Server{h: h}
	for _, o := range opts {
		o(s)
	}
	s.srv, s.stop = openaitest.Start(t, s.serve)
	return s
}

// URL is the base URL to configure a client with, including /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Requests returns a copy of the chat requests received so far, in arrival
// order, including those rejected for a wrong key.
func (s *Server) Requests() []ChatRequest { return s.log.Requests() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		openaitest.WriteError(w, http.StatusNotFound, "unknown path "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		openaitest.WriteError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		return
	}
	var req ChatRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		openaitest.WriteError(w, http.StatusBadRequest, "invalid JSON body")
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	req.Body = body
	id := s.log.Add(req)
	if !openaitest.Authorized(w, s.key, req.Authorization) {
		return
	}
	rep := s.h(req)
	f := openaitest.Fault{Status: rep.Status, Message: rep.Content, Delay: rep.Delay, Raw: rep.Raw}
	openaitest.Respond(w, r, s.stop, f, func() any { return completion(id, req, rep.Content) })
}

// completion builds a chat.completion object as the real API returns it.
// Token counts are whitespace-separated words, deterministic and good enough
// for accounting tests.
func completion(id int, req ChatRequest, content string) map[string]any {
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	done := len(strings.Fields(content))
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", id),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{
			"prompt_tokens":     prompt,
			"completion_tokens": done,
			"total_tokens":      prompt + done,
		},
	}
}
