package activities

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/judge"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/llm"
	"github.com/asofrag/asof/internal/llm/llmtest"
	"github.com/asofrag/asof/internal/metrics"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
)

// SampleCount is sampleCount for the package's external tests.
var SampleCount = sampleCount

// sampleCount is the value of counter name (or the sample count of histogram name) in the
// series with label=value, read from m's registry.
func sampleCount(t *testing.T, m *metrics.Metrics, name, label, value string) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					if s.Histogram != nil {
						return float64(s.Histogram.GetSampleCount())
					}
					return s.Counter.GetValue()
				}
			}
		}
	}
	return 0
}

// TestHeuristicAutoJudge: with HeuristicAutoJudge (llm.judge heuristic, --llm local's default)
// the auto judge is the heuristic even though the worker has an LLM, which is never called;
// --judge llm still asks the LLM.
func TestHeuristicAutoJudge(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rows := []schemas.CandidateRow{{Rank: 1, DocID: "a", Text: "key rate raised"}, {Rank: 2, DocID: "b", Text: "apple pie"}}
	if err := storeio.PutParquet(ctx, b, "runs/r/candidates.parquet", rows); err != nil {
		t.Fatal(err)
	}
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "judge", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, LLM: c, HeuristicAutoJudge: true}}
	in := JudgeInput{Key: "runs/r/candidates.parquet", Query: "key rate", From: 1, To: 2, Mode: judge.ModeAuto}
	res, err := a.Judge(ctx, in)
	if err != nil || res.Method != judge.MethodHeuristic || calls != 0 {
		t.Fatalf("auto judge: method %q, %v, %d LLM calls; want the heuristic and no call", res.Method, err, calls)
	}
	in.Mode = judge.ModeLLM
	if _, err := a.Judge(ctx, in); !errors.Is(err, llm.ErrRateLimited) || calls != 1 {
		t.Fatalf("--judge llm: %v after %d calls, want the LLM asked (a 429)", err, calls)
	}
}

// TestJudgeAndEvalBatchRecordMetrics: a heuristic judge batch counts as a heuristic call, an
// LLM batch the server rate-limits as an llm call and a rate_limited failure; an eval batch
// refused for its input counts as failed, one already stored as done.
func TestJudgeAndEvalBatchRecordMetrics(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	rows := []schemas.CandidateRow{{Rank: 1, DocID: "a", Text: "key rate raised"}, {Rank: 2, DocID: "b", Text: "apple pie"}}
	if err := storeio.PutParquet(ctx, b, "runs/r/candidates.parquet", rows); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "judge", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, Metrics: m}}
	in := JudgeInput{Key: "runs/r/candidates.parquet", Query: "key rate", From: 1, To: 2, Mode: judge.ModeHeuristic}
	if _, err := a.Judge(ctx, in); err != nil {
		t.Fatal(err)
	}
	a.LLM = c
	in.Mode = judge.ModeAuto
	if _, err := a.Judge(ctx, in); !errors.Is(err, llm.ErrRateLimited) {
		t.Fatalf("judge against a 429 server: %v", err)
	}
	for _, check := range []struct {
		name, label, value string
		want               float64
	}{
		{"asof_judge_calls_total", "method", judge.MethodHeuristic, 1},
		{"asof_judge_calls_total", "method", "llm", 1},
		{"asof_judge_failures_total", "class", metrics.ClassRateLimited, 1},
	} {
		if got := sampleCount(t, m, check.name, check.label, check.value); got != check.want {
			t.Errorf("%s{%s=%q} = %v, want %v", check.name, check.label, check.value, got, check.want)
		}
	}

	if _, err := a.EvalBatch(ctx, EvalBatchInput{EvalID: "e", Batch: 0, Index: "toy", Systems: []string{"no-such-system"}}); err == nil || !strings.Contains(err.Error(), "no-such-system") {
		t.Fatalf("eval batch with an unknown system: %v", err)
	}
	if _, err := b.Put(ctx, layout.EvalBatchKey("e", 1), strings.NewReader("rows")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EvalBatch(ctx, EvalBatchInput{EvalID: "e", Batch: 1, Index: "toy"}); err != nil {
		t.Fatal(err)
	}
	if failed, done := sampleCount(t, m, "asof_eval_batches_total", "outcome", "failed"), sampleCount(t, m, "asof_eval_batches_total", "outcome", "done"); failed != 1 || done != 1 {
		t.Errorf("eval batches failed %v, done %v; want 1 and 1", failed, done)
	}
}

// TestJudgePerCall: with JudgePerCall 1 (--llm local) the LLM judge reads one candidate a call,
// and the batch's verdicts come back under the pool ranks.
func TestJudgePerCall(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rows := []schemas.CandidateRow{{Rank: 1, DocID: "a", Text: "key rate raised"}, {Rank: 2, DocID: "b", Text: "apple pie"}, {Rank: 3, DocID: "c", Text: "rate cut"}}
	if err := storeio.PutParquet(ctx, b, "runs/r/candidates.parquet", rows); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t, llmtest.Text(`{"verdicts":[{"id":1,"relevance":2}]}`))
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "judge", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, LLM: c, JudgePerCall: 1}}
	res, err := a.Judge(ctx, JudgeInput{Key: "runs/r/candidates.parquet", Query: "key rate", From: 2, To: 3, Mode: judge.ModeLLM})
	if err != nil {
		t.Fatal(err)
	}
	if want := []judge.Verdict{{ID: 2, Relevance: 2}, {ID: 3, Relevance: 2}}; !slices.Equal(res.Verdicts, want) || len(srv.Requests()) != 2 {
		t.Fatalf("verdicts %v in %d calls, want %v in 2", res.Verdicts, len(srv.Requests()), want)
	}
}
