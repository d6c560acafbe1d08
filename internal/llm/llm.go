// Package llm is a small client for OpenAI-compatible chat-completions and
// embeddings endpoints (vLLM, Ollama, llama.cpp server, TEI and hosted APIs).
//
// It wraps the official openai-go SDK with the project's rules: the API key is
// read from a named environment variable and never stored in [Config] or
// written into errors, the SDK's own retries are off (retries belong to the
// caller, typically a Temporal activity retry policy), and every failure is
// classified with a sentinel error so the caller can decide with [Retryable]
// whether another attempt can help.
package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Sentinel errors returned (wrapped) by [New], [Client.Chat] and
// [Client.Embed]; compare them with errors.Is.
var (
	// ErrConfig reports a configuration or request that cannot succeed on a
	// retry: an invalid Config, an unknown role, no inputs, an extra field
	// that is not a plain name or would replace a standard one, or an HTTP 4xx
	// answer other than 408 and 429 (401/403 bad key, 404 unknown model or
	// wrong base URL).
	ErrConfig = errors.New("llm: bad configuration")
	// ErrRateLimited reports an HTTP 429 answer. It is retryable after a
	// backoff.
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrServer reports a 5xx or 408 answer, a request that exceeded
	// Config.Timeout, or a connection failure. It is retryable.
	ErrServer = errors.New("llm: server error")
	// ErrBadResponse reports a 2xx answer that cannot be used: a body that is
	// not valid JSON, no choices, or empty content. It is retryable, since a
	// truncated or garbled answer is usually transient.
	ErrBadResponse = errors.New("llm: bad response")
	// ErrInvalidReply reports a 2xx answer that parses but breaks the
	// protocol in a way the same request gets again: for embeddings, a vector
	// missing, duplicated, out of range, empty, or of another length than the
	// rest of the reply (and, found by the callers, a non-finite or all-zero
	// one). The server or its model is broken; it is not retryable.
	ErrInvalidReply = errors.New("llm: invalid reply (the server breaks the API; a retry gets the same)")
)

// Retryable reports whether another attempt of the failed call may succeed:
// true for [ErrRateLimited], [ErrServer] and [ErrBadResponse], false for
// [ErrConfig], [ErrInvalidReply], context cancellation by the caller and nil.
func Retryable(err error) bool {
	return errors.Is(err, ErrRateLimited) || errors.Is(err, ErrServer) || errors.Is(err, ErrBadResponse)
}

// Defaults applied by [New] to zero-valued Config fields.
const (
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	DefaultTimeout   = 60 * time.Second
	DefaultMaxTokens = 512
)

// Config configures a [Client]. The zero value of APIKeyEnv, Timeout and
// MaxTokens selects the default; Temperature 0 is the default and the
// recommended value for judging and summarizing.
type Config struct {
	// BaseURL is the API root including the version path, e.g.
	// http://127.0.0.1:8000/v1. It must not carry credentials.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKeyEnv names the environment variable holding the API key (default
	// OPENAI_API_KEY). The key itself is never stored in Config, logs, errors
	// or payloads. An unset or empty variable sends no Authorization header,
	// which suits local servers.
	APIKeyEnv string
	// Timeout bounds each request (default 60s).
	Timeout time.Duration
	// MaxTokens caps the completion length (default 512).
	MaxTokens int
	// Temperature is the sampling temperature, in [0, 2] (default 0).
	Temperature float64
	// JSON asks the server for a JSON object (response_format json_object: OpenAI, vLLM,
	// llama.cpp and Ollama constrain the output to valid JSON). The judge and the summarizer
	// want JSON; small models keep to it only when constrained.
	JSON bool
	// Schemas sends the JSON schema a call carries ([Client.ChatSchema]) as response_format
	// json_schema: llama.cpp (and vLLM) compile it into a grammar, so even a small model can
	// only write a reply of that exact shape. Off, such a call is sent as [Client.Chat] sends
	// it (a JSON object when JSON is set): a hosted endpoint may refuse keywords a grammar
	// takes (prefixItems, const) in its strict mode.
	Schemas bool
}

