package metrics

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestNilRecordsNothing: a worker without --metrics-addr has a nil *Metrics; recording on it
// must not panic.
func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.IndexPlanned(3, 2, 0, map[string]int64{"bad_date": 1})
	m.Embedded("ort", 128, time.Second)
	m.ShardBuilt(time.Second)
	m.ShardPublished(time.Second)
	m.ManifestPublished(time.Second)
	m.JudgeCall("llm")
	m.JudgeFailure(ClassServer)
	m.Retrieval("hybrid", time.Millisecond)
	m.EvalBatch(nil)
	m.SetReady(true)
}

func TestRecording(t *testing.T) {
	tests := []struct {
		name   string
		record func(m *Metrics)
		metric string
		want   string
	}{
		{"documents", func(m *Metrics) {
			m.IndexPlanned(6, 3, 0, map[string]int64{"bad_date": 1, "missing_id": 2})
			m.IndexPlanned(1, 1, 0, nil)
		}, "asof_documents_quarantined_total", `
# HELP asof_documents_quarantined_total Input rows rejected into quarantine/<run>/rejects.parquet, by reason.
# TYPE asof_documents_quarantined_total counter
asof_documents_quarantined_total{reason="bad_date"} 1
asof_documents_quarantined_total{reason="missing_id"} 2
`},
		{"read adds up", func(m *Metrics) {
			m.IndexPlanned(6, 3, 0, map[string]int64{"bad_date": 3})
			m.IndexPlanned(1, 1, 0, nil)
		}, "asof_documents_read_total", `
# HELP asof_documents_read_total Input rows read by index builds (PlanIndex): indexed + skipped + quarantined.
# TYPE asof_documents_read_total counter
asof_documents_read_total 7
`},
		{"chunks by backend", func(m *Metrics) {
			m.Embedded("ort", 128, time.Second)
			m.Embedded("ort", 5, time.Second)
			m.Embedded("openai", 7, time.Second)
		}, "asof_chunks_embedded_total", `
# HELP asof_chunks_embedded_total Chunks embedded by EmbedShard (parts resumed from the store are not counted again), by backend.
# TYPE asof_chunks_embedded_total counter
asof_chunks_embedded_total{backend="openai"} 7
asof_chunks_embedded_total{backend="ort"} 133
`},
		{"judge failures by class", func(m *Metrics) {
			m.JudgeFailure(ClassRateLimited)
			m.JudgeFailure(ClassRateLimited)
			m.JudgeFailure(ClassMalformed)
		}, "asof_judge_failures_total", `
# HELP asof_judge_failures_total Judge batches that failed, by class (config, rate_limited, server, bad_response, malformed, other).
# TYPE asof_judge_failures_total counter
asof_judge_failures_total{class="malformed"} 1
asof_judge_failures_total{class="rate_limited"} 2
`},
		{"eval batches by outcome", func(m *Metrics) {
			m.EvalBatch(nil)
			m.EvalBatch(errors.New("boom"))
			m.EvalBatch(nil)
		}, "asof_eval_batches_total", `
# HELP asof_eval_batches_total Eval batches finished, by outcome (done or failed).
# TYPE asof_eval_batches_total counter
asof_eval_batches_total{outcome="done"} 2
asof_eval_batches_total{outcome="failed"} 1
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			tt.record(m)
			if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(tt.want), tt.metric); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestServeHealthAndMetrics: /healthz is 503 until SetReady(true), /metrics serves asof's
// metrics and the Go runtime's.
func TestServeHealthAndMetrics(t *testing.T) {
	m := New()
	srv, err := Serve("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		c := http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get("http://" + srv.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get("/healthz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/healthz before ready: %d, want 503", code)
	}
	m.SetReady(true)
	if code, body := get("/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz when ready: %d %q", code, body)
	}
	m.Retrieval("hybrid", 20*time.Millisecond)
	code, body := get("/metrics")
	for _, want := range []string{`asof_retrieval_seconds_count{mode="hybrid"} 1`, "asof_documents_read_total 0", "go_goroutines"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, lacks %q", code, want)
		}
	}
	if _, err := Serve(srv.Addr(), New()); err == nil {
		t.Error("a second server on a taken address started")
	}
}

// BenchmarkEmbedded is the cost of recording one embedded part (a counter and a histogram of
// one backend), against a nil *Metrics (metrics off).
func BenchmarkEmbedded(b *testing.B) {
	for _, bm := range []struct {
		name string
		m    *Metrics
	}{{"on", New()}, {"off", nil}} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				bm.m.Embedded("ort", 128, 40*time.Millisecond)
			}
		})
	}
}
