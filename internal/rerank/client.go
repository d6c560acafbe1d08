package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/llm"
)

// APIs: the two request shapes servers speak, and Voyage's variant of the first.
const (
	// APICohere is {"model","query","documents":[...],"top_n"} → {"results":[{"index",
	// "relevance_score"}]}: Cohere, Jina, vLLM (/rerank, /v1/rerank) and llama.cpp server
	// (--reranking). A reply under "data" instead of "results" (Voyage's) is accepted too.
	APICohere = "cohere"
	// APIVoyage is APICohere with Voyage's name for the count, "top_k" instead of "top_n".
	APIVoyage = "voyage"
	// APITEI is Hugging Face text-embeddings-inference: {"query","texts":[...],
	// "raw_scores":false} → [{"index","score"}].
	APITEI = "tei"
)

// APIs lists the request shapes a [Client] speaks.
var APIs = []string{APICohere, APIVoyage, APITEI}

// Defaults applied by [NewClient] to zero-valued ClientConfig fields.
const (
	DefaultAPIKeyEnv  = "RERANK_API_KEY"
	DefaultTimeout    = 30 * time.Second
	DefaultAttempts   = 4
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
	// DefaultTEIBatch is TEI's default --max-client-batch-size: a request of more texts is
	// refused, so requests to TEI carry at most this many unless BatchSize says otherwise.
	DefaultTEIBatch = 32
)

