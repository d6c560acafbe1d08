package workflows

import (
	"slices"
	"testing"
	"time"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/schemas"
)

// TestSourceWeightMovesAskRankingWithModel indexes a small corpus whose channels carry source
// weights (a wire at 1.0, a blog at 0.2) through the real IndexBuild workflow and asks the
// same question through the real Ask workflow twice: with the source weight off (w_source 0)
// and on (the default, auto). The wire's story ranks below the blog's without the weight and
// above it with the weight; nothing else changes between the two answers.
func TestSourceWeightMovesAskRankingWithModel(t *testing.T) {
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
	t.Setenv("TMPDIR", t.TempDir())
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b, Embedder: emb, Model: schemas.ModelRef{ID: id, SHA256: "test", Dim: 384}}}
	t.Cleanup(func() { activities.Close(acts) })
	day := time.Date(2026, 3, 19, 0, 0, 0, 0, time.UTC)
	weight := func(w float64) *float64 { return &w }
	doc := func(h int, source string, w float64, title, text string) schemas.Document {
		return schemas.Document{PublishedAt: day.Add(time.Duration(h) * time.Hour), Source: source, SourceWeight: weight(w), Lang: "en", Title: title, Text: text}
	}
	docs := []schemas.Document{
		doc(9, "blog", 0.2, "Key rate raised to 8.00%", "The central bank raised the key rate to 8.00% from 7.25% on Thursday, the blog's markets desk writes."),
		doc(11, "wire", 1.0, "Bank lifts benchmark to 8%", "Policy makers lifted the benchmark key rate to 8 percent, the highest in a decade, the wire reports."),
		doc(8, "blog", 0.2, "Weekend football scores", "The capital's team won 2-1 at home on Saturday."),
		doc(10, "wire", 1.0, "Bridge opening delayed", "The Lindholm bridge will open in October, not June."),
		doc(12, "blog", 0.2, "Opera season opens", "The national opera presented its new season."),
		doc(13, "wire", 1.0, "Grain forecast cut", "The agriculture ministry cut its grain forecast after a dry winter."),
	}
	for i := range docs {
		docs[i].DocID = "sw-" + string(rune('1'+i))
		docs[i].URL = "https://example.invalid/" + docs[i].DocID
	}
	indexDocs(t, acts, "sw", docs, 10)
	ask := func(source float64) []string {
		t.Helper()
		o := retrieve.DefaultOptions()
		o.Weights.Source = source
		env := realEnv(acts)
		env.ExecuteWorkflow(Ask, AskInput{Index: "sw", Query: "key rate raised", AsOf: day.AddDate(0, 0, 1), Mode: "recency",
			Options: &o, Summarizer: "extractive"})
		var ans schemas.Answer
		if err := env.GetWorkflowResult(&ans); err != nil {
			t.Fatalf("ask: %v", err)
		}
		var ids []string
		for _, r := range ans.Results {
			ids = append(ids, r.DocID)
		}
		return ids
	}
	off, on := ask(0), ask(-1)
	t.Logf("w_source 0: %v; auto: %v", off, on)
	blogStory, wireStory := "sw-1", "sw-2"
	if slices.Index(off, wireStory) < slices.Index(off, blogStory) {
		t.Fatalf("without the weight the wire's story %s already ranks above the blog's %s: %v; the test shows nothing", wireStory, blogStory, off)
	}
	if i, j := slices.Index(on, wireStory), slices.Index(on, blogStory); i < 0 || j < 0 || i > j {
		t.Errorf("with the source weight the wire's story %s should rank above the blog's %s: %v", wireStory, blogStory, on)
	}
}
