package worker

// This file is the worker's composition root: what a worker holds (the embedding model and
// the query models of other indexes, the LLM client and a local LLM server, the reranker) is
// assembled here from the configuration, once, for every process that runs one (asof dev,
// server, serve, worker, and a command's own worker).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/infra/llmserver"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/modelcache"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/schemas"
)

// Build is what a worker under cfg holds, added to deps (the store, metrics, identity): the
// model and embedder (WithModel; follow: also each index's own model for its queries, which a
// long-running worker wants since it answers every index) and the reranker (WithReranker).
// release frees them; it is never nil.
func Build(cfg config.Config, deps Deps, follow bool) (Deps, func(), error) {
	deps, releaseModel, err := WithModel(cfg, deps, follow)
	if err != nil {
		return deps, func() {}, err
	}
	deps, closeRerank, err := WithReranker(cfg, deps)
	if err != nil {
		releaseModel()
		return deps, func() {}, err
	}
	return deps, func() { closeRerank(); releaseModel() }, nil
}

// WithReranker fills deps with the reranker rerank.* configures (none by default), when the
// worker serves the default queue, where answers are ranked. A reranker that cannot be built
// is an error: answers must not be served unreranked when reranking was asked for.
func WithReranker(cfg config.Config, deps Deps) (Deps, func(), error) {
	if !cfg.Rerank.Enabled() || !slices.Contains(cfg.Worker.TaskQueues, config.QueueDefault) {
		return deps, func() {}, nil
	}
	r, o, closeFn, err := rerank.FromConfig(cfg)
	if err != nil {
		return deps, func() {}, err
	}
	deps.Reranker, deps.RerankOptions = r, o
	return deps, func() { closeFn() }, nil
}

// RerankerLine says which reranker reorders answers and how.
func RerankerLine(deps Deps) string {
	o := deps.RerankOptions
	top, fuse := o.TopN, o.Fuse
	if top == 0 {
		top = rerank.DefaultTopN
	}
	if fuse == "" {
		fuse = rerank.FuseRRF
	}
	return fmt.Sprintf("%s; the first %d reranked, fuse %s", deps.Reranker.Describe(), top, fuse)
}

// WithModel fills deps with the embedding model: its reference (every worker: planning names
// shards by it) and, when the worker serves the embed queue, the loaded embedder, and with
// follow the models of other indexes, loaded for their queries on demand (deps.QueryModels);
// and, when it serves the LLM queue and llm.base_url is set, the LLM client.
func WithModel(cfg config.Config, deps Deps, follow bool) (Deps, func(), error) {
	stopLLM := func() {}
	if cfg.LLM.Local != "" && slices.Contains(cfg.Worker.TaskQueues, config.QueueLLM) {
		var err error
		if cfg, stopLLM, err = startLocalLLM(cfg); err != nil {
			return deps, func() {}, err
		}
	}
	deps, release, err := withModelAndEndpoint(cfg, deps, follow)
	if err != nil {
		stopLLM()
		return deps, func() {}, err
	}
	return deps, func() { release(); stopLLM() }, nil
}

// startLocalLLM starts llama.cpp's server for llm.local (infra/llmserver) and returns cfg with
// llm.base_url and llm.model pointing at it, and how to stop it. The server's own log goes to
// <data-dir>/llm-server.log.
func startLocalLLM(cfg config.Config) (config.Config, func(), error) {
	id := cfg.LLM.Local
	if id == config.LocalDefault {
		id = models.DefaultLLM
	}
	var file string
	switch {
	case strings.HasSuffix(id, ".gguf"): // any GGUF file, served under its base name
		abs, err := filepath.Abs(id)
		if err != nil {
			return cfg, nil, err
		}
		file, id = abs, strings.TrimSuffix(filepath.Base(abs), ".gguf")
	case models.IsLLM(id):
		dir := cfg.ModelsDirFor(id)
		if err := models.CheckLLM(dir, id); err != nil {
			return cfg, nil, fmt.Errorf("--llm local: %w", err)
		}
		file = models.LLMPath(dir, id)
	default:
		return cfg, nil, fmt.Errorf("--llm local:%s: not a catalogue language model (%s; asof models list) nor a .gguf file", id, strings.Join(models.KnownLLMIDs(), ", "))
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return cfg, nil, err
	}
	logPath := filepath.Join(cfg.DataDir, "llm-server.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return cfg, nil, err
	}
	cfg.LLM = cfg.LLM.LocalProfile() // its slots, before the server starts with them
	// llama.cpp splits its context between the slots: each gets the whole localLLMContext.
	srv, err := llmserver.Start(context.Background(), llmserver.Options{Dir: cfg.LLM.RuntimeDir, Model: file, Alias: id,
		Ctx: localLLMContext * cfg.LLM.Slots, Parallel: cfg.LLM.Slots, Threads: runtime.NumCPU(), Log: logf})
	if err != nil {
		logf.Close()
		return cfg, nil, fmt.Errorf("--llm local: %w (its log: %s)", err, logPath)
	}
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Local = srv.BaseURL, id, ""
	return cfg, func() { srv.Close(); logf.Close() }, nil
}