// ClientConfig configures a [Client]. Zero values select the defaults.
type ClientConfig struct {
	// BaseURL is the server's API root: the client posts to BaseURL + "/rerank"
	// (http://127.0.0.1:8080 for TEI, http://127.0.0.1:8000/v1 for vLLM,
	// https://api.cohere.com/v2, https://api.jina.ai/v1, https://api.voyageai.com/v1).
	BaseURL string
	// API is the request shape: cohere (default), voyage or tei.
	API string
	// Model is the model name sent with cohere and voyage requests (TEI serves one model and
	// takes none).
	Model string
	// APIKeyEnv names the environment variable holding the API key, sent as a Bearer token
	// (default RERANK_API_KEY); unset or empty sends no Authorization header. The key never
	// appears in a config, an error or a log.
	APIKeyEnv string
	// Timeout bounds one request (default 30s).
	Timeout time.Duration
	// Attempts is how many times one request is tried when the server answers 408, 429 or
	// 5xx or does not answer in time (default 4); other failures are not retried.
	Attempts int
	// Backoff is the wait before the second attempt, doubling after each (default 500ms, at
	// most MaxBackoff); a Retry-After header wins, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// BatchSize is the most documents one request carries (0: all of them in one request,
	// except TEI's 32).
	BatchSize int
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate reports every problem with c, each wrapping [llm.ErrConfig]; it never echoes
// APIKeyEnv, in case a key was put there by mistake.
func (c ClientConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("rerank: %w: "+format, append([]any{llm.ErrConfig}, args...)...))
	}
	if u, err := url.Parse(c.BaseURL); strings.TrimSpace(c.BaseURL) == "" || err != nil {
		bad("base URL is empty or does not parse")
	} else {
		if u.Scheme != "http" && u.Scheme != "https" {
			bad("base URL scheme must be http or https")
		}
		if u.Host == "" {
			bad("base URL has no host")
		}
		if u.User != nil {
			bad("base URL must not carry credentials; name the key's variable in api_key_env")
		}
	}
	switch c.API {
	case "", APICohere, APIVoyage:
		if strings.TrimSpace(c.Model) == "" {
			bad("api %s needs a model name", orDefault(c.API, APICohere))
		}
	case APITEI:
	default:
		bad("api %q: use %s", c.API, strings.Join(APIs, ", "))
	}
	if c.APIKeyEnv != "" && !envName.MatchString(c.APIKeyEnv) {
		bad("api_key_env is not an environment variable name (it names the variable, it is not the key)")
	}
	if c.Timeout < 0 || c.Attempts < 0 || c.Backoff < 0 || c.MaxBackoff < 0 || c.BatchSize < 0 {
		bad("timeout, attempts, backoff and batch size must not be negative (0: the default)")
	}
	return errors.Join(errs...)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (c ClientConfig) withDefaults() ClientConfig {
	c.API = orDefault(c.API, APICohere)
	c.APIKeyEnv = orDefault(c.APIKeyEnv, DefaultAPIKeyEnv)
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Attempts == 0 {
		c.Attempts = DefaultAttempts
	}
	if c.Backoff == 0 {
		c.Backoff = DefaultBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.BatchSize == 0 && c.API == APITEI {
		c.BatchSize = DefaultTEIBatch
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// Client is a [Reranker] over a server speaking the rerank API. It retries a request the
// server may answer on another try (408, 429, 5xx, no answer within Timeout), waiting
// Backoff, doubled each time, or the server's Retry-After; it does not retry a 4xx (a wrong
// URL, key or model) or a reply it cannot use. Errors wrap the [llm] sentinels, so
// [llm.Retryable] tells a caller whether a later attempt can help: [llm.ErrConfig] for a
// request the server refuses, [llm.ErrRateLimited] and [llm.ErrServer] when retries ran out,
// [llm.ErrBadResponse] for a reply that is not JSON (cut short: another attempt may do),
// [llm.ErrInvalidReply] for JSON that breaks the protocol (another shape, scores missing,
// duplicated or out of range: the server answers the same again). A Client is safe for
// concurrent use.
type Client struct {
	cfg  ClientConfig
	key  string
	http *http.Client
	url  string
}

// NewClient validates cfg, applies defaults and reads the key from the environment. It sends
// nothing.
func NewClient(cfg ClientConfig) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Client{cfg: cfg, key: os.Getenv(cfg.APIKeyEnv), http: &http.Client{}, url: cfg.BaseURL + "/rerank"}, nil
}

// Describe is a one-line description without the key, e.g.
// `rerank server "bge-reranker-v2-m3" at http://127.0.0.1:8000/v1/rerank (api cohere, timeout 30s, 4 attempts, no key)`.
func (c *Client) Describe() string {
	key := "no key"
	if c.key != "" {
		key = "key from $" + c.cfg.APIKeyEnv
	}
	model := ""
	if c.cfg.API != APITEI {
		model = fmt.Sprintf("%q ", c.cfg.Model)
	}
	return fmt.Sprintf("rerank server %sat %s (api %s, timeout %v, %d attempts, %s)", model, c.url, c.cfg.API, c.cfg.Timeout, c.cfg.Attempts, key)
}

// Rerank implements [Reranker]: docs go in requests of at most BatchSize, one after another,
// and every reply must score each document of its request exactly once with a finite number.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return []float64{}, nil
	}
	per := c.cfg.BatchSize
	if per <= 0 {
		per = len(docs)
	}
	out := make([]float64, 0, len(docs))
	for start := 0; start < len(docs); start += per {
		s, err := c.request(ctx, query, docs[start:min(start+per, len(docs))])
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// request sends one request, retrying what may pass on another try.
func (c *Client) request(ctx context.Context, query string, docs []string) ([]float64, error) {
	body, err := c.body(query, docs)
	if err != nil {
		return nil, err
	}
	wait := c.cfg.Backoff
	for attempt := 1; ; attempt++ {
		scores, retryAfter, err := c.once(ctx, body, len(docs))
		if err == nil || !retryable(err) || attempt == c.cfg.Attempts || ctx.Err() != nil {
			if err != nil && retryable(err) && attempt > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return scores, err
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		d = min(d, c.cfg.MaxBackoff)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("rerank: %s: %w (while waiting to retry: %v)", c.url, ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, c.cfg.MaxBackoff)
	}
}

func retryable(err error) bool {
	return errors.Is(err, llm.ErrServer) || errors.Is(err, llm.ErrRateLimited)
}

// body is the request's JSON in the configured shape.
func (c *Client) body(query string, docs []string) ([]byte, error) {
	var v any
	switch c.cfg.API {
	case APITEI:
		v = struct {
			Query     string   `json:"query"`
			Texts     []string `json:"texts"`
			RawScores bool     `json:"raw_scores"`
			Truncate  bool     `json:"truncate"`
		}{query, docs, false, true}
	case APIVoyage:
		v = struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopK      int      `json:"top_k"`
		}{c.cfg.Model, query, docs, len(docs)}
	default:
		v = struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}{c.cfg.Model, query, docs, len(docs)}
	}
	return json.Marshal(v)
}

// once sends one request and reads its reply: the scores in document order, or an error and,
// for a 429 or 503 that says so, how long the server asks to wait.
func (c *Client) once(ctx context.Context, body []byte, n int) ([]float64, time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, c.errorf(llm.ErrConfig, "%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, 0, fmt.Errorf("rerank: %s: %w", c.url, ctx.Err())
		case rctx.Err() != nil:
			return nil, 0, c.errorf(llm.ErrServer, "no answer within %v", c.cfg.Timeout)
		}
		return nil, 0, c.errorf(llm.ErrServer, "%v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return nil, 0, c.errorf(llm.ErrServer, "no complete answer within %v", c.cfg.Timeout)
		}
		return nil, 0, c.errorf(llm.ErrServer, "status %d, reading the body: %v", resp.StatusCode, err)
	}
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests:
		return nil, retryAfter(resp.Header.Get("Retry-After")), c.errorf(llm.ErrRateLimited, "status %d: %s", s, c.detail(data, s))
	case s >= 500 || s == http.StatusRequestTimeout:
		return nil, retryAfter(resp.Header.Get("Retry-After")), c.errorf(llm.ErrServer, "status %d: %s", s, c.detail(data, s))
	case s >= 400:
		return nil, 0, c.errorf(llm.ErrConfig, "status %d: %s (check rerank.base_url, rerank.api, rerank.model and the key)", s, c.detail(data, s))
	case s < 200 || s > 299:
		return nil, 0, c.errorf(llm.ErrBadResponse, "status %d", s)
	}
	scores, err := c.parse(data, n)
	if err != nil {
		return nil, 0, err
	}
	return scores, 0, nil
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); 0 when absent or unusable.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// item is one scored document of a reply, fields as pointers so that a missing one is seen.
type item struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// parse checks a 2xx reply for n documents and returns the scores in document order.
func (c *Client) parse(data []byte, n int) ([]float64, error) {
	var items []item
	scoreField := "relevance_score"
	if c.cfg.API == APITEI {
		scoreField = "score"
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, c.errorf(parseKind(data), "the reply is not TEI's list of {index, score} (%v; is rerank.api right?): %s", err, excerpt(data))
		}
	} else {
		var reply struct {
			Results *[]item `json:"results"`
			Data    *[]item `json:"data"`
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			return nil, c.errorf(parseKind(data), "the reply is not {\"results\": [{index, relevance_score}]} (%v; is rerank.api right?): %s", err, excerpt(data))
		}
		switch {
		case reply.Results != nil:
			items = *reply.Results
		case reply.Data != nil:
			items = *reply.Data
		default:
			return nil, c.errorf(llm.ErrInvalidReply, "the reply has neither \"results\" nor \"data\" (is rerank.api right?): %s", excerpt(data))
		}
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for i, it := range items {
		s := it.RelevanceScore
		if c.cfg.API == APITEI {
			s = it.Score
		}
		switch {
		case it.Index == nil:
			return nil, c.errorf(llm.ErrInvalidReply, "result %d has no index", i)
		case *it.Index < 0 || *it.Index >= n:
			return nil, c.errorf(llm.ErrInvalidReply, "result %d: index %d out of range for %d documents", i, *it.Index, n)
		case seen[*it.Index]:
			return nil, c.errorf(llm.ErrInvalidReply, "result %d: duplicate index %d", i, *it.Index)
		case s == nil:
			return nil, c.errorf(llm.ErrInvalidReply, "result %d (index %d) has no %s", i, *it.Index, scoreField)
		case math.IsNaN(*s) || math.IsInf(*s, 0):
			return nil, c.errorf(llm.ErrInvalidReply, "result %d (index %d): %s %v is not finite", i, *it.Index, scoreField, *s)
		}
		seen[*it.Index], out[*it.Index] = true, *s
	}
	if len(items) != n { // fewer, since none is duplicated or out of range
		missing := 0
		for seen[missing] {
			missing++
		}
		return nil, c.errorf(llm.ErrInvalidReply, "%d scores for %d documents (index %d missing)", len(items), n, missing)
	}
	return out, nil
}

