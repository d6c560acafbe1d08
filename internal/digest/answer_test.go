package digest

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// TestWriteAnswerHTML renders one answer as a page: the digest's card for it (query, reading,
// summary, cited sources linked), a header with the index and the day but no topic count, no
// table of contents and no overview, a footer naming the run; a corpus title is text, never
// markup.
func TestWriteAnswerHTML(t *testing.T) {
	topic := fixture().Topics[0]
	blocks := append(topic.Sources, schemas.ContextBlock{N: 9, DocID: "evil", PublishedAt: on(2024, 6, 20), Sources: []string{"evil.example"},
		Title: `<img src=x onerror="alert(1)"> leaked`, URL: "javascript:alert(1)"})
	brief := topic.Brief
	brief.Timeline = append(brief.Timeline, claim(on(2024, 6, 20), "A leak.", 9))
	ans := schemas.Answer{Version: 3, RunID: "asof-ask-news-20240630T090000.000Z", Index: "news", Query: topic.Query, AsOf: anchor,
		Mode: "recency", Interpretation: "recency (latest first)", Blocks: blocks, Brief: &brief, SummaryMethod: brief.Method,
		Summary: render.Markdown(brief, blocks)}
	var b strings.Builder
	if err := WriteAnswerHTML(&b, ans); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	doc := parse(t, out)
	meta := text(findAll(doc, "p", func(n *html.Node) bool { return hasClass(n, "meta") })[0])
	tests := []struct {
		name string
		ok   bool
	}{
		{name: "titled Answer", ok: text(findAll(doc, "h1", nil)[0]) == "Answer"},
		{name: "the header names index and day, no topic count", ok: strings.Contains(meta, "news") && strings.Contains(meta, "2024-06-30") && !strings.Contains(meta, "topics")},
		{name: "one card", ok: len(cards(doc)) == 1},
		{name: "the query", ok: strings.Contains(text(cards(doc)[0]), topic.Query)},
		{name: "no table of contents", ok: !strings.Contains(out, `id="toc"`)},
		{name: "no overview", ok: !strings.Contains(out, `id="overview"`)},
		{name: "a cited source is linked", ok: strings.Contains(out, `href="`+blocks[0].URL+`"`)},
		{name: "a corpus title is text", ok: !strings.Contains(out, "<img") && strings.Contains(out, "&lt;img")},
		{name: "no script link", ok: !strings.Contains(out, `href="javascript`)},
		{name: "the footer names the run", ok: strings.Contains(out, "Run <code>asof-ask-news-20240630T090000.000Z</code>. Answer format version 3.")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("not so:\n%s", out)
			}
		})
	}
}

// TestWriteAnswerHTMLStripsControls: a stored answer whose query, reading and source title
// hold escape sequences, a C1 CSI and a bidi override makes a page without them (html/template
// escapes markup, not control characters); what is left of the sequences is text.
func TestWriteAnswerHTMLStripsControls(t *testing.T) {
	topic := fixture().Topics[0]
	const evil = "key rate \x1b[2J\x1b]0;API-TITLE\x07 via api \u009b31m\u202e"
	blocks := append([]schemas.ContextBlock(nil), topic.Sources...)
	blocks[0].Title = evil
	ans := schemas.Answer{Version: 3, RunID: "asof-ask-news-20240630T090000.000Z", Index: "news", Query: evil, AsOf: anchor,
		Mode: "recency", Interpretation: evil, Blocks: blocks, Brief: &topic.Brief, SummaryMethod: topic.Brief.Method}
	var b strings.Builder
	if err := WriteAnswerHTML(&b, ans); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if i := strings.IndexFunc(out, func(r rune) bool {
		return (r < ' ' && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == '\u202e'
	}); i >= 0 {
		t.Fatalf("a control character %q at byte %d of the page", out[i:i+1], i)
	}
	if !strings.Contains(text(cards(parse(t, out))[0]), "key rate [2J]0;API-TITLE via api 31m") {
		t.Errorf("the card does not show the query as text:\n%s", out)
	}
}
