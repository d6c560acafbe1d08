// Package metrics holds asof's own Prometheus metrics, registered in one place, and the HTTP
// server that exposes them (/metrics, and /healthz for probes).
//
// Activities record through a *Metrics; every recording method is safe on a nil receiver, so
// a worker started without --metrics-addr records nothing and breaks nothing. The Temporal
// SDK's own metrics are registered into the same Registry by the worker package (through the
// SDK's tally contrib handler): one scrape returns both. docs/metrics.md lists every metric.
package metrics

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every asof metric name.
const Namespace = "asof"

// Judge failure classes (the class label of asof_judge_failures_total).
const (
	ClassConfig      = "config"
	ClassRateLimited = "rate_limited"
	ClassServer      = "server"
	ClassBadResponse = "bad_response"
	ClassMalformed   = "malformed"
	ClassOther       = "other"
)

// Metrics are asof's own metrics and the registry they (and the SDK's) live in.
type Metrics struct {
	reg   *prometheus.Registry
	ready atomic.Bool

	docsRead        prometheus.Counter
	docsIndexed     prometheus.Counter
	docsSkipped     prometheus.Counter
	docsQuarantined *prometheus.CounterVec
	chunksEmbedded  *prometheus.CounterVec
	embedSeconds    *prometheus.HistogramVec
	shardBuild      prometheus.Histogram
	shardPublish    prometheus.Histogram
	manifestPublish prometheus.Histogram
	judgeCalls      *prometheus.CounterVec
	judgeFailures   *prometheus.CounterVec
	retrieval       *prometheus.HistogramVec
	evalBatches     *prometheus.CounterVec
}

// New registers asof's metrics, with the Go runtime's and the process's, in a fresh registry
// (not Prometheus's global one: the embedded Temporal server registers its own there).
func New() *Metrics {
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) prometheus.Collector { reg.MustRegister(c); return c }
	counter := func(name, help string) prometheus.Counter {
		return f(prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help})).(prometheus.Counter)
	}
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return f(prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)).(*prometheus.CounterVec)
	}
	seconds := prometheus.ExponentialBuckets(0.005, 2.5, 12) // 5 ms .. ~5 min
	histogram := func(name, help string) prometheus.Histogram {
		return f(prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: seconds})).(prometheus.Histogram)
	}
	histogramVec := func(name, help string, labels ...string) *prometheus.HistogramVec {
		return f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: seconds}, labels)).(*prometheus.HistogramVec)
	}
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Metrics{
		reg:             reg,
		docsRead:        counter("documents_read_total", "Input rows read by index builds (PlanIndex): indexed + skipped + quarantined."),
		docsIndexed:     counter("documents_indexed_total", "Input rows that became documents of an index build."),
		docsSkipped:     counter("documents_skipped_total", "Input rows outside the build's --from/--to window, or already in the index an append extends."),
		docsQuarantined: counterVec("documents_quarantined_total", "Input rows rejected into quarantine/<run>/rejects.parquet, by reason.", "reason"),
		chunksEmbedded:  counterVec("chunks_embedded_total", "Chunks embedded by EmbedShard (parts resumed from the store are not counted again), by backend.", "backend"),
		embedSeconds:    histogramVec("embed_seconds", "Time of one EmbedShard part (up to 128 chunks) in the embedder, by backend.", "backend"),
		shardBuild:      histogram("shard_build_seconds", "Time WriteShard takes to assemble a shard's files (chunks, vectors, BM25) locally."),
		shardPublish:    histogram("shard_publish_seconds", "Time WriteShard takes to upload a built shard's files to the store."),
		manifestPublish: histogram("manifest_publish_seconds", "Time PublishManifest takes to write a manifest and move CURRENT to it."),
		judgeCalls:      counterVec("judge_calls_total", "Judge batches attempted, by method (llm or heuristic); failures are also counted in judge_failures_total.", "method"),
		judgeFailures:   counterVec("judge_failures_total", "Judge batches that failed, by class (config, rate_limited, server, bad_response, malformed, other).", "class"),
		retrieval:       histogramVec("retrieval_seconds", "Time to load the shards and rank one ask (Answer, Candidates), by mode.", "mode"),
		evalBatches:     counterVec("eval_batches_total", "Eval batches finished, by outcome (done or failed).", "outcome"),
	}
}

// Registry is where asof's metrics live; the SDK's are registered into it too.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// SetReady says whether /healthz answers 200 (the worker polls, the server serves).
func (m *Metrics) SetReady(ok bool) {
	if m != nil {
		m.ready.Store(ok)
	}
}

// Handler serves /metrics (the registry, Prometheus text or OpenMetrics) and /healthz (200
// "ok" once SetReady(true), 503 before).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !m.ready.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// Server is a running metrics HTTP server.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Serve listens on addr (host:port; port 0 picks a free one) and serves m's Handler until
// Close. It fails at once when the address cannot be bound.
func Serve(addr string, m *Metrics) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	s := &Server{srv: &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return s, nil
}

// Addr is the address the server listens on (the chosen port filled in).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// IndexPlanned records a build's reconciled input rows: read = indexed + skipped + the sum of
// quarantined (by reason).
func (m *Metrics) IndexPlanned(read, indexed, skipped int64, quarantined map[string]int64) {
	if m == nil {
		return
	}
	m.docsRead.Add(float64(read))
	m.docsIndexed.Add(float64(indexed))
	m.docsSkipped.Add(float64(skipped))
	for reason, n := range quarantined {
		m.docsQuarantined.WithLabelValues(reason).Add(float64(n))
	}
}

// Embedded records n chunks embedded by backend in d.
func (m *Metrics) Embedded(backend string, n int, d time.Duration) {
	if m == nil {
		return
	}
	m.chunksEmbedded.WithLabelValues(backend).Add(float64(n))
	m.embedSeconds.WithLabelValues(backend).Observe(d.Seconds())
}

// ShardBuilt records the local assembly of one shard.
func (m *Metrics) ShardBuilt(d time.Duration) {
	if m != nil {
		m.shardBuild.Observe(d.Seconds())
	}
}

// ShardPublished records the upload of one shard's files.
func (m *Metrics) ShardPublished(d time.Duration) {
	if m != nil {
		m.shardPublish.Observe(d.Seconds())
	}
}

// ManifestPublished records one manifest publication.
func (m *Metrics) ManifestPublished(d time.Duration) {
	if m != nil {
		m.manifestPublish.Observe(d.Seconds())
	}
}

// JudgeCall records one judged batch by method (llm or heuristic).
func (m *Metrics) JudgeCall(method string) {
	if m != nil {
		m.judgeCalls.WithLabelValues(method).Inc()
	}
}

// JudgeFailure records one failed judge batch by class (ClassConfig, ...).
func (m *Metrics) JudgeFailure(class string) {
	if m != nil {
		m.judgeFailures.WithLabelValues(class).Inc()
	}
}

// Retrieval records one ranking in mode that took d.
func (m *Metrics) Retrieval(mode string, d time.Duration) {
	if m != nil {
		m.retrieval.WithLabelValues(mode).Observe(d.Seconds())
	}
}

// EvalBatch records one eval batch: done when err is nil, failed otherwise.
func (m *Metrics) EvalBatch(err error) {
	if m == nil {
		return
	}
	outcome := "done"
	if err != nil {
		outcome = "failed"
	}
	m.evalBatches.WithLabelValues(outcome).Inc()
}