// DefaultConfig returns a Config with every default filled in; BaseURL and
// Model are left empty and must be set.
func DefaultConfig() Config {
	return Config{APIKeyEnv: DefaultAPIKeyEnv, Timeout: DefaultTimeout, MaxTokens: DefaultMaxTokens}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate reports the first problem with c, wrapping [ErrConfig]. Zero values
// that have a default are valid. Validate never echoes APIKeyEnv, in case a key
// was put there by mistake.
func (c Config) Validate() error {
	if strings.TrimSpace(c.BaseURL) == "" {
		return fmt.Errorf("%w: base URL is empty", ErrConfig)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return fmt.Errorf("%w: base URL does not parse", ErrConfig)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: base URL scheme must be http or https", ErrConfig)
	}
	if u.Host == "" {
		return fmt.Errorf("%w: base URL has no host", ErrConfig)
	}
	if u.User != nil {
		return fmt.Errorf("%w: base URL must not carry credentials; use APIKeyEnv", ErrConfig)
	}
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("%w: model is empty", ErrConfig)
	}
	if c.APIKeyEnv != "" && !envName.MatchString(c.APIKeyEnv) {
		return fmt.Errorf("%w: APIKeyEnv is not an environment variable name (it names the variable, it is not the key)", ErrConfig)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("%w: timeout %v is negative", ErrConfig, c.Timeout)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("%w: max tokens %d is negative", ErrConfig, c.MaxTokens)
	}
	if c.Temperature < 0 || c.Temperature > 2 {
		return fmt.Errorf("%w: temperature %v is outside [0, 2]", ErrConfig, c.Temperature)
	}
	return nil
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = d.APIKeyEnv
	}
	if c.Timeout == 0 {
		c.Timeout = d.Timeout
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = d.MaxTokens
	}
	return c
}

// Message is one chat message. Role is "system", "developer", "user" or
// "assistant".
type Message struct {
	Role    string
	Content string
}

// Usage is the token accounting reported by the server. Embeddings have no
// completion, so [Client.Embed] reports CompletionTokens 0.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Client sends chat-completion and embeddings requests. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	key string // from the environment; only used to authenticate and to redact
	api openai.Client
}

// New validates c, applies defaults, reads the API key from the environment
// variable c.APIKeyEnv and returns a Client.
func New(c Config) (*Client, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	key := os.Getenv(c.APIKeyEnv)
	api := openai.NewClient(
		option.WithBaseURL(c.BaseURL),
		// Always set, even when empty, so the SDK does not fall back to
		// OPENAI_API_KEY when another variable was named; empty sends no
		// Authorization header.
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
	)
	return &Client{cfg: c, key: key, api: api}, nil
}

// String describes the client without its key.
func (c *Client) String() string {
	return fmt.Sprintf("llm.Client{BaseURL: %q, Model: %q}", c.cfg.BaseURL, c.cfg.Model)
}

// GoString is String, so %#v cannot print the key either.
func (c *Client) GoString() string { return c.String() }

// Config returns the client's configuration with defaults applied.
func (c *Client) Config() Config { return c.cfg }

// Schema is a JSON schema a reply must follow, named (a-z, A-Z, 0-9, _ and -, at most 64).
type Schema struct {
	Name string
	// Doc is the schema document; it is marshalled with encoding/json, so a struct type
	// keeps its properties in the order the model is to write them.
	Doc any
}

// Chat sends msgs in order and returns the first choice's content and the
// token usage. Errors wrap one of the package sentinels, except when ctx
// itself is done, in which case the error wraps ctx.Err().
func (c *Client) Chat(ctx context.Context, msgs []Message) (string, Usage, error) {
	return c.chat(ctx, msgs, nil)
}

// ChatSchema is [Client.Chat] for a reply that must follow s: with Config.Schemas the server
// is asked for exactly that shape (response_format json_schema, strict), else the call is
// Chat's.
func (c *Client) ChatSchema(ctx context.Context, msgs []Message, s Schema) (string, Usage, error) {
	if !c.cfg.Schemas {
		return c.chat(ctx, msgs, nil)
	}
	if s.Name == "" || s.Doc == nil {
		return "", Usage{}, fmt.Errorf("%w: a schema needs a name and a document", ErrConfig)
	}
	return c.chat(ctx, msgs, &s)
}

