package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/worker"
)

// metricsFlag adds --metrics-addr to cmd (asof worker, dev and server).
func (a *app) metricsFlag(cmd *cobra.Command) {
	a.str(cmd.Flags(), "metrics-addr", "", "serve Prometheus /metrics (asof's and the Temporal SDK's) and /healthz at host:port, e.g. 127.0.0.1:9464 or a pod IP (ASOF_METRICS_ADDR; default off)",
		func(c *config.Config, v string) { c.MetricsAddr = v })
}

// servedMetrics is the metrics of a process started with --metrics-addr; the zero value (off)
// records nothing and stops nothing.
type servedMetrics struct {
	m       *metrics.Metrics
	srv     *metrics.Server
	closeSD func() error
}

// serveMetrics starts the metrics server at a.cfg.MetricsAddr when it is set, prints its
// address (who names the command), warns loudly on stderr when the address is reachable from
// other machines (metrics.Exposed), and sets opts.MetricsHandler so that the SDK's metrics are
// recorded too. Listening comes first, so a taken port fails before anything else starts.
func (a *app) serveMetrics(w io.Writer, who string, opts *infra.StartOptions) (servedMetrics, error) {
	if a.cfg.MetricsAddr == "" {
		return servedMetrics{}, nil
	}
	m := metrics.New()
	srv, err := metrics.Serve(a.cfg.MetricsAddr, m)
	if err != nil {
		return servedMetrics{}, err
	}
	h, closeSDK := worker.SDKMetrics(m.Registry())
	opts.MetricsHandler = h
	printf(w, "%s: metrics on http://%s/metrics, health on /healthz\n", who, srv.Addr())
	if where := metrics.Exposed(a.cfg.MetricsAddr); where != "" {
		printf(a.stderr, "%s: WARNING: --metrics-addr %s listens on %s: anyone who can reach this machine can read /metrics (workflow, task queue and index names, counts, timings) and /healthz. Use 127.0.0.1:PORT unless a scraper on another machine needs it, and then firewall the port.\n",
			who, a.cfg.MetricsAddr, where)
	}
	return servedMetrics{m: m, srv: srv, closeSD: closeSDK}, nil
}

// Close stops the metrics server and the SDK's reporting loop.
func (s servedMetrics) Close() {
	if s.srv != nil {
		_ = s.closeSD()
		_ = s.srv.Close()
	}
}
