package worker_test

import (
	"path/filepath"

	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	temporal "go.temporal.io/sdk/client"

	asof "github.com/asofrag/asof/client"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TestRollbackThroughRealServer rolls an index back on the real Temporal server and S3 gateway
// (client.RollbackIndex, what `asof indexes rollback` and POST /v1/indexes/{name}/rollback
// call): a --replace that dropped documents is undone by publishing manifest 1 again, which
// keeps a document taken down since out of every answer and counts its rows as deleted;
// history lists every manifest with the live one; the live manifest and a missing one are
// refused; and once a purge has deleted the shards that held the document, the manifests that
// named them cannot be restored.
func TestRollbackThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "rollback-it")
	ctx := runHashWorker(t, b, "rollback-it")
	rctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	c := asof.New(tc, b)
	rows := []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent.", "x.com"},
		{"b", "2024-01-10", "The key rate decision of the central bank surprised the market.", "y.com"},
		{"c", "2024-02-02", "Oil fell after OPEC; the central bank key rate stays.", "z.com"},
	}
	putParquet(t, b, "corpora/rb/all.parquet", rows)
	putParquet(t, b, "corpora/rb/one.parquet", rows[2:])
	first := buildIndex(t, rctx, "rb-build-1", "rb", "corpora/rb/all.parquet")
	// What a --replace of one.parquet would drop, said before it runs (asof index --replace).
	local := filepath.Join(t.TempDir(), "one.parquet")
	if err := parquet.WriteFile(local, rows[2:]); err != nil {
		t.Fatal(err)
	}
	drops, err := c.DropsOfReplace(rctx, "rb", []string{local}, nil, time.Time{}, time.Time{})
	if err != nil || drops.Live != 3 || drops.Dropped != 2 || !slices.Equal(drops.Sample, []string{"a", "b"}) {
		t.Fatalf("drops of a replace %+v, %v: want a and b of 3", drops, err)
	}
	if none, err := c.DropsOfReplace(rctx, "rb-none", []string{local}, nil, time.Time{}, time.Time{}); err != nil || none.Dropped != 0 {
		t.Fatalf("drops of a replace of no index: %+v, %v", none, err)
	}
	replaced := buildIndex(t, rctx, "rb-build-2", "rb", "corpora/rb/one.parquet") // the replace that drops a and b
	if first.Counts.Indexed != 3 || replaced.Counts.Indexed != 1 {
		t.Fatalf("builds: %+v then %+v", first.Counts, replaced.Counts)
	}
	if _, err := c.TakeDown(rctx, workflows.TakeDownInput{Index: "rb", DocIDs: []string{"c"}, Reason: "withdrawn"}); err != nil {
		t.Fatal(err)
	}

	res, err := c.RollbackIndex(rctx, "rb", first.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != first.Seq+3 || res.RestoredFrom != first.Seq || res.Takedowns != 1 {
		t.Fatalf("rollback %+v: want manifest %d restoring %d with the takedown kept", res, first.Seq+3, first.Seq)
	}
	if cn := res.Counts; cn.Indexed != 2 || cn.Deleted != 1 || !cn.Reconciles() {
		t.Fatalf("counts after the rollback %+v: want a and b indexed, c's row deleted", cn)
	}
	run, err := tc.ExecuteWorkflow(rctx, temporal.StartWorkflowOptions{TaskQueue: workflows.TaskQueue}, workflows.Ask, workflows.AskInput{
		Index: "rb", Query: "central bank key rate", AsOf: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Mode: "hybrid",
		Judge: &workflows.JudgeOptions{Mode: "off", Pool: 40, Batch: 8, Failure: workflows.FailureKeep, MaxAttempts: 1}, Summarizer: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	var ans schemas.Answer
	if err := run.Get(rctx, &ans); err != nil {
		t.Fatal(err)
	}
	var cited []string
	for _, r := range ans.Results {
		cited = append(cited, r.DocID)
	}
	if !slices.Contains(cited, "a") || !slices.Contains(cited, "b") || slices.Contains(cited, "c") {
		t.Fatalf("after the rollback the answer cites %v: want a and b back, never c (taken down)", cited)
	}

	h, err := c.IndexHistory(rctx, "rb")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 4 || !h[3].Live || h[3].RestoredFrom != first.Seq || h[0].Live || h[1].Counts.Indexed != 1 {
		t.Fatalf("history %+v", h)
	}
	if _, err := c.RollbackIndex(rctx, "rb", res.Seq); err == nil || !strings.Contains(err.Error(), "live manifest") {
		t.Fatalf("a rollback to the live manifest: %v", err)
	}
	if _, err := c.RollbackIndex(rctx, "rb", 99); err == nil || !strings.Contains(err.Error(), "no manifest 99") {
		t.Fatalf("a rollback to a missing manifest: %v", err)
	}

	// Purge a: the shards that held it go, and so does every manifest that named them.
	if _, err := c.TakeDown(rctx, workflows.TakeDownInput{Index: "rb", DocIDs: []string{"a"}, Reason: "court order", Purge: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RollbackIndex(rctx, "rb", first.Seq); !errors.Is(err, asof.ErrNotRestorable) {
		t.Fatalf("a rollback to a manifest whose shards the purge deleted: %v", err)
	}
	if m, _ := layout.ReadLive(rctx, b, "rb"); m.RestoredFrom != 0 || len(m.Takedowns) != 2 {
		t.Fatalf("the refused rollback changed the live manifest: %+v", m)
	}
}
