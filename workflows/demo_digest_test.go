package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/demo"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// demoIndex builds the demo corpus into an index named "demo" on a fresh in-memory bucket,
// through the real IndexBuild workflow and activities, with the CLI's default model.
func demoIndex(t *testing.T) (*activities.Activities, *blob.Local) {
	t.Helper()
	testmodel.Fast(t)
	id := testmodel.BenchID()
	emb, err := embed.NewHugot(testmodel.ConfigOf(t, id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir()) // loaded shards unpack here
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: emb, Model: schemas.ModelRef{ID: id, SHA256: "test", Dim: 384}}}
	t.Cleanup(func() { activities.Close(acts) })
	indexDocs(t, acts, "demo", demo.Documents(), 100)
	return acts, b
}

// indexDocs writes docs as Parquet to the store and indexes them through the real IndexBuild
// workflow (monthly shards, chunks of 1,600 runes, at least minChunk).
func indexDocs(t *testing.T, acts *activities.Activities, index string, docs []schemas.Document, minChunk int) {
	t.Helper()
	var buf bytes.Buffer
	if err := demo.WriteParquet(&buf, docs); err != nil {
		t.Fatal(err)
	}
	key := "corpora/" + index + "/docs.parquet"
	if _, err := acts.Bucket.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
	env := realEnv(acts)
	env.ExecuteWorkflow(IndexBuild, IndexBuildInput{Index: index, Period: "month",
		Inputs: []activities.InputFile{{Key: key, Name: "docs.parquet"}},
		Chunk:  schemas.ChunkConfig{Size: 1600, Overlap: 200, Min: minChunk}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("index %s: %v", index, err)
	}
}

// realEnv is a workflow test environment that runs every workflow and the real activities.
func realEnv(acts *activities.Activities) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(10 * time.Minute) // real embedding on a busy machine; the default is 3 s
	Register(env)
	env.RegisterActivity(acts)
	return env
}

// offTopic counts, for one digest topic, the "what is new" and timeline lines none of whose
// cited documents belongs to the topic's story, and returns those lines.
func offTopic(tp schemas.DigestTopic, story map[string]string, want string) (newOff, timelineOff int, lines []string) {
	doc := map[int]string{}
	for _, s := range tp.Sources {
		doc[s.N] = s.DocID
	}
	on := func(c schemas.Claim) bool {
		for _, n := range c.Cites {
			if story[doc[n]] == want {
				return true
			}
		}
		return false
	}
	for _, c := range tp.Brief.New {
		if !on(c) {
			newOff++
			lines = append(lines, "new: "+c.Text)
		}
	}
	for _, c := range tp.Brief.Timeline {
		if !on(c) {
			timelineOff++
			lines = append(lines, "timeline: "+c.Text)
		}
	}
	return newOff, timelineOff, lines
}

// TestDemoDigestOnTopicWithModel runs the demo's digest as of its anchor (index, then one Ask
// per topic with the offline judge and the extractive summary, as `asof demo` does without an
// LLM) and checks every "what is new" and timeline line against the demo corpus's story labels:
// a line none of whose cited documents belongs to the topic's story is off-topic. It logs the
// table docs/digest.md shows and fails on any off-topic line.
func TestDemoDigestOnTopicWithModel(t *testing.T) {
	acts, b := demoIndex(t)
	story := map[string]string{}
	for _, d := range demo.Documents() {
		story[d.DocID] = d.Topic
	}
	var topics []digest.Topic
	want := map[string]string{}
	for _, tp := range demo.Topics() {
		topics = append(topics, digest.Topic{Name: tp.Name, Query: tp.Query, Mode: tp.Mode})
		want[tp.Name] = tp.Story
	}
	env := realEnv(acts)
	env.ExecuteWorkflow(Digest, DigestInput{Name: "demo", Index: "demo", Topics: topics, AsOf: demo.AnchorTime(),
		Summarizer: "extractive"}) // no LLM: the default judge (auto) is the heuristic
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("digest: %v", err)
	}
	data, err := blob.ReadAll(context.Background(), b, path.Join(layout.DigestPrefix("demo", demo.AnchorTime()), "digest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d schemas.Digest
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| topic | new lines | off-topic | timeline lines | off-topic |\n|---|---:|---:|---:|---:|\n")
	var bad []string
	for _, tp := range d.Topics {
		if tp.Error != "" {
			t.Fatalf("topic %s: %s", tp.Name, tp.Error)
		}
		n, tl, lines := offTopic(tp, story, want[tp.Name])
		fmt.Fprintf(&table, "| %s | %d | %d | %d | %d |\n", tp.Name, len(tp.Brief.New), n, len(tp.Brief.Timeline), tl)
		for _, l := range lines {
			bad = append(bad, tp.Name+" "+l)
		}
		if len(tp.Brief.Timeline) == 0 {
			t.Errorf("topic %s: empty timeline", tp.Name)
		}
	}
	t.Log(table.String())
	for _, l := range bad {
		t.Errorf("off-topic line: %s", l)
	}
}
