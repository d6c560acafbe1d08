package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/asofrag/asof/internal/apispec"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// BenchmarkServeAsk measures warm POST /v1/ask through `asof serve` (a real server process,
// its embedded Temporal and in-process worker, a local store) on a realtimeqa index:
// ASOF_BENCH_STORE is a store folder holding the index ASOF_BENCH_INDEX (make bench passes the
// one it builds), ASOF_BENCH_MODEL the model it was built with (ASOF_BENCH_MODEL_DIR its folder,
// when not the tests' models folder). It asks 40 realtimeqa
// questions dated inside the index once to warm up, then twice more timed, one at a time, and
// reports p50-ms and p95-ms, and the mean time per activity of the last asks (from their
// workflow histories: scheduled to completed). Run it with -benchtime 1x.
func BenchmarkServeAsk(b *testing.B) {
	store, index := os.Getenv("ASOF_BENCH_STORE"), os.Getenv("ASOF_BENCH_INDEX")
	qfile := filepath.Join("..", "..", "..", "shared", "data", "realtimeqa", "questions.parquet")
	if store == "" || index == "" {
		b.Skip("set ASOF_BENCH_STORE (a store folder) and ASOF_BENCH_INDEX (an index of realtimeqa docs in it)")
	}
	if _, err := os.Stat(qfile); err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	type question struct {
		Date     time.Time `parquet:"question_date,timestamp(millisecond)"`
		Question string    `parquet:"question"`
	}
	qs, err := parquet.ReadFile[question](qfile)
	if err != nil {
		b.Fatal(err)
	}
	modelDir := os.Getenv("ASOF_BENCH_MODEL_DIR") // the folder of the model the index was built with
	if modelDir == "" {
		modelDir = testmodel.ModelsDir(b)
	}
	dir := b.TempDir()
	port := freePort(b)
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--model-dir", modelDir,
		"--temporal-port", port, "--store", "file://" + store}
	if m := os.Getenv("ASOF_BENCH_MODEL"); m != "" {
		args = append(args, "--embed-model", m)
	}
	srv := startProc(b, nil, args...)
	m, err := srv.await(listeningRe)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.cmd.Process.Signal(os.Interrupt) //nolint:errcheck // the process ends with the benchmark
	c := apiClient{t: b, base: m[1]}

	// Questions dated inside the index, as of their own day.
	var reqs []apispec.AskRequest
	for _, q := range qs {
		if q.Date.Year() >= 2023 && len(reqs) < 40 {
			reqs = append(reqs, apispec.AskRequest{Index: index, Query: q.Question, AsOf: q.Date.Format(time.DateOnly)})
		}
	}
	if len(reqs) == 0 {
		b.Skip("no realtimeqa question dated 2023 or later")
	}
	ask := func(r apispec.AskRequest) (time.Duration, schemas.Answer) {
		var ans schemas.Answer
		began := time.Now()
		c.json("POST", "/v1/ask", r, &ans)
		return time.Since(began), ans
	}
	for _, r := range reqs { // warm: shards cached, the model loaded
		ask(r)
	}
	b.ResetTimer()
	var took []time.Duration
	var runs []string
	for range b.N {
		took, runs = took[:0], runs[:0]
		for range 2 {
			for _, r := range reqs {
				d, ans := ask(r)
				took = append(took, d)
				runs = append(runs, ans.RunID)
			}
		}
	}
	b.StopTimer()
	slices.Sort(took)
	pct := func(p float64) float64 {
		return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(float64(len(took)), "asks")

	// Where the time goes, over the last 20 asks' histories: each activity's mean from
	// scheduled to completed; the workflow's own start to close (workflow-ms), the part of it
	// spent inside workflow tasks (wft-ms: local activities run there), and how many workflow
	// tasks and local activities an ask took. A local activity's marker holds its completion
	// time (ReplayTime); each one's mean share of the critical path (local-<name>-ms) is its
	// completion less the previous one's (the workflow task's start for the first), so
	// parallel judge batches add up to the span from retrieval to the last batch.
	tc, err := client.Dial(client.Options{HostPort: "127.0.0.1:" + port, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		b.Logf("per activity: %v", err)
		return
	}
	defer tc.Close()
	sum, n := map[string]time.Duration{}, map[string]int{}
	var wall, inTasks time.Duration
	var tasks, locals, histories int
	for _, id := range runs[max(0, len(runs)-20):] {
		histories++
		var wfStart, taskStart, lastDone time.Time
		seen := map[string]bool{}
		scheduled := map[int64]struct {
			name string
			at   time.Time
		}{}
		it := tc.GetWorkflowHistory(context.Background(), id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				b.Logf("history %s: %v", id, err)
				break
			}
			switch ev.GetEventType() {
			case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				scheduled[ev.GetEventId()] = struct {
					name string
					at   time.Time
				}{ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName(), ev.GetEventTime().AsTime()}
			case enums.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
				s := scheduled[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]
				sum[s.name] += ev.GetEventTime().AsTime().Sub(s.at)
				n[s.name]++
			case enums.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
				wfStart = ev.GetEventTime().AsTime()
			case enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
				wall += ev.GetEventTime().AsTime().Sub(wfStart)
			case enums.EVENT_TYPE_WORKFLOW_TASK_STARTED:
				taskStart = ev.GetEventTime().AsTime()
				lastDone = taskStart
				tasks++
			case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
				inTasks += ev.GetEventTime().AsTime().Sub(taskStart)
			case enums.EVENT_TYPE_MARKER_RECORDED:
				m := ev.GetMarkerRecordedEventAttributes()
				if m.GetMarkerName() != "LocalActivity" {
					continue
				}
				locals++
				var la struct {
					ActivityType string
					ReplayTime   time.Time
				}
				if p := m.GetDetails()["data"].GetPayloads(); len(p) > 0 && json.Unmarshal(p[0].GetData(), &la) == nil && !lastDone.IsZero() {
					k := "local-" + la.ActivityType
					sum[k] += la.ReplayTime.Sub(lastDone)
					if !seen[k] { // a mean per ask: parallel batches add up
						seen[k] = true
						n[k]++
					}
					lastDone = la.ReplayTime
				}
			}
		}
	}
	if histories > 0 {
		h := time.Duration(histories)
		b.Logf("workflow start → close mean %.1f ms, %.1f ms of it in %.1f workflow tasks; %.1f local activities an ask",
			float64((wall/h).Microseconds())/1000, float64((inTasks/h).Microseconds())/1000, float64(tasks)/float64(histories), float64(locals)/float64(histories))
		b.ReportMetric(float64((wall/h).Microseconds())/1000, "workflow-ms")
		b.ReportMetric(float64((inTasks/h).Microseconds())/1000, "wft-ms")
	}
	names := make([]string, 0, len(sum))
	for k := range sum {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		mean := sum[k] / time.Duration(n[k])
		if strings.HasPrefix(k, "local-") {
			b.Logf("activity %-24s %3d asks, mean %6.1f ms an ask (its share of the workflow task)", k, n[k], float64(mean.Microseconds())/1000)
		} else {
			b.Logf("activity %-24s %3d runs, mean %6.1f ms (scheduled → completed)", k, n[k], float64(mean.Microseconds())/1000)
		}
		b.ReportMetric(float64(mean.Microseconds())/1000, fmt.Sprintf("%s-ms", k))
	}
}
