package worker_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestTakeDownThroughRealServer takes a document with two versions down from a toy index on
// the real Temporal server and S3 gateway: no answer cites it afterwards, as of any day and in
// any mode (a property of the mask, checked over days and modes), the counts move its rows
// from indexed to deleted and still reconcile, a second takedown of it changes nothing, an
// unknown doc_id is refused without publishing, and a rebuild of the same files keeps it down
// (its rows counted as deleted, not indexed). With -update-history its history becomes the
// replay fixture takedown.json.
func TestTakeDownThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "takedown-it")
	ctx := runToyWorker(t, b, "takedown-it")
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	putParquet(t, b, "corpora/td.parquet", []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent.", "x.com"},
		{"a", "2024-01-20", "Correction: the central bank raised the key rate to 15 percent.", "x.com"},
		{"b", "2024-01-10", "The key rate decision surprised the market.", "y.com"},
		{"c", "2024-02-02", "Oil fell after OPEC; the key rate stays.", "z.com"},
	})
	built := buildIndex(t, rctx, "td-build-1", "td", "corpora/td.parquet")
	if built.Counts.Indexed != 4 || !built.Counts.Reconciles() {
		t.Fatalf("first build counts %+v: want 4 rows indexed (a in two versions)", built.Counts)
	}
	days := []time.Time{time.Date(2024, 1, 25, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	modes := []string{"bm25", "hybrid", "recency", "evolution", "window"}
	cited := func(when string) map[string]bool {
		t.Helper()
		seen := map[string]bool{}
		for _, d := range days {
			for _, mode := range modes {
				in := workflows.AskInput{Index: "td", Query: "central bank key rate", AsOf: d, Mode: mode,
					Judge: &workflows.JudgeOptions{Mode: "off", Pool: 40, Batch: 8, Failure: workflows.FailureKeep, MaxAttempts: 1}, Summarizer: "extractive"}
				if mode == "window" {
					in.From = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
				}
				run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{TaskQueue: workflows.TaskQueue}, workflows.Ask, in)
				if err != nil {
					t.Fatal(err)
				}
				var ans schemas.Answer
				if err := run.Get(rctx, &ans); err != nil {
					t.Fatalf("%s: ask %s as of %s: %v", when, mode, d.Format(time.DateOnly), err)
				}
				for _, r := range ans.Results {
					seen[r.DocID] = true
				}
			}
		}
		return seen
	}
	if got := cited("before"); !got["a"] || !got["b"] {
		t.Fatalf("before the takedown the answers cite %v: want a and b among them", got)
	}

	takeDown := func(id string, ids ...string) (workflows.TakeDownResult, error) {
		run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.TakeDown,
			workflows.TakeDownInput{Index: "td", DocIDs: ids, Reason: "court order 12/2026"})
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.TakeDownResult
		err = run.Get(rctx, &res)
		return res, err
	}
	res, err := takeDown("takedown", "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Taken) != 1 || res.Taken[0].DocID != "a" || res.Taken[0].Rows != 2 || res.Unchanged || res.Seq != built.Seq+1 {
		t.Fatalf("takedown %+v: want a taken down with its 2 rows, in manifest %d", res, built.Seq+1)
	}
	if c := res.Counts; c.Indexed != 2 || c.Deleted != 2 || !c.Reconciles() {
		t.Fatalf("counts after the takedown %+v: want 2 indexed, 2 deleted, reconciling", c)
	}
	m, err := layout.ReadLive(rctx, b, "td")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Takedowns) != 1 || m.Takedowns[0].Reason != "court order 12/2026" || m.Takedowns[0].At.IsZero() || m.Version != schemas.ManifestVersionLifecycle {
		t.Fatalf("live manifest takedowns %+v (version %d)", m.Takedowns, m.Version)
	}
	if got := cited("after"); got["a"] || !got["b"] {
		t.Fatalf("after the takedown the answers cite %v: want b and never a", got)
	}

	again, err := takeDown("takedown-again", "a")
	if err != nil || !again.Unchanged || !slices.Equal(again.Already, []string{"a"}) || again.Seq != res.Seq {
		t.Fatalf("a second takedown of a: %+v, %v; want it unchanged", again, err)
	}
	if _, err := takeDown("takedown-unknown", "b", "nope"); err == nil || !strings.Contains(err.Error(), `no document "nope"`) {
		t.Fatalf("a takedown naming an unknown doc_id: %v; want it refused by name", err)
	}
	if m2, _ := layout.ReadLive(rctx, b, "td"); len(m2.Takedowns) != 1 || m2.Seq != res.Seq {
		t.Fatalf("the refused takedown published %+v", m2.Takedowns)
	}

	rebuilt := buildIndex(t, rctx, "td-build-2", "td", "corpora/td.parquet")
	if c := rebuilt.Counts; c.Indexed != 2 || c.Deleted != 2 || !c.Reconciles() {
		t.Fatalf("rebuild counts %+v: want a's 2 rows deleted, not indexed", c)
	}
	if m3, _ := layout.ReadLive(rctx, b, "td"); len(m3.Takedowns) != 1 {
		t.Fatalf("the rebuild dropped the takedown: %+v", m3.Takedowns)
	}
	if got := cited("after the rebuild"); got["a"] {
		t.Fatalf("after the rebuild the answers cite a: %v", got)
	}
	// The rebuilt shards hold no row of a at all.
	m4, err := layout.ReadLive(rctx, b, "td")
	if err != nil {
		t.Fatal(err)
	}
	for _, sm := range m4.Shards {
		chunks, err := storeio.GetParquet[schemas.Chunk](context.Background(), b, layout.ShardKey("td", sm.Period, sm.ID, "chunks.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if c.DocID == "a" {
				t.Fatalf("rebuilt shard %s still holds a row of a: %q", sm.ID, c.Text)
			}
		}
	}
	if *updateHistory {
		saveHistory(t, "takedown")
	}
}
