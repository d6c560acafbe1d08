package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/infra/models"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/rerank"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

// withReranker fills deps with the reranker rerank.* configures (none by default), when the
// worker serves the default queue, where answers are ranked. A reranker that cannot be built
// is an error: answers must not be served unreranked when reranking was asked for.
func withReranker(cfg config.Config, deps worker.Deps) (worker.Deps, func(), error) {
	if !cfg.Rerank.Enabled() || !slices.Contains(cfg.Worker.TaskQueues, config.QueueDefault) {
		return deps, func() {}, nil
	}
	r, o, closeFn, err := activities.RerankerFromConfig(cfg)
	if err != nil {
		return deps, func() {}, err
	}
	deps.Reranker, deps.RerankOptions = r, o
	return deps, func() { closeFn() }, nil
}

// rerankerLine says which reranker reorders answers and how.
func rerankerLine(deps worker.Deps) string {
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

// withModel fills deps with the embedding model: its reference (every worker: planning names
// shards by it) and, when the worker serves the embed queue, the loaded embedder; and, when it
// serves the LLM queue and llm.base_url is set, the LLM client.
func withModel(cfg config.Config, deps worker.Deps) (worker.Deps, func(), error) {
	if cfg.LLM.Enabled() && slices.Contains(cfg.Worker.TaskQueues, config.QueueLLM) {
		c, err := llm.New(llm.Config{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, APIKeyEnv: cfg.LLM.APIKeyEnv,
			Timeout: cfg.LLM.Timeout, MaxTokens: cfg.LLM.MaxTokens, JSON: !cfg.LLM.NoJSONMode})
		if err != nil {
			return deps, func() {}, err
		}
		deps.LLM = c
	}
	if cfg.Embed.Remote() {
		return withRemoteModel(cfg, deps)
	}
	m, err := models.Resolve(effectiveModel(cfg), cfg.ModelsDir())
	if err != nil {
		return deps, func() {}, err
	}
	deps.Model = schemas.ModelRef{ID: m.Spec.ID, SHA256: m.SHA256, Dim: m.Spec.Dim}
	if !slices.Contains(cfg.Worker.TaskQueues, config.QueueEmbed) {
		return deps, func() {}, nil
	}
	onnx, err := filepath.Rel(m.Dir, m.ONNXPath)
	if err != nil {
		return deps, func() {}, err
	}
	h, err := embed.NewHugot(embed.Config{
		Dir: m.Dir, ONNXFile: onnx, ID: m.Spec.ID, Dim: m.Spec.Dim,
		QueryPrefix: m.Spec.QueryPrefix, PassagePrefix: m.Spec.PassagePrefix, MaxTokens: m.Spec.MaxTokens, Pooling: m.Spec.Pooling,
		BatchSize: cfg.Embed.BatchSize, BatchTokens: cfg.Embed.BatchTokens,
		Backend: cfg.Embed.Backend, ORTDir: cfg.ORTDir(), Threads: cfg.Embed.Threads, Device: cfg.Embed.Device,
	})
	if err != nil {
		return deps, func() {}, err
	}
	deps.Embedder = h
	return deps, func() { h.Close() }, nil
}

// effectiveModel is the model a configuration embeds with: embed.model, else the catalogue
// default for the backend that will run it (int8 on ONNX Runtime, fp32 on pure Go, which
// cannot run int8).
func effectiveModel(cfg config.Config) string {
	if cfg.Embed.Model != "" {
		return cfg.Embed.Model
	}
	if b, err := embed.ResolveBackend(cfg.Embed.Backend, cfg.ORTDir()); err == nil && b == embed.BackendGo {
		return models.FloatDefaultID
	}
	return models.DefaultID
}

// embedderLine says which backend embeds and, when auto fell back to pure Go, why: the choice
// is printed by every command that loads the model.
func embedderLine(cfg config.Config, deps worker.Deps) string {
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

// serveInProcess runs a worker in this process when the stack's Temporal server is embedded
// (nobody else can serve it) and returns how to stop it; against an external cluster it does
// nothing. announce, when set, is told which backend embeds.
func serveInProcess(ctx context.Context, st *infra.Stack, announce io.Writer) (stop func(), err error) {
	if st.Embedded.TemporalLog == "" {
		return func() {}, nil
	}
	deps, release, err := withModel(st.Config, worker.Deps{Bucket: st.Bucket})
	if err != nil {
		return func() {}, err
	}
	deps, closeRerank, err := withReranker(st.Config, deps)
	if err != nil {
		release()
		return func() {}, err
	}
	if announce != nil {
		printf(announce, "embedding: %s\n", embedderLine(st.Config, deps))
		if deps.Reranker != nil {
			printf(announce, "reranking: %s\n", rerankerLine(deps))
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() { werr <- worker.Run(wctx, st.Client, st.Config.Worker, deps) }()
	return func() { cancel(); <-werr; release(); closeRerank() }, nil
}

// startServing starts (or connects to) Temporal and the store and, on the embedded server, a
// worker in this process; stop ends both. announce, when set, is told which backend embeds.
func startServing(ctx context.Context, a *app, announce io.Writer) (st *infra.Stack, stop func(), err error) {
	st, err = infra.Start(ctx, a.cfg, infra.StartOptions{})
	if err != nil {
		return nil, func() {}, err
	}
	stopWorker, err := serveInProcess(ctx, st, announce)
	if err != nil {
		st.Close()
		return nil, func() {}, err
	}
	return st, func() { stopWorker(); st.Close() }, nil
}

// withRemoteModel is withModel for backend openai: the model is what the server at
// embed.base_url serves under embed.model. Its reference carries the request recipe's
// fingerprint (model name, prefixes, input types) and the vector length, from the config or,
// when that is 0, asked of the server once: every worker, embedding or not, must name shards
// alike.
func withRemoteModel(cfg config.Config, deps worker.Deps) (worker.Deps, func(), error) {
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
