package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// scrape GETs url and parses its Prometheus text exposition.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var p expfmt.TextParser
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return mfs
}

// metricSum is the sum of the counter (or histogram count) of family name over the series
// whose labels include want.
func metricSum(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	sum := 0.0
	mf := mfs[name]
	if mf == nil {
		return 0
	}
series:
	for _, m := range mf.GetMetric() {
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		}
	}
	return sum
}

// TestWorkerMetricsReconcileWithModel runs `asof server` and `asof worker --metrics-addr` as
// separate processes, builds a small index with quarantined rows through them (`asof index`),
// scrapes the worker's /metrics over HTTP and checks that asof's counters reconcile with the
// build's result (read = indexed + quarantined, each equal to the result's, by reason; chunks
// embedded = the result's chunks), that the Temporal SDK's own metrics are there, that
// /healthz answers 200, and that the embedded Temporal server's metrics address, printed by
// `asof server`, serves.
func TestWorkerMetricsReconcileWithModel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and a worker in subprocesses")
	}
	modelDir := testmodel.ModelsDir(t)
	dir := t.TempDir()
	serverMetrics := "127.0.0.1:" + freePort(t)
	server, env, hostPort, store := startServer(t, dir, "--ui-port", "0", "--metrics-addr", serverMetrics, "--log-level", "error")
	temporalMetrics := server.waitFor(t, regexp.MustCompile(`Metrics   (http://127\.0\.0\.1:\d+/metrics)  \(the embedded Temporal server's own\)`))[1]

	addr := "127.0.0.1:" + freePort(t)
	wk := startProc(t, env, "worker", "--temporal", hostPort, "--store", store, "--model-dir", modelDir, "--metrics-addr", addr, "--log-level", "info")
	wk.waitFor(t, regexp.MustCompile(`asof worker polling`))
	// --log-level reaches the SDK's worker logger: at info it says that it started.
	wk.waitFor(t, regexp.MustCompile(`level=INFO msg="Started Worker"`))
	if !strings.Contains(wk.output(), "metrics on http://"+addr+"/metrics") {
		t.Errorf("worker does not print its metrics address:\n%s", wk.output())
	}
	for _, u := range []string{"http://" + addr + "/healthz", "http://" + serverMetrics + "/healthz"} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get(u)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not 200 within 10 s (%v)", u, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	rows := []newsRow{
		{"a", "2024-05-01", "The central bank kept the key rate unchanged and signalled caution."},
		{"b", "2024-05-02", "Oil prices fell after the OPEC meeting ended without a deal."},
		{"c", "2024-06-03", "The finance ministry placed new bonds at a higher yield."},
		{"bad", "yesterday", "No usable date."},
		{"", "2024-06-04", "No id."},
		{"a", "2024-05-01", "The central bank kept the key rate unchanged and signalled caution."}, // sent twice: a duplicate (other text published later would be its next version)
	}
	file := writeParquetFile(t, dir, "news.parquet", rows)
	idx := startProc(t, env, "index", "--temporal", hostPort, "--store", store, "--model-dir", modelDir,
		"--index", "metrics", "--corpus", file, "--json")
	select {
	case err := <-idx.done:
		if err != nil {
			t.Fatalf("index failed: %v\n%s\nworker:\n%s", err, idx.output(), wk.output())
		}
	case <-time.After(4 * time.Minute):
		t.Fatalf("index did not finish within 4 minutes\n%s", idx.output())
	}
	<-idx.read
	out := idx.output()
	var res workflows.IndexBuildResult
	decodeJSONOutput(t, out, &res)
	c := res.Counts
	if c.Read != 6 || c.Indexed != 3 || c.QuarantinedTotal() != 3 || len(c.Quarantined) != 3 || c.Chunks == 0 {
		t.Fatalf("the fixture should read 6 rows, index 3 and quarantine 3 for 3 reasons: %+v", c)
	}

	// The SDK's metrics reach the registry on its reporting interval: wait for them.
	var mfs map[string]*dto.MetricFamily
	deadline := time.Now().Add(15 * time.Second)
	for {
		mfs = scrape(t, "http://"+addr+"/metrics")
		if metricSum(mfs, "temporal_workflow_completed_total", map[string]string{"workflow_type": "IndexBuild"}) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			var names []string
			for n := range mfs {
				names = append(names, n)
			}
			t.Fatalf("no temporal_workflow_completed_total{workflow_type=IndexBuild} within 15 s; families: %v", names)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, check := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"asof_documents_read_total", nil, float64(c.Read)},
		{"asof_documents_indexed_total", nil, float64(c.Indexed)},
		{"asof_documents_skipped_total", nil, float64(c.Skipped)},
		{"asof_documents_quarantined_total", nil, float64(c.QuarantinedTotal())},
		{"asof_documents_quarantined_total", map[string]string{"reason": schemas.ReasonBadDate}, float64(c.Quarantined[schemas.ReasonBadDate])},
		{"asof_documents_quarantined_total", map[string]string{"reason": schemas.ReasonMissingID}, float64(c.Quarantined[schemas.ReasonMissingID])},
		{"asof_documents_quarantined_total", map[string]string{"reason": schemas.ReasonDuplicateID}, float64(c.Quarantined[schemas.ReasonDuplicateID])},
		{"asof_chunks_embedded_total", nil, float64(c.Chunks)},
		{"asof_embed_seconds", nil, float64(res.PartsEmbedded)},
		{"asof_shard_build_seconds", nil, float64(res.ShardsBuilt)},
		{"asof_shard_publish_seconds", nil, float64(res.ShardsBuilt)},
		{"asof_manifest_publish_seconds", nil, 1},
	} {
		if got := metricSum(mfs, check.name, check.labels); got != check.want {
			t.Errorf("%s%v = %v, want %v (the build's result)", check.name, check.labels, got, check.want)
		}
	}
	read := metricSum(mfs, "asof_documents_read_total", nil)
	rest := metricSum(mfs, "asof_documents_indexed_total", nil) + metricSum(mfs, "asof_documents_quarantined_total", nil) + metricSum(mfs, "asof_documents_skipped_total", nil)
	if read == 0 || read != rest {
		t.Errorf("documents read %v != indexed + quarantined + skipped %v", read, rest)
	}
	for _, name := range []string{"temporal_activity_execution_latency_seconds", "temporal_workflow_endtoend_latency_seconds", "go_goroutines", "process_cpu_seconds_total"} {
		if mfs[name] == nil {
			t.Errorf("no %s in the worker's metrics", name)
		}
	}
	if metricSum(mfs, "temporal_activity_execution_latency_seconds", map[string]string{"activity_type": "EmbedShard"}) < 1 {
		t.Error("no EmbedShard in temporal_activity_execution_latency_seconds")
	}
	if got := scrape(t, temporalMetrics); len(got) == 0 {
		t.Errorf("the embedded Temporal server's metrics at %s are empty", temporalMetrics)
	}
	wk.interrupt(t)
	server.interrupt(t)
	// --log-level error reaches the embedded Temporal server: its log file holds no line below
	// error (at warn it holds warnings of this very run).
	tlog, err := os.ReadFile(filepath.Join(dir, "temporal.db.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, lvl := range []string{`"level":"debug"`, `"level":"info"`, `"level":"warn"`} {
		if strings.Contains(string(tlog), lvl) {
			t.Errorf("the Temporal server at --log-level error logged %s lines:\n%.2000s", lvl, tlog)
		}
	}
	t.Logf("scraped %d metric families; build: %s", len(mfs), fmt.Sprint(c))
}

