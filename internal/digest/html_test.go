package digest

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

func page(t *testing.T, d schemas.Digest) string {
	t.Helper()
	var b strings.Builder
	if err := WriteHTML(&b, d); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	return b.String()
}

// The page readers of internal/htmltest, under the short names these tests use.
var (
	parse    = htmltest.Parse
	findAll  = htmltest.FindAll
	attr     = htmltest.Attr
	hasClass = htmltest.HasClass
	byID     = htmltest.ByID
	text     = htmltest.Text
)

func cards(doc *html.Node) []*html.Node {
	return findAll(doc, "section", func(n *html.Node) bool { return hasClass(n, "card") })
}

func TestWriteHTMLStructure(t *testing.T) {
	d := fixture()
	doc := parse(t, page(t, d))

	if got := text(findAll(doc, "h1", nil)[0]); got != "Digest morning" {
		t.Errorf("h1 = %q", got)
	}
	meta := text(findAll(doc, "p", func(n *html.Node) bool { return hasClass(n, "meta") })[0])
	for _, want := range []string{"news", "2024-06-30", "Europe/Berlin", "3 topics"} {
		if !strings.Contains(meta, want) {
			t.Errorf("header %q lacks %q", meta, want)
		}
	}

	// One card per topic, in order, each linked from the table of contents.
	cs := cards(doc)
	if len(cs) != len(d.Topics) {
		t.Fatalf("%d cards, want %d", len(cs), len(d.Topics))
	}
	toc := findAll(byID(t, doc, "toc"), "a", nil)
	if len(toc) != len(d.Topics) {
		t.Fatalf("table of contents has %d links, want %d", len(toc), len(d.Topics))
	}
	for i, c := range cs {
		if got := text(findAll(c, "h2", nil)[0]); !strings.HasSuffix(got, d.Topics[i].Name) {
			t.Errorf("card %d is headed %q, want %q", i, got, d.Topics[i].Name)
		}
		if got, want := attr(toc[i], "href"), "#"+attr(c, "id"); got != want {
			t.Errorf("table of contents link %d = %q, want %q", i, got, want)
		}
	}

	// The overview draws one bar per topic; the failed topic says so.
	ov := byID(t, doc, "overview-chart")
	bars := findAll(ov, "rect", nil)
	if len(bars) != len(d.Topics) {
		t.Fatalf("overview has %d bars, want %d", len(bars), len(d.Topics))
	}
	for i, b := range bars {
		if !strings.HasPrefix(text(b), d.Topics[i].Name+": ") {
			t.Errorf("overview bar %d is %q", i, text(b))
		}
	}
	if got := text(bars[0]); got != "ECB interest rates: 1 day · 50% within 7 days" {
		t.Errorf("overview bar 0 = %q", got)
	}
	if !hasClass(bars[2], "bad") || !strings.HasSuffix(text(bars[2]), "failed") {
		t.Errorf("failed topic's bar = %q, class %q", text(bars[2]), attr(bars[2], "class"))
	}

	// Each topic with sources has a strip chart with one dot per cited source.
	for i, c := range cs {
		charts := findAll(c, "svg", nil)
		if d.Topics[i].Error != "" {
			if len(charts) != 0 {
				t.Errorf("failed topic %d has a chart", i)
			}
			continue
		}
		if len(charts) != 1 {
			t.Fatalf("card %d has %d charts, want 1", i, len(charts))
		}
		dots := findAll(charts[0], "circle", nil)
		if len(dots) != len(d.Topics[i].Sources) {
			t.Errorf("card %d chart has %d dots, want %d", i, len(dots), len(d.Topics[i].Sources))
		}
		if len(findAll(charts[0], "line", func(n *html.Node) bool { return hasClass(n, "anchor") })) != 1 {
			t.Errorf("card %d chart does not mark the anchor", i)
		}
	}
	// The ECB topic cites sources of 2024-04-11 (80 days) and 2023-09-14: they are clamped
	// into the "older" zone at the left.
	ecbChart := findAll(cs[0], "svg", nil)[0]
	older := findAll(ecbChart, "circle", func(n *html.Node) bool { return hasClass(n, "older") })
	if len(older) != 2 || !strings.HasPrefix(text(older[0]), "[3] 2023-09-14") || !strings.HasPrefix(text(older[1]), "[4] 2024-04-11") {
		t.Fatalf("older dots = %d, want those of [3] and [4] (the numbers the summary shows)", len(older))
	}
	if len(findAll(ecbChart, "text", func(n *html.Node) bool { return text(n) == "older" })) != 1 {
		t.Error("ECB chart does not label its older zone")
	}
	cx := func(n *html.Node) float64 {
		v, err := strconv.ParseFloat(attr(n, "cx"), 64)
		if err != nil {
			t.Fatalf("cx of %q: %v", text(n), err)
		}
		return v
	}
	for _, dot := range findAll(ecbChart, "circle", func(n *html.Node) bool { return hasClass(n, "dot") }) {
		if cx(dot) <= cx(older[0]) {
			t.Errorf("dot %q lies left of the older zone", text(dot))
		}
	}

	// The failed topic shows its error and no claims or sources.
	failed := cs[2]
	alert := findAll(failed, "p", func(n *html.Node) bool { return hasClass(n, "error") })
	if len(alert) != 1 || !strings.Contains(text(alert[0]), d.Topics[2].Error) {
		t.Errorf("failed topic does not show its error")
	}
	if n := len(findAll(failed, "h3", nil)); n != 0 {
		t.Errorf("failed topic has %d sections", n)
	}

	// The evolution topic has its note, then Then and Now, no Timeline.
	var heads []string
	for _, h := range findAll(cs[1], "h3", nil) {
		heads = append(heads, text(h))
	}
	if want := []string{"Then", "Now", "Sources"}; !slices.Equal(heads, want) {
		t.Errorf("evolution topic sections = %q, want %q", heads, want)
	}
	if note := findAll(cs[1], "p", func(n *html.Node) bool { return hasClass(n, "note") }); len(note) != 1 || text(note[0]) != d.Topics[1].Brief.Note {
		t.Errorf("evolution topic does not show its note")
	}
	// The recency topic's sections are those of `asof ask`.
	heads = nil
	for _, h := range findAll(cs[0], "h3", nil) {
		heads = append(heads, text(h))
	}
	if want := []string{"New in the last 7 days", "Timeline", "Sources"}; !slices.Equal(heads, want) {
		t.Errorf("recency topic sections = %q, want %q", heads, want)
	}
}

