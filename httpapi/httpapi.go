// Package httpapi is asof's HTTP API and its page (asof serve): JSON endpoints under /v1 that
// start or query the same Temporal workflows as the command line (the durable path stays
// Temporal), an OpenAPI document generated from the Go types, and one HTML page at / to ask
// a question as of a day and browse digests and indexes. What the workflows stored (digests,
// answers, evaluations' results) is listed and fetched as JSON, Markdown or HTML.
//
// Requests are checked by internal/apispec, the checks `asof ask` and `asof digest` use; the
// store is read through internal/catalog. Errors are {"error": "..."} with a 4xx or 5xx code.
package httpapi

import (
	"context"
	"crypto/subtle"
	_ "embed" // the page
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	asof "github.com/asofrag/asof/client"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/catalog"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/workflows"
)

// MaxBody is the largest request body accepted (413 above it).
const MaxBody = 64 << 10

//go:embed page.html
var page []byte

// Config is what the API serves from.
type Config struct {
	// Client starts and queries the workflows; Bucket is the store they write.
	Client client.Client
	Bucket blob.Bucket
	// Token, when set, is required as "Authorization: Bearer <Token>" on every /v1 request.
	Token string
	// Version is asof's version, shown in the OpenAPI document.
	Version string
	// UI is where a failed workflow can be looked up ("in the Temporal Web UI at …"), appended
	// to a 5xx error; "" for none.
	UI string
	// Log gets one line per failed request (nil: slog.Default()).
	Log *slog.Logger
}

type server struct {
	cfg     Config
	c       *asof.Client
	openapi []byte
}

