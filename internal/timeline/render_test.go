package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/schemas"
)

func sample() schemas.Timeline {
	d := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	return schemas.Timeline{Topic: "Libia", Index: "news", AsOf: d("2011-09-01"), Passages: 12, Documents: 5, Days: 9, Entries: []schemas.TimelineEntry{
		{Day: d("2011-02-17"), Documents: 3, Citations: []schemas.TimelineCitation{
			{DocID: "a", Title: "Día de la Ira", Source: "elmundo", URL: "https://example.org/a", PublishedAt: d("2011-02-18"), Sentence: "Ayer murieron 24 personas.", Mentioned: true},
			{DocID: "b", Source: "lemonde", PublishedAt: d("2011-02-19"), Sentence: "<script>alert(1)</script> La journée de colère.", Mentioned: true}}},
		{Day: d("2011-08-23"), Documents: 2, Citations: []schemas.TimelineCitation{
			{DocID: "a", Title: "Día de la Ira", Source: "elmundo", URL: "javascript:alert(1)", PublishedAt: d("2011-02-18"), Sentence: "Los rebeldes toman Bab al Aziziya."}}},
	}}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(sample())
	for _, want := range []string{"# Timeline: Libia", "- **2011-02-17** — Ayer murieron 24 personas. [1]", "[2] *(3 sources)*",
		"- **2011-08-23** — Los rebeldes toman Bab al Aziziya. [1]", "1. [Día de la Ira](https://example.org/a) — elmundo, 2011-02-18", "2. b — lemonde, 2011-02-19"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if empty := Markdown(schemas.Timeline{Topic: "x", Message: "nothing about \"x\""}); !strings.Contains(empty, "nothing about") {
		t.Errorf("an empty timeline says nothing: %s", empty)
	}
}

func TestHTML(t *testing.T) {
	page, err := HTML(sample())
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, page)
	if n := len(htmltest.FindAll(doc, "rect", nil)); n != 2 {
		t.Errorf("%d ticks on the axis, want 2", n)
	}
	if len(htmltest.FindAll(doc, "script", nil)) != 0 || strings.Contains(page, "javascript:") {
		t.Error("a sentence's markup or a javascript: link reached the page")
	}
	htmltest.ByID(t, doc, "d20110823")
	htmltest.ByID(t, doc, "s2")
}
