package worker

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// SDKMetricsInterval is how often the SDK's metrics are copied into the Prometheus registry.
const SDKMetricsInterval = time.Second

// SDKMetrics is a client.MetricsHandler that records the Temporal SDK's own metrics (workflow
// and activity counts and latencies, poller and task slot figures: temporal_*) into reg,
// through the SDK's tally contrib handler with Prometheus naming (counters end in _total,
// timers are histograms in _seconds). Pass it as client.Options.MetricsHandler; close stops
// its reporting loop after a last flush.
func SDKMetrics(reg *prometheus.Registry) (h client.MetricsHandler, close func() error) {
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:       reg,
		DefaultTimerType: tallyprom.HistogramTimerType,
		OnRegisterError: func(err error) {
			slog.Debug("sdk metrics: register", "err", err)
		},
	})
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sdktally.PrometheusSanitizeOptions,
	}, SDKMetricsInterval)
	return sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope)), closer.Close
}