// TestDevServesMetrics: `asof dev --metrics-addr` serves /healthz once its in-process worker
// polls, and its /metrics counts the health check's workflow run (the SDK's handler reaches
// the dev worker) next to asof's own metrics.
func TestDevServesMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded servers in a subprocess")
	}
	addr := "127.0.0.1:" + freePort(t)
	dev := startProc(t, nil, "dev", "--data-dir", t.TempDir(), "--temporal-port", freePort(t), "--s3-port", freePort(t), "--ui-port", "0", "--metrics-addr", addr)
	dev.waitFor(t, regexp.MustCompile(`asof dev is up`))
	if !strings.Contains(dev.output(), "asof dev: metrics on http://"+addr+"/metrics") {
		t.Errorf("dev does not print its metrics address:\n%s", dev.output())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz after the health check passed: %s", resp.Status)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		mfs := scrape(t, "http://"+addr+"/metrics")
		if metricSum(mfs, "temporal_workflow_completed_total", map[string]string{"workflow_type": "HealthCheck"}) >= 1 && mfs["asof_documents_read_total"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HealthCheck in temporal_workflow_completed_total, or no asof metrics, within 15 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	dev.interrupt(t)
}

// TestMetricsOnEveryInterfaceWarns: --metrics-addr :PORT (every interface) gets a loud
// warning on stderr; a loopback address gets none. The worker then fails on its unreachable
// Temporal server, after the metrics endpoint started.
func TestMetricsOnEveryInterfaceWarns(t *testing.T) {
	tests := []struct {
		name, addr string
		warn       bool
	}{
		{"every interface", ":" + freePort(t), true},
		{"loopback", "127.0.0.1:" + freePort(t), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errOut := runCLI(t, nil, "worker", "--temporal", "127.0.0.1:1", "--store", t.TempDir(), "--metrics-addr", tt.addr)
			if got := strings.Contains(errOut, "WARNING: --metrics-addr "+tt.addr+" listens on every network interface"); got != tt.warn {
				t.Errorf("warning shown %v, want %v; stderr:\n%s", got, tt.warn, errOut)
			}
		})
	}
}
