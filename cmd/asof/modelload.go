package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/modelchoice"
	"github.com/asofrag/asof/internal/models"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/worker"
)

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
	in := modelchoice.Input{Configured: cfg.Embed.Model, Source: a.modelSource, Remote: cfg.Embed.Remote(), Default: worker.DefaultModel(cfg)}
	if s.Live != nil {
		in.Index = &s.Live.Model
	}
	s.Choice = modelchoice.Choose(in)
	if s.Choice.Reason == modelchoice.Default && look != nil && !cfg.Embed.Remote() && !worker.PureGo(cfg) {
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

// serveInProcess runs a worker in this process when the stack's Temporal server is embedded
// (nobody else can serve it) or is the data dir's running asof server, which runs no worker
// (a.runsWorker), and returns how to stop it; against an external cluster or a running asof
// dev it does nothing. announce, when set, is told which backend embeds.
func serveInProcess(ctx context.Context, a *app, st *infra.Stack, announce io.Writer) (stop func(), err error) {
	if !a.runsWorker(st) {
		return func() {}, nil
	}
	follow := a.serving || a.modelSource == "" // asof serve answers every index
	deps, release, err := worker.Build(st.Config, worker.Deps{Bucket: st.Bucket}, follow)
	if err != nil {
		return func() {}, err
	}
	if announce != nil {
		printf(announce, "embedding: %s\n", worker.EmbedderLine(st.Config, deps))
		if deps.Reranker != nil {
			printf(announce, "reranking: %s\n", worker.RerankerLine(deps))
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() { werr <- worker.Run(wctx, st.Client, st.Config.Worker, deps) }()
	return func() { cancel(); <-werr; release() }, nil
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
