package activities_test

import (
	"context"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"go.temporal.io/sdk/testsuite"
	"golang.org/x/net/html"

	"github.com/asofrag/asof/activities"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// TestWriteDigestUpdatesArchive saves the digests of two days (the later one first) and checks
// that digests/<name>/index.html lists every saved day newest first with each topic's
// freshness, including a day whose digest.json is damaged, and nothing from another name.
func TestWriteDigestUpdatesArchive(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	acts := &activities.Activities{Deps: activities.Deps{Bucket: b}}
	env.RegisterActivity(acts)
	put := func(key string, v any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Put(ctx, key, strings.NewReader(string(data))); err != nil {
			t.Fatal(err)
		}
	}
	save := func(name, day, fresh string) activities.WriteDigestKeys {
		t.Helper()
		asOf := utcDay(day)
		askRun := "ask-" + name + "-" + day
		put(path.Join(layout.RunPrefix(askRun), "answer.json"), schemas.Answer{AsOf: asOf,
			Blocks: []schemas.ContextBlock{{N: 1, DocID: "d", PublishedAt: utcDay(fresh), Title: "t"}}})
		return run[activities.WriteDigestKeys](t, env, acts.WriteDigest, activities.WriteDigestInput{Name: name, Index: "news", AsOf: asOf,
			Topics: []digest.TopicRef{{Name: "Rates", Query: "key rate", AskRunID: askRun}, {Name: "Chips", Query: "chips", Error: "ask failed"}}})
	}
	save("other", "2026-03-30", "2026-03-30")
	save("morning", "2026-03-31", "2026-03-30")
	if _, err := b.Put(ctx, "digests/morning/2026-03-29/digest.json", strings.NewReader("{not json")); err != nil {
		t.Fatal(err)
	}
	keys := save("morning", "2026-03-15", "2026-01-02")
	if keys.Archive != "digests/morning/index.html" {
		t.Fatalf("archive key %q", keys.Archive)
	}
	data, err := blob.ReadAll(ctx, b, keys.Archive)
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(data))
	rows := htmltest.FindAll(doc, "tr", func(n *html.Node) bool { return strings.HasPrefix(htmltest.Attr(n, "id"), "day-") })
	var got []string
	for _, r := range rows {
		var topics []string
		for _, li := range htmltest.FindAll(r, "li", nil) {
			topics = append(topics, strings.Join(strings.Fields(htmltest.Text(li)), " "))
		}
		got = append(got, htmltest.Attr(r, "id")+": "+strings.Join(topics, "; "))
	}
	want := []string{
		"day-2026-03-31: Rates freshest 1 day old; Chips failed",
		"day-2026-03-29: digest.json failed",
		"day-2026-03-15: Rates freshest 72 days old; Chips failed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("archive rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