func (c *Client) chat(ctx context.Context, msgs []Message, schema *Schema) (string, Usage, error) {
	if len(msgs) == 0 {
		return "", Usage{}, fmt.Errorf("%w: no messages", ErrConfig)
	}
	params := openai.ChatCompletionNewParams{
		Model:       c.cfg.Model,
		Messages:    make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)),
		MaxTokens:   openai.Int(int64(c.cfg.MaxTokens)),
		Temperature: openai.Float(c.cfg.Temperature),
	}
	switch {
	case schema != nil:
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: schema.Name, Schema: schema.Doc, Strict: openai.Bool(true)}}}
	case c.cfg.JSON:
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	for i, m := range msgs {
		switch m.Role {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case "developer":
			params.Messages = append(params.Messages, openai.DeveloperMessage(m.Content))
		case "user":
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		case "assistant":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			return "", Usage{}, fmt.Errorf("%w: message %d has unknown role %q", ErrConfig, i, m.Role)
		}
	}

	reqCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var httpResp *http.Response
	resp, err := c.api.Chat.Completions.New(reqCtx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return "", Usage{}, c.classify(ctx, opChat, httpResp, err)
	}
	if len(resp.Choices) == 0 {
		return "", Usage{}, c.errorf(opChat, ErrBadResponse, "no choices in the response")
	}
	content := resp.Choices[0].Message.Content
	if strings.TrimSpace(content) == "" {
		return "", Usage{}, c.errorf(opChat, ErrBadResponse, "empty content (finish reason %q)", resp.Choices[0].FinishReason)
	}
	u := Usage{PromptTokens: int(resp.Usage.PromptTokens), CompletionTokens: int(resp.Usage.CompletionTokens)}
	return content, u, nil
}

// Embed sends one embeddings request (POST <base_url>/embeddings) for inputs
// with the client's model and returns one vector per input, in input order.
// extra adds fields to the JSON body (e.g. "input_type": "passage" for
// servers that take it); its keys must be plain names (letters, digits, _ and
// -) other than model, input and encoding_format. Vectors are asked for as
// floats (encoding_format "float") and returned as sent, not normalized.
//
// The reply's data[i].index places each vector: every index 0..len(inputs)-1
// must come exactly once, and all vectors must have one non-zero length, else
// the error wraps [ErrInvalidReply]. Other errors wrap the package sentinels
// as Chat's do (ErrConfig, ErrRateLimited, ErrServer, ErrBadResponse; the API
// key never appears in an error), except when ctx itself is done, in which
// case the error wraps ctx.Err().
func (c *Client) Embed(ctx context.Context, inputs []string, extra map[string]any) ([][]float32, Usage, error) {
	if len(inputs) == 0 {
		return nil, Usage{}, fmt.Errorf("%w: no inputs to embed", ErrConfig)
	}
	params := openai.EmbeddingNewParams{
		Model:          c.cfg.Model,
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}
	// Sorted, so the body is the same whatever the map's order.
	keys := slices.Sorted(maps.Keys(extra))
	opts := make([]option.RequestOption, 0, len(keys)+1)
	for _, k := range keys {
		// WithJSONSet takes an sjson path: "a.b" would set b inside a, so
		// only plain names pass; the standard fields are the client's.
		if !fieldName.MatchString(k) {
			return nil, Usage{}, fmt.Errorf("%w: extra field %q is not a plain name", ErrConfig, k)
		}
		if k == "model" || k == "input" || k == "encoding_format" {
			return nil, Usage{}, fmt.Errorf("%w: extra field %q would replace the client's own", ErrConfig, k)
		}
		opts = append(opts, option.WithJSONSet(k, extra[k]))
	}

	reqCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var httpResp *http.Response
	opts = append(opts, option.WithResponseInto(&httpResp))
	resp, err := c.api.Embeddings.New(reqCtx, params, opts...)
	if err != nil {
		return nil, Usage{}, c.classify(ctx, opEmbed, httpResp, err)
	}
	vecs, err := c.vectors(resp.Data, len(inputs))
	if err != nil {
		return nil, Usage{}, err
	}
	return vecs, Usage{PromptTokens: int(resp.Usage.PromptTokens)}, nil
}

