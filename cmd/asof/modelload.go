package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/infra/llmserver"
	"github.com/asofrag/asof/infra/models"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/modelcache"
	"github.com/asofrag/asof/internal/modelchoice"
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
	r, o, closeFn, err := rerank.FromConfig(cfg)
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
// shards by it) and, when the worker serves the embed queue, the loaded embedder, and with
// follow the models of other indexes, loaded for their queries on demand (deps.QueryModels);
// and, when it serves the LLM queue and llm.base_url is set, the LLM client.
func withModel(cfg config.Config, deps worker.Deps, follow followIndexes) (worker.Deps, func(), error) {
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
	if cfg.LLM.Slots == 0 {
		cfg.LLM.Slots = 1
	}
	// llama.cpp splits its context between the slots: each gets the whole localLLMContext.
	srv, err := llmserver.Start(context.Background(), llmserver.Options{Dir: cfg.LLM.RuntimeDir, Model: file, Alias: id,
		Ctx: localLLMContext * cfg.LLM.Slots, Parallel: cfg.LLM.Slots, Threads: runtime.NumCPU(), Log: logf})
	if err != nil {
		logf.Close()
		return cfg, nil, fmt.Errorf("--llm local: %w (its log: %s)", err, logPath)
	}
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Local = srv.BaseURL, id, ""
	cfg.LLM.JSONSchema = true // llama.cpp compiles the schemas into grammars
	if cfg.LLM.Judge == "" {
		// The heuristic judged better than the local models against human labels (BENCHMARKS.md,
		// session 19; mean kept nDCG@10 over three dev sets 0.817 vs the 1.5B's best 0.763): the
		// local model writes, the heuristic judges.
		cfg.LLM.Judge = "heuristic"
	}
	if cfg.LLM.JudgePerCall == 0 {
		// With --judge llm the 1.5B judges one candidate a call better than eight on all three
		// dev sets (kept nDCG@10 tg 0.762 vs 0.627, realtimeqa 0.527 vs 0.459, chronoqa 1.000 vs
		// 0.833), at about the same seconds a candidate: the shared prefix is cached.
		cfg.LLM.JudgePerCall = 1
	}
	if cfg.LLM.Timeout == 0 {
		cfg.LLM.Timeout = localLLMTimeout
	}
	if cfg.LLM.MaxTokens == 0 {
		cfg.LLM.MaxTokens = localLLMMaxTokens
	}
	return cfg, func() { srv.Close(); logf.Close() }, nil
}

// The server gets every core: on 2 cores of an Intel Xeon the 1.5B read a judge prompt at 50-52
// tokens/s and wrote 9.3-9.6 tokens/s with 2 threads, 28 and 5.2 with 1 (BENCHMARKS.md session
// 17). A local model on a few CPU cores reads a prompt at tens of tokens a second: the summary's
// prompt (~6,000 tokens for a 20-block context) needs minutes, not the 60 s an endpoint gets
// by default (llm.timeout still wins). The context is 16,384 tokens: `--rubric llm` shows the
// grader a study summary with its context, 8,006 tokens for the study's longest (18,570 + 3,901
// characters of Russian), past 8,192 with the instructions; its KV cache costs the 1.5B about
// 0.5 GB.
const (
	localLLMContext = 16384
	localLLMTimeout = 5 * time.Minute
	// localLLMMaxTokens: a Russian brief from the 1.5B ran into the endpoint default of 512
	// tokens three times in a row (a cut reply is not JSON, so it fell back); the judge's
	// grammar-held reply needs under 100.
	localLLMMaxTokens = 1024
)

// followIndexes says whether a worker embeds each index's queries with the index's own model
// (deps.QueryModels), loading it on demand where that is not the worker's: a long-running
// worker (asof dev, serve, worker) does, since it answers every index; a command's own worker
// does unless the user set its model (--embed-model, embed.model, ASOF_EMBED_MODEL), which then
// wins, and an index built with another model is refused, naming both.
type followIndexes bool

// withModelAndEndpoint is withModel once the LLM, if any, has an endpoint.
func withModelAndEndpoint(cfg config.Config, deps worker.Deps, follow followIndexes) (worker.Deps, func(), error) {
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
	m, err := models.Resolve(effectiveModel(cfg), cfg.ModelsDirFor(effectiveModel(cfg)))
	if err != nil {
		return deps, func() {}, err
	}
	deps.Model = modelRef(m)
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
	qm := modelcache.New(queryModelsKept, queryModelLoader(cfg))
	deps.QueryModels = qm
	return deps, func() { qm.Close(); h.Close() }, nil
}

// queryModelsKept is how many models a worker keeps loaded for queries on indexes built with
// another model than its own (modelcache.Cache).
const queryModelsKept = modelcache.DefaultKeep