// parseKind is the sentinel for a 2xx reply that did not decode: a body that is not JSON at all
// (cut short, say) may come right on another attempt (llm.ErrBadResponse); JSON of another
// shape is what this server answers every time (llm.ErrInvalidReply: is rerank.api right?).
func parseKind(data []byte) error {
	if json.Valid(data) {
		return llm.ErrInvalidReply
	}
	return llm.ErrBadResponse
}

// errorf builds an error naming the server, wrapping kind, without the key.
func (c *Client) errorf(kind error, format string, args ...any) error {
	return &callError{kind: kind, msg: c.redact(fmt.Sprintf("rerank: %s: ", c.url) + fmt.Sprintf(format, args...))}
}

// detail is a short, single-line excerpt of an error reply.
func (c *Client) detail(data []byte, status int) string {
	var e struct {
		Message string `json:"message"`
		Error   any    `json:"error"`
		Detail  any    `json:"detail"`
	}
	if json.Unmarshal(data, &e) == nil {
		for _, v := range []any{e.Message, e.Error, e.Detail} {
			switch v := v.(type) {
			case string:
				if v != "" {
					return oneLine(c.redact(v))
				}
			case map[string]any:
				if m, ok := v["message"].(string); ok && m != "" {
					return oneLine(c.redact(m))
				}
			}
		}
	}
	if s := oneLine(c.redact(string(data))); s != "" {
		return s
	}
	return http.StatusText(status)
}

func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// excerpt is the start of a body for a message.
func excerpt(data []byte) string {
	if len(data) == 0 {
		return "(empty body)"
	}
	return oneLine(string(data))
}

// oneLine collapses whitespace and truncates s to 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200]) + "…"
	}
	return s
}

// callError is a failed call: a redacted message and the sentinel it wraps.
type callError struct {
	kind error
	msg  string
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.kind }