// fieldName is what Embed accepts as an extra field's key.
var fieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// vectors checks an embeddings reply for n inputs and returns its vectors
// placed by their index.
func (c *Client) vectors(data []openai.Embedding, n int) ([][]float32, error) {
	out := make([][]float32, n)
	dim := 0
	for i, d := range data {
		if !d.JSON.Index.Valid() {
			return nil, c.errorf(opEmbed, ErrInvalidReply, "data[%d] has no index", i)
		}
		idx := d.Index
		if idx < 0 || idx >= int64(n) {
			return nil, c.errorf(opEmbed, ErrInvalidReply, "data[%d]: index %d out of range for %d inputs", i, idx, n)
		}
		if out[idx] != nil {
			return nil, c.errorf(opEmbed, ErrInvalidReply, "data[%d]: duplicate index %d", i, idx)
		}
		if !d.JSON.Embedding.Valid() || len(d.Embedding) == 0 {
			return nil, c.errorf(opEmbed, ErrInvalidReply, "index %d: the embedding is empty or not a list of numbers", idx)
		}
		if dim == 0 {
			dim = len(d.Embedding)
		} else if len(d.Embedding) != dim {
			return nil, c.errorf(opEmbed, ErrInvalidReply, "vectors of differing lengths in one reply (%d and %d values)", dim, len(d.Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[idx] = v
	}
	if len(data) != n { // fewer, since none is duplicated or out of range
		missing := 0
		for out[missing] != nil {
			missing++
		}
		return nil, c.errorf(opEmbed, ErrInvalidReply, "%d vectors for %d inputs (index %d missing)", len(data), n, missing)
	}
	return out, nil
}

// Operations named in error messages.
const (
	opChat  = "chat"
	opEmbed = "embed"
)

// classify maps an SDK error from operation op to a package sentinel.
// httpResp is the last HTTP response, if any arrived.
func (c *Client) classify(ctx context.Context, op string, httpResp *http.Response, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("llm: %s: %w", op, ctx.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return c.errorf(op, ErrServer, "no answer within %v", c.cfg.Timeout)
	}
	if httpResp == nil {
		return c.errorf(op, ErrServer, "%v", err)
	}
	status := httpResp.StatusCode
	if status < 400 {
		// The answer arrived but could not be read or decoded.
		return c.errorf(op, ErrBadResponse, "status %d: %v", status, err)
	}
	detail := c.errorDetail(httpResp, err)
	switch {
	case status == http.StatusTooManyRequests:
		return c.errorf(op, ErrRateLimited, "status %d: %s", status, detail)
	case status >= 500 || status == http.StatusRequestTimeout:
		return c.errorf(op, ErrServer, "status %d: %s", status, detail)
	default:
		return c.errorf(op, ErrConfig, "status %d: %s", status, detail)
	}
}

// errorDetail is a short, single-line excerpt of the server's explanation.
func (c *Client) errorDetail(httpResp *http.Response, err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return oneLine(c.redact(apiErr.Message))
	}
	if httpResp.Body == nil {
		return http.StatusText(httpResp.StatusCode)
	}
	defer httpResp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(httpResp.Body, 4<<10))
	if s := oneLine(c.redact(string(b))); s != "" {
		return s
	}
	return http.StatusText(httpResp.StatusCode)
}

// errorf builds an error from operation op (opChat, opEmbed) wrapping kind,
// whose message never contains the key.
func (c *Client) errorf(op string, kind error, format string, args ...any) error {
	msg := fmt.Sprintf("llm: %s %s at %s: ", op, c.cfg.Model, c.cfg.BaseURL) + fmt.Sprintf(format, args...)
	return &callError{kind: kind, msg: c.redact(msg)}
}

// redact removes every occurrence of the key from s. It runs before any
// truncation so that no prefix of the key survives either.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// callError is a failed call: a redacted message and the sentinel it wraps.
type callError struct {
	kind error
	msg  string
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.kind }

// oneLine collapses whitespace and truncates s to 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	const max = 200
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}