// TestWriteHTMLCitations checks that every claim's [n] links to an entry of its own topic's
// source list, and that the entries carry the sources' links.
func TestWriteHTMLCitations(t *testing.T) {
	d := fixture()
	doc := parse(t, page(t, d))
	ids := map[string]*html.Node{}
	for _, n := range findAll(doc, "", func(n *html.Node) bool { return attr(n, "id") != "" }) {
		if ids[attr(n, "id")] != nil {
			t.Errorf("id %q is used twice", attr(n, "id"))
		}
		ids[attr(n, "id")] = n
	}
	for i, c := range cards(doc) {
		cites := findAll(c, "a", func(n *html.Node) bool { return hasClass(n, "cite") })
		want := 0
		for _, cl := range render.ViewOf(d.Topics[i].Brief).Claims() { // what the card shows
			want += len(cl.Cites)
		}
		if len(cites) != want {
			t.Errorf("card %d has %d citation links, want %d", i, len(cites), want)
		}
		for _, a := range cites {
			href := attr(a, "href")
			target := ids[strings.TrimPrefix(href, "#")]
			if !strings.HasPrefix(href, "#") || target == nil {
				t.Errorf("citation %s links to %q, which is no id on the page", text(a), href)
				continue
			}
			if !strings.HasPrefix(text(target), text(a)+" ") {
				t.Errorf("citation %s leads to %q", text(a), text(target))
			}
			if !slices.Contains(findAll(c, "li", nil), target) {
				t.Errorf("citation %s of card %d leads out of its card", text(a), i)
			}
		}
		num := render.NumberingOf(d.Topics[i].Brief)
		for _, s := range d.Topics[i].Sources {
			li := byID(t, doc, attr(c, "id")+"-src-"+strconv.Itoa(num.Of(s.N)))
			links := findAll(li, "a", nil)
			if len(links) != 1 {
				t.Errorf("source [%d] has %d links, want 1", s.N, len(links))
				continue
			}
			href, _ := url.PathUnescape(attr(links[0], "href")) // html/template %-encodes the Cyrillic path
			if href != s.URL || text(links[0]) != s.Title {
				t.Errorf("source [%d] links %q to %q, want %q to %q", s.N, text(links[0]), href, s.Title, s.URL)
			}
		}
	}

	// A cite with no such source stays plain text rather than a dead link.
	d.Topics[0].Brief.New[0].Cites = []int{3, 9}
	doc = parse(t, page(t, d))
	for _, a := range findAll(doc, "a", nil) {
		if strings.HasSuffix(attr(a, "href"), "-src-9") {
			t.Fatal("cite [9] links to a missing source")
		}
	}
	nine := fmt.Sprintf("[%d]", render.NumberingOf(d.Topics[0].Brief).Of(9))
	plain := findAll(doc, "span", func(n *html.Node) bool { return hasClass(n, "cite") && text(n) == nine })
	if len(plain) != 1 {
		t.Errorf("cite [9] (shown as %s) shown %d times as plain text, want 1", nine, len(plain))
	}
}