// modelRef is how indexes record model m.
func modelRef(m models.Model) schemas.ModelRef {
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

// queryModelLoader loads a model by the id an index's manifest records, as the CLI loads the
// index's model (models.Resolve in the models folders, then the backend cfg configures); it
// pulls nothing (the CLI does not either, for an index's model). Its errors say what to do:
// the pull command for a catalogue model not pulled, where to put a folder model, and that an
// int8 or XLM-R model needs ONNX Runtime on a pure-Go worker.
func queryModelLoader(cfg config.Config) modelcache.Loader {
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
		return h, modelRef(m), nil
	}
}

// effectiveModel is the model a configuration embeds with when no index is to be followed:
// embed.model, else the catalogue default for the backend (defaultModel).
func effectiveModel(cfg config.Config) string {
	if cfg.Embed.Model != "" {
		return cfg.Embed.Model
	}
	return defaultModel(cfg)
}

// defaultModel is the catalogue default for new indexes on the backend that will run it:
// int8 on ONNX Runtime, fp32 on pure Go, which cannot run int8.
func defaultModel(cfg config.Config) string {
	if pureGo(cfg) {
		return models.FloatDefaultID
	}
	return models.DefaultID
}

// pureGo reports whether a local model runs on hugot's pure-Go backend (set so, or auto
// without a loadable ONNX Runtime).
func pureGo(cfg config.Config) bool {
	b, err := embed.ResolveBackend(cfg.Embed.Backend, cfg.ORTDir())
	return err == nil && b == embed.BackendGo
}

// multilingualModel is the catalogue's multilingual model, which a warning about unread
// languages names; "" for an embeddings server, whose models are its own. It needs ONNX
// Runtime: on pure Go, loading it says so and how to set it up.
func multilingualModel(cfg config.Config) string {
	if cfg.Embed.Remote() {
		return ""
	}
	return models.DefaultID
}