// localLLMContext is a local server's context a slot, in tokens: `--rubric llm` shows the grader
// a study summary with its context, 8,006 tokens for the study's longest (18,570 + 3,901
// characters of Russian), past 8,192 with the instructions; its KV cache costs the 1.5B about
// 0.5 GB. The server gets every core (threads: runtime.NumCPU()).
const localLLMContext = 16384

// withModelAndEndpoint is withModel once the LLM, if any, has an endpoint.
func withModelAndEndpoint(cfg config.Config, deps Deps, follow bool) (Deps, func(), error) {
	if cfg.LLM.Enabled() && slices.Contains(cfg.Worker.TaskQueues, config.QueueLLM) {
		c, err := llm.New(llm.Config{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, APIKeyEnv: cfg.LLM.APIKeyEnv,
			Timeout: cfg.LLM.Timeout, MaxTokens: cfg.LLM.MaxTokens, JSON: !cfg.LLM.NoJSONMode, Schemas: cfg.LLM.JSONSchema && !cfg.LLM.NoJSONMode})
		if err != nil {
			return deps, func() {}, err
		}
		deps.LLM = c
		deps.HeuristicAutoJudge, deps.JudgePerCall, deps.LLMSlots = cfg.LLM.Judge == "heuristic", cfg.LLM.JudgePerCall, cfg.LLM.Slots
	}
	if cfg.Embed.Remote() {
		return withRemoteModel(cfg, deps)
	}
	m, err := models.Resolve(EffectiveModel(cfg), cfg.ModelsDirFor(EffectiveModel(cfg)))
	if err != nil {
		return deps, func() {}, err
	}
	deps.Model = ModelRef(m)
	if !slices.Contains(cfg.Worker.TaskQueues, config.QueueEmbed) {
		return deps, func() {}, nil
	}
	h, err := newHugot(cfg, m)
	if err != nil {
		return deps, func() {}, err
	}
	deps.Embedder = h
	if !follow {
		return deps, func() { h.Close() }, nil
	}
	// The queries of an index built with another model are embedded with that model, loaded
	// when first asked for (activities.Deps.QueryModels).
	qm := modelcache.New(queryModelsKept, QueryModelLoader(cfg))
	deps.QueryModels = qm
	return deps, func() { qm.Close(); h.Close() }, nil
}

// queryModelsKept is how many models a worker keeps loaded for queries on indexes built with
// another model than its own (modelcache.Cache).
const queryModelsKept = modelcache.DefaultKeep

// ModelRef is how indexes record model m.
func ModelRef(m models.Model) schemas.ModelRef {
	return schemas.ModelRef{ID: m.Spec.ID, SHA256: m.SHA256, Dim: m.Spec.Dim}
}

// newHugot loads model m on the local backend cfg configures.
func newHugot(cfg config.Config, m models.Model) (*embed.Hugot, error) {
	onnx, err := filepath.Rel(m.Dir, m.ONNXPath)
	if err != nil {
		return nil, err
	}
	return embed.NewHugot(embed.Config{
		Dir: m.Dir, ONNXFile: onnx, ID: m.Spec.ID, Dim: m.Spec.Dim,
		QueryPrefix: m.Spec.QueryPrefix, PassagePrefix: m.Spec.PassagePrefix, MaxTokens: m.Spec.MaxTokens, Pooling: m.Spec.Pooling,
		BatchSize: cfg.Embed.BatchSize, BatchTokens: cfg.Embed.BatchTokens,
		Backend: cfg.Embed.Backend, ORTDir: cfg.ORTDir(), Threads: cfg.Embed.Threads, Device: cfg.Embed.Device,
	})
}

// QueryModelLoader loads a model by the id an index's manifest records, as the CLI loads the
// index's model (models.Resolve in the models folders, then the backend cfg configures); it
// pulls nothing (the CLI does not either, for an index's model). Its errors say what to do:
// the pull command for a catalogue model not pulled, where to put a folder model, and that an
// int8 or XLM-R model needs ONNX Runtime on a pure-Go worker.
func QueryModelLoader(cfg config.Config) modelcache.Loader {
	return func(id string) (embed.Embedder, schemas.ModelRef, error) {
		if models.IsPath(id) { // a manifest records ids, never paths
			return nil, schemas.ModelRef{}, fmt.Errorf("%q is not a model id", id)
		}
		dir := cfg.ModelsDirFor(id)
		m, err := models.Resolve(id, dir)
		switch {
		case errors.Is(err, models.ErrUnknownModel):
			return nil, schemas.ModelRef{}, fmt.Errorf("%w: %s is neither a catalogue model (asof models list) nor a folder in %s; put the model folder the index was built with there",
				models.ErrUnknownModel, id, dir)
		case err != nil: // not pulled: the error names `asof models pull ID`
			return nil, schemas.ModelRef{}, err
		}
		h, err := newHugot(cfg, m)
		if errors.Is(err, embed.ErrQuantizedOnGo) || errors.Is(err, embed.ErrUnigramOnGo) {
			return nil, schemas.ModelRef{}, fmt.Errorf("%s needs ONNX Runtime and this worker embeds on the pure-Go backend (%w); run the worker from a binary built with ONNX Runtime (`make setup-ort`, then `make build`)",
				id, errors.Unwrap(err))
		}
		if err != nil {
			return nil, schemas.ModelRef{}, err
		}
		return h, ModelRef(m), nil
	}
}