// TestWriteHTMLSelfContained checks that the page loads nothing: no script, no style or
// image from elsewhere, and URLs only as links to the cited sources.
func TestWriteHTMLSelfContained(t *testing.T) {
	d := fixture()
	d.Topics[0].Sources[1].URL = "javascript:alert(1)"
	d.Topics[0].Sources[2].URL = "ftp://example.com/file"
	out := page(t, d)
	doc := parse(t, out)
	if n := len(findAll(doc, "script", nil)); n != 0 || strings.Contains(strings.ToLower(out), "<script") {
		t.Errorf("page has %d <script>", n)
	}
	if strings.Contains(out, "url(") || strings.Contains(out, "@import") {
		t.Error("the style sheet loads a resource")
	}
	links := 0
	for _, n := range findAll(doc, "", nil) {
		if n.Data == "link" || n.Data == "img" || n.Data == "iframe" || n.Data == "object" {
			t.Errorf("page has a <%s>", n.Data)
		}
		for _, a := range n.Attr {
			if strings.Contains(strings.ToLower(a.Val), "javascript:") {
				t.Errorf("<%s %s=%q> holds a javascript: URL", n.Data, a.Key, a.Val)
			}
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has an event handler %s", n.Data, a.Key)
			}
			v := strings.ToLower(a.Val)
			if !strings.Contains(v, "http://") && !strings.Contains(v, "https://") {
				continue
			}
			u, err := url.Parse(a.Val)
			source := n.Data == "a" && a.Key == "href" && err == nil && (u.Scheme == "http" || u.Scheme == "https") &&
				n.Parent != nil && n.Parent.Data == "li" && strings.Contains(attr(n.Parent, "id"), "-src-")
			if !source {
				t.Errorf("<%s %s=%q> holds a URL and is no source link", n.Data, a.Key, a.Val)
			}
			links++
		}
	}
	// 5 + 4 sources, less the two whose URLs are not http(s).
	if links != 7 {
		t.Errorf("%d source links, want 7", links)
	}
	// The unlinkable addresses are still shown, as text.
	for _, s := range []string{"javascript:alert(1)", "ftp://example.com/file"} {
		num := render.NumberingOf(d.Topics[0].Brief)
		li := byID(t, doc, "topic-1-src-"+strconv.Itoa(num.Of(map[string]int{"javascript:alert(1)": d.Topics[0].Sources[1].N, "ftp://example.com/file": d.Topics[0].Sources[2].N}[s])))
		if !strings.Contains(text(li), "("+s+")") || len(findAll(li, "a", nil)) != 0 {
			t.Errorf("source with URL %q renders as %q", s, text(li))
		}
	}
}

func TestWriteHTMLEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	d := fixture()
	d.Name, d.Index, d.TimeZone, d.RunID = evil, evil, evil, evil
	tp := &d.Topics[0]
	tp.Name, tp.Query, tp.Interpretation, tp.Message = evil, evil, evil, evil
	tp.Brief.New[0].Text = evil
	tp.Brief.Note = evil
	tp.Sources[0].Title, tp.Sources[0].Sources, tp.Sources[0].Snippet = evil, []string{evil}, `"><img src=x onerror=alert(1)>`
	tp.Sources[0].URL = `https://example.com/?q="><script>alert(1)</script>`
	d.Topics[2].Error = evil
	out := page(t, d)
	if strings.Contains(out, "<script") || strings.Contains(out, "<img") {
		t.Fatal("output holds an unescaped <script or <img")
	}
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("output does not hold the escaped title")
	}
	// Escaped, not dropped: the parsed text gives the strings back.
	doc := parse(t, out)
	cs := cards(doc)
	if got := text(findAll(cs[0], "h2", nil)[0]); got != "1. "+evil {
		t.Errorf("card heading = %q", got)
	}
	li := byID(t, doc, "topic-1-src-"+strconv.Itoa(render.NumberingOf(tp.Brief).Of(tp.Sources[0].N)))
	if a := findAll(li, "a", nil); len(a) != 1 || text(a[0]) != evil || attr(a[0], "title") != `"><img src=x onerror=alert(1)>` {
		t.Errorf("source [1] renders as %q", text(li))
	}
	if !strings.Contains(text(findAll(cs[2], "p", func(n *html.Node) bool { return hasClass(n, "error") })[0]), evil) {
		t.Error("the error text is missing")
	}
	if got := text(findAll(doc, "title", nil)[0]); got != "Digest "+evil+" — 2024-06-30" {
		t.Errorf("title = %q", got)
	}
}

func TestWriteHTMLDeterministic(t *testing.T) {
	first := page(t, fixture())
	for range 20 { // maps iterate in a new order each time
		if page(t, fixture()) != first {
			t.Fatal("two renders of the same digest differ")
		}
	}
}

func TestWriteHTMLEmpty(t *testing.T) {
	doc := parse(t, page(t, schemas.Digest{AsOf: anchor}))
	if n := len(cards(doc)); n != 0 {
		t.Errorf("%d cards, want 0", n)
	}
	if n := len(findAll(doc, "svg", nil)); n != 0 {
		t.Errorf("%d charts, want 0", n)
	}
	if !strings.Contains(text(doc), "The digest has no topics.") {
		t.Error("an empty digest does not say so")
	}
}

func TestWriteHTMLCrowdedDay(t *testing.T) {
	d := fixture()
	tp := &d.Topics[0]
	tp.Sources = nil
	for n := 1; n <= maxStack+3; n++ {
		tp.Sources = append(tp.Sources, schemas.ContextBlock{N: n, PublishedAt: on(2024, 6, 29), Title: "same day"})
	}
	chart := findAll(cards(parse(t, page(t, d)))[0], "svg", nil)[0]
	if n := len(findAll(chart, "circle", nil)); n != maxStack {
		t.Errorf("%d dots on a crowded day, want %d", n, maxStack)
	}
	if len(findAll(chart, "text", func(n *html.Node) bool { return text(n) == "+3" })) != 1 {
		t.Error("the 3 dots beyond the stack are not counted in a +3 label")
	}
}

var errWrite = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteHTMLWriteError(t *testing.T) {
	if err := WriteHTML(failWriter{}, fixture()); !errors.Is(err, errWrite) {
		t.Errorf("WriteHTML to a failing writer = %v, want %v", err, errWrite)
	}
}

func TestWriteHTMLGolden(t *testing.T) {
	golden(t, "digest.golden.html", []byte(page(t, fixture())))
}

func BenchmarkWriteHTML(b *testing.B) {
	d := fixture()
	for len(d.Topics) < MaxTopics {
		d.Topics = append(d.Topics, d.Topics[len(d.Topics)%3])
	}
	var buf strings.Builder
	for b.Loop() {
		buf.Reset()
		if err := WriteHTML(&buf, d); err != nil {
			b.Fatal(err)
		}
	}
}
