package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/shard"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// scalePayloadBound is the most bytes any workflow input or result of the scale test may hold,
// whatever the number of files, shards or topics: Temporal refuses payloads over 2 MB.
const scalePayloadBound = 64 << 10

// scaleSize reads a positive count from the environment, else def.
func scaleSize(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, v)
	}
	return n
}

// historyStats are the payload sizes of one workflow's runs (continue-as-new followed).
type historyStats struct {
	runs, events   int
	bytes          int // all events of all runs, as protobuf
	largest        int // the largest payload
	largestWhat    string
	largestRunSize int // the largest run's history
}

// payloadsOf returns the payloads an event carries in or out of a workflow or activity.
func payloadsOf(ev *historypb.HistoryEvent) (string, *commonpb.Payloads) {
	switch {
	case ev.GetWorkflowExecutionStartedEventAttributes() != nil:
		return "workflow input", ev.GetWorkflowExecutionStartedEventAttributes().GetInput()
	case ev.GetWorkflowExecutionCompletedEventAttributes() != nil:
		return "workflow result", ev.GetWorkflowExecutionCompletedEventAttributes().GetResult()
	case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
		return "continue-as-new input", ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput()
	case ev.GetActivityTaskScheduledEventAttributes() != nil:
		a := ev.GetActivityTaskScheduledEventAttributes()
		return "activity " + a.GetActivityType().GetName() + " input", a.GetInput()
	case ev.GetActivityTaskCompletedEventAttributes() != nil:
		return "activity result", ev.GetActivityTaskCompletedEventAttributes().GetResult()
	case ev.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
		a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		return "child " + a.GetWorkflowType().GetName() + " input", a.GetInput()
	case ev.GetChildWorkflowExecutionCompletedEventAttributes() != nil:
		return "child result", ev.GetChildWorkflowExecutionCompletedEventAttributes().GetResult()
	}
	return "", nil
}

// workflowStats reads every run of workflow id from its first run on and measures its payloads.
func workflowStats(t *testing.T, ctx context.Context, id, runID string) historyStats {
	t.Helper()
	var st historyStats
	for runID != "" {
		st.runs++
		next, size := "", 0
		it := tc.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatalf("history of %s run %s: %v", id, runID, err)
			}
			st.events++
			size += proto.Size(ev)
			if what, p := payloadsOf(ev); p != nil {
				if n := proto.Size(p); n > st.largest {
					st.largest, st.largestWhat = n, what
				}
			}
			if c := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); c != nil {
				next = c.GetNewExecutionRunId()
			}
		}
		st.bytes += size
		st.largestRunSize = max(st.largestRunSize, size)
		runID = next
	}
	return st
}