// New returns the API and the page as one handler.
func New(cfg Config) (http.Handler, error) {
	if cfg.Client == nil || cfg.Bucket == nil {
		return nil, errors.New("httpapi: a Temporal client and a bucket are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	doc, err := apispec.OpenAPI(cfg.Version)
	if err != nil {
		return nil, fmt.Errorf("httpapi: OpenAPI document: %w", err)
	}
	// Eager start: when a worker made from this client polls the queue (asof serve's own), the
	// server hands an Ask's first workflow task back with the start instead of through
	// matching; without one, the start is an ordinary one.
	c := &asof.Client{Temporal: cfg.Client, Store: cfg.Bucket, UI: cfg.UI, Eager: true}
	s := &server{cfg: cfg, c: c, openapi: doc}
	handlers := map[string]http.HandlerFunc{
		"ask": s.ask, "timeline": s.timeline, "listIndexes": s.listIndexes, "getIndex": s.getIndex, "listDigests": s.listDigests,
		"startDigest": s.startDigest, "listDigestDays": s.listDigestDays, "getDigest": s.getDigest,
		"getEval": s.getEval, "openapi": s.getOpenAPI,
		"listAnswers": listing(s, catalog.Answers), "getAnswer": storedDoc(s, apispec.CheckRunID, catalog.AnswerDoc, catalog.ErrNoAnswer, "GET /v1/answers"),
		"listEvals": listing(s, catalog.Evals), "getEvalReport": storedDoc(s, apispec.CheckEvalID, evalDoc, catalog.ErrNoEval, "GET /v1/evals"),
		"takeDown": s.takeDown, "listTakedowns": s.listTakedowns, "indexHistory": s.indexHistory, "rollbackIndex": s.rollbackIndex, "startIndex": s.startIndex, "getIndexBuild": s.getIndexBuild, "deleteIndex": s.deleteIndex, "startEval": s.startEval,
		"listSchedules": s.listSchedules, "createSchedule": s.createSchedule, "getSchedule": s.getSchedule, "deleteSchedule": s.deleteSchedule,
		"triggerSchedule": s.triggerSchedule, "pauseSchedule": s.pauseSchedule(true), "unpauseSchedule": s.pauseSchedule(false),
	}
	mux := http.NewServeMux()
	for _, op := range apispec.Operations {
		h, ok := handlers[op.ID]
		if !ok {
			return nil, fmt.Errorf("httpapi: no handler for operation %s", op.ID)
		}
		mux.Handle(op.Method+" "+op.Path, s.auth(h))
	}
	mux.Handle("/v1/", s.auth(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s (GET /v1/openapi.json lists them)", r.Method, r.URL.Path))
	}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'none'")
		_, _ = w.Write(page)
	})
	return recoverer(cfg.Log, mux), nil
}

// recoverer turns a panic in a handler into a 500, never a dropped connection.
func recoverer(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("api: panic", "method", r.Method, "path", r.URL.Path, "panic", v)
				writeError(w, http.StatusInternalServerError, "internal error (the server's log has it)")
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// auth requires the bearer token on a /v1 request when one is set.
func (s *server) auth(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="asof"`)
				writeError(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token> (the token asof serve was given)")
				return
			}
		}
		h(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"encode the response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apispec.ErrorBody{Error: msg})
}

// fail answers err with its status: a bad request 400, a missing thing 404, a conflict with
// work under way or a name taken 409, anything else 500 (logged).
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var noIndex *catalog.NoIndexError
	var noSchedule *asof.NoScheduleError
	status := http.StatusInternalServerError
	switch {
	case apispec.IsInvalid(err), invalidRun(err):
		status = http.StatusBadRequest
	case errors.Is(err, asof.ErrIndexBusy), errors.Is(err, asof.ErrIndexBuilding), errors.Is(err, asof.ErrScheduleExists), errors.Is(err, asof.ErrNotRestorable):
		status = http.StatusConflict
	case errors.As(err, &noSchedule), errors.Is(err, asof.ErrNoWorkflow):
		status = http.StatusNotFound
	case errors.As(err, &noIndex), errors.Is(err, catalog.ErrNoDigest), errors.Is(err, catalog.ErrNoDay), errors.Is(err, blob.ErrNotFound),
		errors.Is(err, catalog.ErrNoAnswer), errors.Is(err, catalog.ErrNoEval), errors.Is(err, catalog.ErrNoFormat):
		status = http.StatusNotFound
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		status = 499 // the client went away; nobody reads this
	}
	msg := err.Error()
	var rf *workflows.RunFailure
	if errors.As(err, &rf) && rf.Where != "" {
		msg += " (" + rf.Where + ")"
	}
	if status >= 500 {
		s.cfg.Log.Error("api: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, status, msg)
}

// decode reads a JSON body into v: Content-Type application/json (415), at most MaxBody
// bytes (413), one object, no unknown field (400), with a clear message for each.
func decode(w http.ResponseWriter, r *http.Request, v any) (status int, err error) {
	// Only application/json: a form or text/plain post from a page elsewhere (which needs no
	// CORS preflight) must not reach a loopback server that has no token.
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, fmt.Errorf("request with Content-Type %q: send application/json", ct)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	var tooBig *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", MaxBody)
	case errors.Is(err, io.EOF):
		return http.StatusBadRequest, errors.New("empty request body: send a JSON object")
	case errors.As(err, &syn):
		return http.StatusBadRequest, fmt.Errorf("bad JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		return http.StatusBadRequest, fmt.Errorf("field %s: %s where the API expects %s", typ.Field, typ.Value, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return http.StatusBadRequest, fmt.Errorf("unknown field %s (GET /v1/openapi.json lists the fields)", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return http.StatusBadRequest, fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return http.StatusBadRequest, errors.New("bad JSON: more than one value in the body")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", MaxBody)
		}
		return http.StatusBadRequest, errors.New("bad JSON: data after the object")
	}
	return 0, nil
}

// request decodes the JSON body into a T (decode) and checks it (check, with the API's field
// names); false when it answered the error (415, 413, 400), and the handler is done.
func request[T, C any](s *server, w http.ResponseWriter, r *http.Request, check func(T) (C, error)) (C, bool) {
	var req T
	var none C
	if status, err := decode(w, r, &req); err != nil {
		writeError(w, status, err.Error())
		return none, false
	}
	checked, err := check(req)
	if err != nil {
		s.fail(w, r, err)
		return none, false
	}
	return checked, true
}

func (s *server) ask(w http.ResponseWriter, r *http.Request) {
	checked, ok := request(s, w, r, func(q apispec.AskRequest) (apispec.Ask, error) { return q.Check(apispec.JSONLabel) })
	if !ok {
		return
	}
	in, err := workflows.AskInputFrom(checked)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ans, err := s.c.Ask(r.Context(), in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

func (s *server) timeline(w http.ResponseWriter, r *http.Request) {
	checked, ok := request(s, w, r, func(q apispec.TimelineRequest) (apispec.Timeline, error) { return q.Check(apispec.JSONLabel) })
	if !ok {
		return
	}
	tl, err := s.c.Timeline(r.Context(), workflows.TimelineInputFrom(checked))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tl)
}

func (s *server) listIndexes(w http.ResponseWriter, r *http.Request) {
	l, err := s.c.Indexes(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if l == nil {
		l = []catalog.Index{}
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *server) getIndex(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := layout.ValidateIndexName(name); err != nil {
		writeError(w, http.StatusBadRequest, "index name: "+err.Error())
		return
	}
	ix, err := s.c.GetIndex(r.Context(), name)
	var none *asof.NoIndexError
	if errors.As(err, &none) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no index named %q (GET /v1/indexes lists them)", name))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ix)
}

func (s *server) listDigests(w http.ResponseWriter, r *http.Request) {
	days, err := catalog.Digests(r.Context(), s.cfg.Bucket, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	names := catalog.DigestNames(days)
	if names == nil {
		names = []catalog.DigestName{}
	}
	writeJSON(w, http.StatusOK, names)
}

func (s *server) listDigestDays(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := layout.ValidateDigestName(name); err != nil {
		writeError(w, http.StatusBadRequest, "digest name: "+err.Error())
		return
	}
	ctx := r.Context()
	days, err := catalog.Digests(ctx, s.cfg.Bucket, name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(days) == 0 {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no digest named %q (GET /v1/digests lists them)", name))
		return
	}
	for i := range days {
		if err := days[i].Fill(ctx, s.cfg.Bucket); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, days)
}

// digestFormats are the files of a digest day by ?format.
var digestFormats = map[string]struct{ file, format string }{
	"":                     {layout.DigestJSONFile, catalog.FormatJSON},
	catalog.FormatJSON:     {layout.DigestJSONFile, catalog.FormatJSON},
	catalog.FormatMarkdown: {layout.DigestMarkdownFile, catalog.FormatMarkdown},
	catalog.FormatHTML:     {layout.DigestHTMLFile, catalog.FormatHTML},
}

// docTypes are the media types of a stored document by its format.
var docTypes = map[string]string{
	catalog.FormatJSON:     "application/json",
	catalog.FormatMarkdown: "text/markdown; charset=utf-8",
	catalog.FormatHTML:     "text/html; charset=utf-8",
}

// writeDoc answers a stored document (a digest day, an answer, an evaluation's results) in
// format as it is.
func writeDoc(w http.ResponseWriter, format string, data []byte) {
	w.Header().Set("Content-Type", docTypes[format])
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if format == catalog.FormatHTML { // a stored page runs no script of its own
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	}
	_, _ = w.Write(data)
}

// listing answers GET /v1/answers and /v1/evals: what list finds for the checked
// ?index=&limit=.
func listing[T any](s *server, list func(context.Context, blob.Bucket, string, int) ([]T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		l, err := apispec.ListRequest{Index: q.Get("index"), Limit: q.Get("limit")}.Check(apispec.JSONLabel)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out, err := list(r.Context(), s.cfg.Bucket, l.Index, l.Limit)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// storedDoc answers GET /v1/answers/{id} and /v1/evals/{id}/report: the document doc finds
// for the id (checked by check) in the checked ?format; notFound, doc's error for an id with
// none, is answered with the listing that has them.
func storedDoc(s *server, check func(string) error, doc func(ctx context.Context, b blob.Bucket, id, format string) ([]byte, error),
	notFound error, listedBy string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if err := check(id); err != nil {
			s.fail(w, r, err)
			return
		}
		format, err := apispec.Format("format", r.URL.Query().Get("format"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data, err := doc(r.Context(), s.cfg.Bucket, id, format)
		if errors.Is(err, notFound) {
			err = fmt.Errorf("%w (%s lists them)", err, listedBy)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeDoc(w, format, data)
	}
}

// evalDoc is catalog.EvalDoc without the evaluation's kind.
func evalDoc(ctx context.Context, b blob.Bucket, id, format string) ([]byte, error) {
	data, _, err := catalog.EvalDoc(ctx, b, id, format)
	return data, err
}

func (s *server) getDigest(w http.ResponseWriter, r *http.Request) {
	name, day := r.PathValue("name"), r.PathValue("day")
	if err := layout.ValidateDigestName(name); err != nil {
		writeError(w, http.StatusBadRequest, "digest name: "+err.Error())
		return
	}
	format, ok := digestFormats[r.URL.Query().Get("format")]
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q: use json, md or html", r.URL.Query().Get("format")))
		return
	}
	if day == "latest" {
		day = ""
	} else {
		t, err := apispec.ParseDay("day", day)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		day = t.Format(time.DateOnly)
	}
	ctx := r.Context()
	day, _, err := catalog.Pick(ctx, s.cfg.Bucket, name, day)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data, err := catalog.DigestFile(ctx, s.cfg.Bucket, name, day, format.file)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeDoc(w, format.format, data)
}

func (s *server) startDigest(w http.ResponseWriter, r *http.Request) {
	checked, ok := request(s, w, r, func(q apispec.DigestRequest) (apispec.Digest, error) { return q.Check(apispec.JSONLabel) })
	if !ok {
		return
	}
	run, err := s.c.StartDigest(r.Context(), workflows.DigestInputFrom(checked))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, apispec.Started{WorkflowID: run.ID()})
}

func (s *server) getEval(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("workflow_id")
	if !asof.IsEvalID(id) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("workflow id %q is not an eval's (they start with %s)", id, asof.EvalID("")))
		return
	}
	st, err := s.c.WorkflowStatus(r.Context(), id)
	if errors.Is(err, asof.ErrNoWorkflow) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no workflow %q", id))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *server) getOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.openapi)
}

// invalidRun reports a workflow that failed on its input (asof's InvalidInput error type):
// the request's fault, not the server's.
func invalidRun(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == workflows.ErrTypeInvalidInput
}
