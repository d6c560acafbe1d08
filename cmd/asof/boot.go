package main

import (
	"context"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/worker"
)

// boot is what a long-running command (dev, server, worker) starts before its own work: the
// metrics endpoint, when --metrics-addr asks for one, and infra.Start's stack (the embedded
// servers it is configured for, the store and the Temporal client).
type boot struct {
	st *infra.Stack
	sm servedMetrics
}

// startBoot starts the metrics endpoint (listening first, so a taken port fails before
// anything else starts; who names the command in what it prints), then the stack, with the
// Temporal Web UI when ui is set. Close stops both. It refuses to start embedded servers on a
// data dir where another asof dev or server runs.
func (a *app) startBoot(ctx context.Context, who string, ui bool) (*boot, error) {
	if err := a.refuseSecondStack(ctx, who); err != nil {
		return nil, err
	}
	opts := infra.StartOptions{UI: ui, Logger: infra.NewLogger(a.stderr, a.cfg)} // notes (a data dir made private) and the SDK's lines
	sm, err := a.serveMetrics(a.stdout, who, &opts)
	if err != nil {
		return nil, err
	}
	st, err := infra.Start(ctx, a.cfg, opts)
	if err != nil {
		sm.Close()
		return nil, portClash(err, true)
	}
	return &boot{st: st, sm: sm}, nil
}

// Close stops the stack, then the metrics endpoint.
func (b *boot) Close() {
	b.st.Close()
	b.sm.Close()
}

// workerDeps gathers what this process's worker runs with under cfg: the store, the metrics,
// the LLM client, the embedding model and the reranker (withModel, withReranker). noModel is
// withModel's error, which does not stop the worker (index work then fails on it); err, a
// reranker that cannot be built, does. release frees the model and the reranker; it is never
// nil.
func (b *boot) workerDeps(cfg config.Config) (deps worker.Deps, noModel error, release func(), err error) {
	// A long-running worker answers every index, each with its own model.
	deps, releaseModel, noModel := worker.WithModel(cfg, worker.Deps{Bucket: b.st.Bucket, Metrics: b.sm.m}, true)
	deps, closeRerank, err := worker.WithReranker(cfg, deps)
	if err != nil {
		releaseModel()
		return deps, noModel, func() {}, err
	}
	return deps, noModel, func() { closeRerank(); releaseModel() }, nil
}