// TestIndexBuildPayloadsStayBounded builds an index of one short document a day over
// ASOF_SCALE_DAYS days (default 3,000), each day in its own input file, with shards of
// ASOF_SCALE_PERIOD (default day: 3,000 shards in batches, 15 runs of at most 200, ~2 minutes;
// under the race detector week: 429 shards, because a daily shard costs ~10x more there), through
// the real IndexBuild workflow on the Temporal server (toy embedder), then runs a digest of
// ASOF_SCALE_TOPICS topics (default 5) over it, and asserts that no workflow or activity input or
// result of either grows past scalePayloadBound. make test runs it both ways; make scale-test
// runs it at 30 years of daily shards and 50 topics (docs/capacity.md).
func TestIndexBuildPayloadsStayBounded(t *testing.T) {
	integration(t)
	days := scaleSize(t, "ASOF_SCALE_DAYS", 3000)
	topics := scaleSize(t, "ASOF_SCALE_TOPICS", 5)
	perRun := scaleSize(t, "ASOF_SCALE_SHARDS_PER_RUN", 200)
	conc := scaleSize(t, "ASOF_SCALE_CONCURRENCY", 8)
	period := os.Getenv("ASOF_SCALE_PERIOD")
	if period == "" {
		period = "day"
		if raceEnabled {
			period = "week"
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	b, err := blob.Open(ctx, "file://"+filepath.Join(dir, "store"), blob.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	first := time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)
	var inputs []activities.InputFile
	periods := map[string]bool{}
	for d := range days {
		day := first.AddDate(0, 0, d)
		var buf bytes.Buffer
		row := []fixtureRow{{DocID: fmt.Sprintf("d%05d", d), PublishedAt: day.Format(time.DateOnly),
			Text: fmt.Sprintf("Day %d: the key rate was %d percent and the index closed at %d.", d, 5+d%11, 1000+d%977), Source: "wire"}}
		if err := writeRows(&buf, row); err != nil {
			t.Fatal(err)
		}
		key := layout.CorpusKey(fmt.Sprintf("%016x", d), "day-"+day.Format(time.DateOnly)+".parquet")
		if _, err := b.Put(ctx, key, &buf); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, activities.InputFile{Key: key, Name: filepath.Base(key)})
		p, _, _ := shard.PeriodOf(day, period)
		periods[p] = true
	}
	shards := len(periods)
	list, _ := json.Marshal(inputs)
	listKey := layout.InputListKey(fmt.Sprintf("%016x", days))
	if _, err := b.Put(ctx, listKey, bytes.NewReader(list)); err != nil {
		t.Fatal(err)
	}
	t.Logf("corpus: %d files, one document a day from %s (%s); input list %d bytes", days, first.Format(time.DateOnly), time.Since(began).Round(time.Millisecond), len(list))

	wctx := runToyWorker(t, b, "scale-it")
	rctx, cancel := context.WithTimeout(wctx, 60*time.Minute)
	defer cancel()
	id := fmt.Sprintf("scale-index-%d", time.Now().UnixNano())
	began = time.Now()
	run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.IndexBuild, workflows.IndexBuildInput{
		Index: "scale", InputsKey: listKey, InputCount: days, Period: period, Concurrency: conc, MaxShardsPerRun: perRun,
		Chunk: schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: 10}, AllowFuture: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	firstRun := run.GetRunID() // Get follows continue-as-new and moves GetRunID to the last run
	var res workflows.IndexBuildResult
	if err := run.Get(rctx, &res); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if res.ShardsBuilt != shards || res.Counts.Indexed != int64(days) || res.Counts.Chunks != int64(days) || res.FileCount != days || res.Seq != 1 {
		t.Fatalf("result %+v: want %d shards, %d documents, chunks and files", res, shards, days)
	}
	data, err := blob.ReadAll(ctx, b, res.ManifestKey)
	if err != nil {
		t.Fatal(err)
	}
	m, err := schemas.DecodeManifest(data)
	if err != nil || len(m.Shards) != shards {
		t.Fatalf("manifest: %d shards, %v", len(m.Shards), err)
	}
	var stored []int
	for _, k := range []string{res.FilesKey, layout.BuildPlanKey(firstRun)} {
		st, err := b.Stat(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, int(st.Size))
	}
	st := workflowStats(t, ctx, id, firstRun)
	t.Logf("index: %d %s shards from %d files in %s (%.1f ms a shard), %d runs; history %d events, %d bytes (largest run %d bytes); largest payload %d bytes (%s)",
		shards, period, days, took.Round(time.Second), float64(took.Milliseconds())/float64(shards), st.runs, st.events, st.bytes, st.largestRunSize, st.largest, st.largestWhat)
	t.Logf("kept out of the history: input list %d bytes, per-file table %d bytes, plan %d bytes, manifest %d bytes", len(list), stored[0], stored[1], len(data))
	if st.largest > scalePayloadBound {
		t.Errorf("largest index build payload %d bytes (%s), over the bound of %d", st.largest, st.largestWhat, scalePayloadBound)
	}
	if want := (shards + perRun - 1) / perRun; st.runs != want {
		t.Errorf("%d runs, want %d (%d shards, %d a run)", st.runs, want, shards, perRun)
	}

	// A digest of many topics over the index, as of its last day.
	var tops []digest.Topic
	for i := range topics {
		tops = append(tops, digest.Topic{Name: fmt.Sprintf("Topic %d", i+1), Query: fmt.Sprintf("key rate %d percent", 5+i%11), Mode: "bm25"})
	}
	began = time.Now()
	did := fmt.Sprintf("scale-digest-%d", time.Now().UnixNano())
	drun, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: did, TaskQueue: workflows.TaskQueue}, workflows.Digest, workflows.DigestInput{
		Name: "scale", Index: "scale", Topics: tops, AsOf: first.AddDate(0, 0, days-1), Concurrency: 4,
		Judge: &workflows.JudgeOptions{Mode: "off", Pool: 1, Batch: 1, Failure: "keep", MaxAttempts: 1}, Summarizer: "extractive",
	})
	if err != nil {
		t.Fatal(err)
	}
	var dig workflows.DigestResult
	if err := drun.Get(rctx, &dig); err != nil {
		t.Fatal(err)
	}
	if dig.Topics != topics || dig.Failed != 0 {
		t.Fatalf("digest %+v: want %d topics, none failed", dig, topics)
	}
	ds := workflowStats(t, ctx, did, drun.GetRunID())
	t.Logf("digest: %d topics in %s; history %d events, %d bytes; largest payload %d bytes (%s)",
		topics, time.Since(began).Round(time.Second), ds.events, ds.bytes, ds.largest, ds.largestWhat)
	if ds.largest > scalePayloadBound {
		t.Errorf("largest digest payload %d bytes (%s), over the bound of %d", ds.largest, ds.largestWhat, scalePayloadBound)
	}
}

// writeRows writes rows as one Parquet file.
func writeRows(w *bytes.Buffer, rows []fixtureRow) error {
	pw := parquet.NewGenericWriter[fixtureRow](w)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}