// modelLanguages are the languages model id reads, as its catalogue entry or model folder
// says (nil when unknown: a server's model, or a folder that does not say).
func modelLanguages(cfg config.Config, id string) []string {
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

// servedModel is what a command learned about the model that embeds for it.
type servedModel struct {
	// Choice is the model and why. On an external cluster the command does not embed:
	// Choice is then empty, and the workers' model is known from what they report.
	Choice modelchoice.Choice
	// Languages are the chosen model's (nil: unknown).
	Languages []string
	// Live is the named index's live manifest; nil when the index has none yet (or no index
	// was named).
	Live *schemas.Manifest
}

// InProcess reports whether this process's worker embeds, with Choice.Model.
func (s servedModel) InProcess() bool { return s.Choice.Model != "" }

// corpusLook lets chooseModel choose a new index's model by its corpus
// (modelchoice.EnglishCorpus): sample reads the corpus the build is about to index; log is
// told when the English model is pulled for it, or why it cannot be.
type corpusLook struct {
	sample func(context.Context) ([]schemas.Document, error)
	log    io.Writer
}

// pullModel fetches a catalogue model (models.Pull); tests replace it, so that they never
// download.
var pullModel = models.Pull

// englishPullTimeout bounds the pull of the English model for an English corpus (34 MB): past
// it, or offline, the index takes the default instead.
const englishPullTimeout = 3 * time.Minute

// chooseModel reads the live manifest of index (when named) and, when this process runs the
// worker (the embedded server), decides its model (modelchoice.Choose): the configured one,
// else the index's, else, for a new index on ONNX Runtime whose corpus (look, when set) is
// English, models.EnglishID, else the default, and sets it in st.Config for the worker. An
// index model this machine cannot load is an error that names the index and the way out.
func chooseModel(ctx context.Context, a *app, st *infra.Stack, index string, look *corpusLook) (servedModel, error) {
	var s servedModel
	if index != "" {
		m, err := liveManifest(ctx, st.Bucket, index)
		if err != nil {
			return s, err
		}
		s.Live = m
	}
	if !a.runsWorker(st) {
		return s, nil
	}
	cfg := st.Config
	in := modelchoice.Input{Configured: cfg.Embed.Model, Source: a.modelSource, Remote: cfg.Embed.Remote(), Default: defaultModel(cfg)}
	if s.Live != nil {
		in.Index = &s.Live.Model
	}
	s.Choice = modelchoice.Choose(in)
	if s.Choice.Reason == modelchoice.Default && look != nil && !cfg.Embed.Remote() && !pureGo(cfg) {
		s.Choice = chooseByCorpus(ctx, cfg, in, look)
	}
	st.Config.Embed.Model = s.Choice.Model
	if cfg.Embed.Remote() {
		return s, nil
	}
	m, err := models.Resolve(s.Choice.Model, cfg.ModelsDirFor(s.Choice.Model))
	if err != nil && s.Choice.Reason == modelchoice.Index {
		return s, fmt.Errorf("index %s was built with model %s, which it keeps unless --embed-model says otherwise: %w", index, s.Choice.Model, err)
	}
	if err != nil {
		return s, err
	}
	s.Languages = m.Spec.Languages
	return s, nil
}

// chooseByCorpus is the choice for a new index on a local ONNX Runtime backend with no model
// configured: models.EnglishID when a sample of the corpus is English, pulled if it is not
// here yet; else, or when the corpus cannot be read or the model cannot be pulled, the
// default (the last said in one line on look.log).
func chooseByCorpus(ctx context.Context, cfg config.Config, in modelchoice.Input, look *corpusLook) modelchoice.Choice {
	docs, err := look.sample(ctx)
	if err != nil { // the build reads the files again and reports what is wrong with them
		return modelchoice.Choose(in)
	}
	sample := modelchoice.SampleOf(docs)
	in.English, in.Gain, in.Corpus = models.EnglishID, models.EnglishGain, &sample
	c := modelchoice.Choose(in)
	if c.Reason != modelchoice.EnglishCorpus {
		return c
	}
	dir := cfg.ModelsDirFor(c.Model)
	_, err = models.Resolve(c.Model, dir)
	if errors.Is(err, models.ErrNotPulled) {
		printf(look.log, "the corpus is English (%d of %d sampled documents): pulling %s for it\n", sample.English, sample.Docs, c.Model)
		pctx, cancel := context.WithTimeout(ctx, englishPullTimeout)
		_, err = pullModel(pctx, c.Model, dir, look.log)
		cancel()
	}
	if err != nil {
		printf(look.log, "the corpus is English (%d of %d sampled documents), but %s cannot be loaded here (%s): the default instead\n",
			sample.English, sample.Docs, c.Model, firstLine(err.Error()))
		in.Corpus = nil
		return modelchoice.Choose(in)
	}
	return c
}

// liveManifest reads the manifest CURRENT names for index; nil when the index has none yet.
func liveManifest(ctx context.Context, b blob.Bucket, index string) (*schemas.Manifest, error) {
	cur, err := layout.ReadCurrent(ctx, b, index)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, nil
	case errors.Is(err, layout.ErrDamaged): // it names CURRENT
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("read index %s: %w", index, err)
	}
	m, err := layout.ReadManifest(ctx, b, layout.ManifestOf(index, cur))
	if errors.Is(err, layout.ErrDamaged) {
		return nil, fmt.Errorf("index %s, %s: %w", index, cur.Manifest, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", index, err)
	}
	return &m, nil
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
// (nobody else can serve it) or is the data dir's running asof server, which runs no worker
// (a.runsWorker), and returns how to stop it; against an external cluster or a running asof
// dev it does nothing. announce, when set, is told which backend embeds.
func serveInProcess(ctx context.Context, a *app, st *infra.Stack, announce io.Writer) (stop func(), err error) {
	if !a.runsWorker(st) {
		return func() {}, nil
	}
	follow := followIndexes(a.serving || a.modelSource == "") // asof serve answers every index
	deps, release, err := withModel(st.Config, worker.Deps{Bucket: st.Bucket}, follow)
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
// worker in this process, embedding with the model chooseModel picks for index (the index the
// command works on; "" for none); stop ends both. announce, when set, is told which model
// embeds and why, and on which backend.
func startServing(ctx context.Context, a *app, index string, announce io.Writer) (st *infra.Stack, served servedModel, stop func(), err error) {
	return startServingCorpus(ctx, a, index, nil, announce)
}

// startServingCorpus is startServing for a command about to build index from a corpus (look):
// a new index with no model configured takes its model by the corpus (chooseByCorpus).
func startServingCorpus(ctx context.Context, a *app, index string, look *corpusLook, announce io.Writer) (st *infra.Stack, served servedModel, stop func(), err error) {
	st, err = infra.Start(ctx, a.cfg, infra.StartOptions{})
	if err != nil {
		return nil, served, func() {}, portClash(err, false)
	}
	if served, err = chooseModel(ctx, a, st, index, look); err != nil {
		st.Close()
		return nil, served, func() {}, err
	}
	if announce != nil && served.InProcess() {
		printf(announce, "%s\n", served.Choice.Line(served.Languages))
		if h := served.Choice.Hint(); h != "" {
			printf(announce, "%s\n", h)
		}
	}
	stopWorker, err := serveInProcess(ctx, a, st, announce)
	if err != nil {
		st.Close()
		return nil, served, func() {}, err
	}
	return st, served, func() { stopWorker(); st.Close() }, nil
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
