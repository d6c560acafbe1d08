// Package reranktest runs a real HTTP server on 127.0.0.1 that speaks the rerank API (POST
// /rerank) in the Cohere shape or TEI's, for tests anywhere in the project. Its default
// scorer counts the query's words in each document, so a test knows which order a reranker
// should produce; a [Fault] hook lets a test answer anything else (error statuses, hangs,
// malformed bodies, bad indexes). Every request is recorded.
package reranktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is a recorded rerank request.
type Request struct {
	// Model, Query and Docs are the request's fields (Docs: "documents", or TEI's "texts").
	Model string
	Query string
	Docs  []string
	// TopN is "top_n" (Cohere), or "top_k" (Voyage); 0 when absent.
	TopN int
	// RawScores is TEI's "raw_scores".
	RawScores bool
	// Authorization is the request's Authorization header.
	Authorization string
}

// Fault answers request n (1-based) itself when it returns true; otherwise the server
// answers normally.
type Fault func(n int, req Request, w http.ResponseWriter) bool

// Server is a loopback rerank server.
type Server struct {
	// URL is the server's root; the client's base URL.
	URL string
	api string

	mu    sync.Mutex
	reqs  []Request
	fault Fault
	score func(query, doc string) float64
}

// New starts a server speaking api ("cohere", "voyage" or "tei") until the test ends.
func New(t testing.TB, api string) *Server {
	t.Helper()
	s := &Server{api: api, score: Overlap}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	hs.Start() // httptest listens on 127.0.0.1
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// SetFault installs f (nil: none).
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// SetScore replaces the scorer.
func (s *Server) SetScore(f func(query, doc string) float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.score = f
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Overlap is the default score: how many of the query's words (lower-cased, 3 letters or
// more) occur in doc, each once.
func Overlap(query, doc string) float64 {
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if w = strings.Trim(w, ".,;:!?\"'()"); len(w) >= 3 {
			words[w] = true
		}
	}
	d := strings.ToLower(doc)
	n := 0.0
	for w := range words {
		if strings.Contains(d, w) {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/rerank" {
		http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Texts     []string `json:"texts"`
		TopN      int      `json:"top_n"`
		TopK      int      `json:"top_k"`
		RawScores bool     `json:"raw_scores"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, `{"message":"bad json"}`, http.StatusUnprocessableEntity)
		return
	}
	req := Request{Model: in.Model, Query: in.Query, Docs: in.Documents, TopN: max(in.TopN, in.TopK), RawScores: in.RawScores,
		Authorization: r.Header.Get("Authorization")}
	if s.api == "tei" {
		req.Docs = in.Texts
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n, fault, score := len(s.reqs), s.fault, s.score
	s.mu.Unlock()
	if fault != nil && fault(n, req, w) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// Best first, as servers answer.
	idx := make([]int, len(req.Docs))
	sc := make([]float64, len(req.Docs))
	for i, d := range req.Docs {
		idx[i], sc[i] = i, score(req.Query, d)
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && sc[idx[j]] > sc[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	switch s.api {
	case "tei":
		out := make([]map[string]any, len(idx))
		for k, i := range idx {
			out[k] = map[string]any{"index": i, "score": sc[i]}
		}
		_ = json.NewEncoder(w).Encode(out)
	case "voyage":
		out := make([]map[string]any, len(idx))
		for k, i := range idx {
			out[k] = map[string]any{"index": i, "relevance_score": sc[i]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": out, "model": req.Model})
	default:
		out := make([]map[string]any, len(idx))
		for k, i := range idx {
			out[k] = map[string]any{"index": i, "relevance_score": sc[i]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "reranktest", "results": out})
	}
}
