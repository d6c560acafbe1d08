package digest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/schemas"
)

func withHistory() schemas.Digest {
	d := fixture()
	d.Topics[0].History = []schemas.TimelineEntry{
		{Day: time.Date(2024, 6, 6, 0, 0, 0, 0, time.UTC), Documents: 3, Citations: []schemas.TimelineCitation{
			{DocID: "ecb-20240606-pr", Source: "ecb.europa.eu", URL: "https://www.ecb.europa.eu/x", PublishedAt: on(2024, 6, 6), Sentence: "The ECB cut rates by 25 basis points."}}},
		{Day: time.Date(2024, 6, 27, 0, 0, 0, 0, time.UTC), Documents: 2, Citations: []schemas.TimelineCitation{
			{DocID: "reuters-20240628-ecb", Source: "reuters", URL: "javascript:alert(1)", PublishedAt: on(2024, 6, 28), Sentence: "The ECB kept rates <b>on hold</b>."}}},
	}
	d.Topics[1].HistoryError = "no shard"
	return d
}

func TestHistoryMarkdownAndHTML(t *testing.T) {
	d := withHistory()
	md := Markdown(d)
	for _, want := range []string{"### History", "- 2024-06-06 — The ECB cut rates by 25 basis points. ([ecb.europa.eu](https://www.ecb.europa.eu/x), 2024-06-06)",
		"- 2024-06-27 — The ECB kept rates", "(reuters, 2024-06-28)", "The history failed: no shard"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "javascript:") {
		t.Error("a javascript: link reached the Markdown")
	}
	doc := htmltest.Parse(t, page(t, d))
	lists := htmltest.FindAll(doc, "ul", func(n *html.Node) bool { return htmltest.HasClass(n, "history") })
	if len(lists) != 1 || len(htmltest.FindAll(lists[0], "li", nil)) != 2 {
		t.Fatalf("%d history lists", len(lists))
	}
	if len(htmltest.FindAll(doc, "b", nil)) != 0 {
		t.Error("a sentence's markup reached the page")
	}
	if md := Markdown(fixture()); strings.Contains(md, "### History") {
		t.Error("a digest without histories shows one")
	}
}

func TestHistories(t *testing.T) {
	topics := []schemas.DigestTopic{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	refs := []TopicRef{{Name: "a", HistoryRunID: "r1"}, {Name: "b", HistoryRunID: "r2", HistoryError: "boom"}, {Name: "c"}}
	read := func(id string) (schemas.Timeline, error) {
		if id != "r1" {
			t.Fatalf("read %s", id)
		}
		return schemas.Timeline{Entries: []schemas.TimelineEntry{{Text: "x"}}}, nil
	}
	if err := Histories(topics, refs, read); err != nil {
		t.Fatal(err)
	}
	if len(topics[0].History) != 1 || topics[1].HistoryError != "boom" || topics[1].History != nil || topics[2].HistoryRunID != "" {
		t.Fatalf("%+v", topics)
	}
	if err := Histories(topics, refs[:1], func(string) (schemas.Timeline, error) { return schemas.Timeline{}, errors.New("gone") }); err == nil || !strings.Contains(err.Error(), `topic "a"`) {
		t.Fatalf("an unreadable timeline: %v", err)
	}
}