// EffectiveModel is the model a configuration embeds with when no index is to be followed:
// embed.model, else the catalogue default for the backend (defaultModel).
func EffectiveModel(cfg config.Config) string {
	if cfg.Embed.Model != "" {
		return cfg.Embed.Model
	}
	return DefaultModel(cfg)
}

// DefaultModel is the catalogue default for new indexes on the backend that will run it:
// int8 on ONNX Runtime, fp32 on pure Go, which cannot run int8.
func DefaultModel(cfg config.Config) string {
	if PureGo(cfg) {
		return models.FloatDefaultID
	}
	return models.DefaultID
}

// PureGo reports whether a local model runs on hugot's pure-Go backend (set so, or auto
// without a loadable ONNX Runtime).
func PureGo(cfg config.Config) bool {
	b, err := embed.ResolveBackend(cfg.Embed.Backend, cfg.ORTDir())
	return err == nil && b == embed.BackendGo
}

// MultilingualModel is the catalogue's multilingual model, which a warning about unread
// languages names; "" for an embeddings server, whose models are its own. It needs ONNX
// Runtime: on pure Go, loading it says so and how to set it up.
func MultilingualModel(cfg config.Config) string {
	if cfg.Embed.Remote() {
		return ""
	}
	return models.DefaultID
}

// ModelLanguages are the languages model id reads, as its catalogue entry or model folder
// says (nil when unknown: a server's model, or a folder that does not say).
func ModelLanguages(cfg config.Config, id string) []string {
	if spec, ok := models.Known[id]; ok {
		return spec.Languages
	}
	if cfg.Embed.Remote() {
		return nil
	}
	if m, err := models.Resolve(id, cfg.ModelsDirFor(id)); err == nil {
		return m.Spec.Languages
	}
	return nil
}

// EmbedderLine says which backend embeds and, when auto fell back to pure Go, why: the choice
// is printed by every command that loads the model.
func EmbedderLine(cfg config.Config, deps Deps) string {
	if r, ok := deps.Embedder.(*embed.Remote); ok {
		return r.Describe()
	}
	h, ok := deps.Embedder.(*embed.Hugot)
	if !ok {
		return "none on this worker (it does not serve " + config.QueueEmbed + ")"
	}
	line := h.Describe()
	if h.Backend() == embed.BackendGo && (cfg.Embed.Backend == "" || cfg.Embed.Backend == embed.BackendAuto) {
		line += fmt.Sprintf(" — ONNX Runtime not used: %v", embed.ORTAvailable(cfg.ORTDir()))
	}
	return line
}

// withRemoteModel is withModel for backend openai: the model is what the server at
// embed.base_url serves under embed.model. Its reference carries the request recipe's
// fingerprint (model name, prefixes, input types) and the vector length, from the config or,
// when that is 0, asked of the server once: every worker, embedding or not, must name shards
// alike.
func withRemoteModel(cfg config.Config, deps Deps) (Deps, func(), error) {
	e := cfg.Embed
	r, err := embed.NewRemote(embed.RemoteConfig{
		BaseURL: e.BaseURL, Model: e.Model, APIKeyEnv: e.APIKeyEnv, Timeout: e.Timeout,
		BatchSize: e.BatchSize, Concurrency: e.Concurrency, Dim: e.Dim,
		QueryPrefix: e.QueryPrefix, PassagePrefix: e.PassagePrefix, QueryInputType: e.QueryInputType, PassageInputType: e.PassageInputType,
	})
	if err != nil {
		return deps, func() {}, err
	}
	dim := e.Dim
	if dim == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), max(e.Timeout, 30*time.Second))
		defer cancel()
		if dim, err = r.Probe(ctx); err != nil {
			return deps, func() {}, fmt.Errorf("embedding server: %w (set embed.dim to start without asking it)", err)
		}
	}
	deps.Model = schemas.ModelRef{ID: r.ModelID(), SHA256: schemas.RemoteModelPrefix + r.Fingerprint(), Dim: dim}
	if slices.Contains(cfg.Worker.TaskQueues, config.QueueEmbed) {
		deps.Embedder = r
	}
	return deps, func() { r.Close() }, nil
}
