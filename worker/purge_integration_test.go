package worker_test

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/purgetest"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// purgeMarker is a word only the document taken down holds: after a purge no object of the
// store may hold it (PurgeLeftovers).
const purgeMarker = "Zorbulon"

// TestPurgeThroughRealServer takes a document down with --purge on the real Temporal server and
// S3 gateway, after an answer and a digest cited it and an earlier build left its shards: the
// live shards are written again without its rows (counts reconcile, answers read the same),
// and afterwards no object of the store holds its text or its vectors — every object read
// back: Parquet column by column, BM25 indexes searched, zip entries and every other file byte
// by byte, vector files row by row; the stored answer and digest show it as removed. A second
// purge finds nothing to do. With -update-history its history becomes the replay fixture
// takedown-purge.json.
func TestPurgeThroughRealServer(t *testing.T) {
	integration(t)
	b := s3Bucket(t, "purge-it")
	ctx := runHashWorker(t, b, "purge-it")
	rctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	rows := []fixtureRow{
		{"a", "2024-01-05", "The central bank raised the key rate to 16 percent, said " + purgeMarker + ".", "x.com"},
		{"a", "2024-02-20", "Correction from " + purgeMarker + ": the central bank raised the key rate to 15 percent.", "x.com"},
		{"b", "2024-01-10", "The key rate decision of the central bank surprised the market.", "y.com"},
		{"c", "2024-02-02", "Oil fell after OPEC; the central bank key rate stays.", "z.com"},
		{"d", "2024-03-03", "Mortgage rates follow the central bank key rate.", "z.com"},
	}
	putParquet(t, b, "corpora/p1/first.parquet", rows[:3])
	putParquet(t, b, "corpora/p2/all.parquet", rows)
	putParquet(t, b, "corpora/p3/other.parquet", rows[2:])
	buildIndex(t, rctx, "pg-build-1", "pg", "corpora/p1/first.parquet") // an earlier manifest's shards hold a too
	built := buildIndex(t, rctx, "pg-build-2", "pg", "corpora/p2/all.parquet")
	if built.Counts.Indexed != 5 || !built.Counts.Reconciles() {
		t.Fatalf("build counts %+v", built.Counts)
	}
	ask := func(id string, day time.Time) schemas.Answer {
		t.Helper()
		run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.Ask, workflows.AskInput{
			Index: "pg", Query: "central bank key rate", AsOf: day, Mode: "hybrid",
			Judge: &workflows.JudgeOptions{Mode: "off", Pool: 40, Batch: 8, Failure: workflows.FailureKeep, MaxAttempts: 1}, Summarizer: "extractive"})
		if err != nil {
			t.Fatal(err)
		}
		var ans schemas.Answer
		if err := run.Get(rctx, &ans); err != nil {
			t.Fatal(err)
		}
		return ans
	}
	day := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	stored := ask("asof-ask-pg-before", day)
	if !slices.ContainsFunc(stored.Results, func(r schemas.AnswerResult) bool { return r.DocID == "a" }) {
		t.Fatalf("before the takedown the answer cites %v: want a", stored.Results)
	}
	drun, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: "asof-digest-pg", TaskQueue: workflows.TaskQueue}, workflows.Digest, workflows.DigestInput{
		Name: "pg-daily", Index: "pg", Topics: []digest.Topic{{Name: "Key rate", Query: "central bank key rate", Mode: "hybrid"}}, AsOf: day, TimeZone: "UTC",
		Judge: &workflows.JudgeOptions{Mode: "off", Pool: 40, Batch: 8, Failure: workflows.FailureKeep, MaxAttempts: 1}, Summarizer: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	var dres workflows.DigestResult
	if err := drun.Get(rctx, &dres); err != nil {
		t.Fatal(err)
	}
	if n := len(purgetest.Leftovers(t, b, purgeMarker, nil)); n == 0 {
		t.Fatal("before the purge no object holds the marker: the check below could not fail")
	}
	vecs := purgetest.DocVectors(t, b, "pg", "a")

	purge := func(id string, ids ...string) workflows.TakeDownResult {
		t.Helper()
		run, err := tc.ExecuteWorkflow(rctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.TakeDown,
			workflows.TakeDownInput{Index: "pg", DocIDs: ids, Reason: "court order 12/2026", Purge: true})
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.TakeDownResult
		if err := run.Get(rctx, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := purge("takedown-purge", "a")
	p := res.Purge
	if p == nil || !slices.Equal(p.Docs, []string{"a"}) || p.Rows != 2 || p.Written != 2 || p.Unchanged || res.Seq != built.Seq+2 {
		t.Fatalf("purge %+v (result %+v): want a's 2 rows out of 2 shards written again, in manifest %d", p, res, built.Seq+2)
	}
	t.Logf("purge %+v", *p)
	if w := p.Sweep; w.Shards < 1 || w.Corpora != 2 || w.Answers < 1 || w.Digests != 1 {
		t.Fatalf("sweep %+v: want the first build's shard, the 2 input files with a, the stored answers and the digest day", w)
	}
	m, err := layout.ReadLive(rctx, b, "pg")
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Counts; c.Indexed != 3 || c.Deleted != 2 || !c.Reconciles() || len(m.Takedowns) != 1 || m.Takedowns[0].Purged == nil {
		t.Fatalf("after the purge: counts %+v, takedowns %+v", c, m.Takedowns)
	}
	if left := purgetest.Leftovers(t, b, purgeMarker, vecs); len(left) > 0 {
		t.Fatalf("after the purge these objects still hold a's text or vectors:\n%s", strings.Join(left, "\n"))
	}
	if ok, _ := b.Exists(rctx, "corpora/p3/other.parquet"); !ok {
		t.Fatal("the purge deleted an input file that holds no row of a")
	}
	after := ask("asof-ask-pg-after", day)
	if slices.ContainsFunc(after.Results, func(r schemas.AnswerResult) bool { return r.DocID == "a" }) || len(after.Results) == 0 {
		t.Fatalf("after the purge the answer cites %v", after.Results)
	}
	old, err := storeio.GetJSON[schemas.Answer](rctx, b, layout.AnswerKey("asof-ask-pg-before"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(old.Results, func(r schemas.AnswerResult) bool { return r.DocID == "a" && r.Title == "(removed)" }) {
		t.Fatalf("the stored answer does not show a as removed: %+v", old.Results)
	}

	again := purge("takedown-purge-again")
	if q := again.Purge; q == nil || !q.Unchanged || len(q.Docs) != 0 || q.Sweep.Objects != 0 {
		t.Fatalf("a second purge: %+v; want nothing to do", again.Purge)
	}
	if *updateHistory {
		saveHistoryAs(t, "takedown-purge", "takedown-purge")
	}
}

// hashEmbedder embeds a text as 12 values of its SHA-256: no two texts share a vector (the toy
// embedder's 12 one-hot buckets do), so a vector left in the store is the document's.
type hashEmbedder struct{}

func (hashEmbedder) embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		sum := sha256.Sum256([]byte(s))
		out[i] = make([]float32, 12)
		for j := range out[i] {
			out[i][j] = float32(sum[j]) - 127.5
		}
	}
	return out
}

func (e hashEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return e.embed(texts), nil
}

func (e hashEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return e.embed(texts), nil
}

// runHashWorker is runToyWorker with the hashEmbedder.
func runHashWorker(t *testing.T, b blob.Bucket, identity string) context.Context {
	return runWorkerWith(t, b, identity, hashEmbedder{}, schemas.ModelRef{ID: "hash", SHA256: "hash", Dim: 12})
}

func (hashEmbedder) Dim() int        { return 12 }
func (hashEmbedder) ModelID() string { return "hash" }
func (hashEmbedder) Close() error    { return nil }
