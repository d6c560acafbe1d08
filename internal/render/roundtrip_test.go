package render

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/brief"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/htmltest"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// context is a small context as evidence builds it, newest first, and the same blocks as an
// answer stores them.
func roundTripContext() ([]evidence.Block, []schemas.ContextBlock) {
	ev := []evidence.Block{
		{N: 1, Snippet: "The central bank raised the key rate to 18% on 28 June 2024. The next meeting is on 26 July.",
			Doc: evidence.Doc{DocID: "a", Title: "Key rate raised to 18%", Sources: []string{"tass", "rbc"}, PublishedAt: at("2024-06-28"), URL: "https://example.com/a"}},
		{N: 2, Snippet: "Analysts expected the key rate to stay at 16% <b>until</b> July & later.",
			Doc: evidence.Doc{DocID: "b", Sources: []string{"tg:markets"}, PublishedAt: at("2024-06-25")}},
		{N: 3, Snippet: "Банк России сохранил ключевую ставку 16% 26 апреля 2024 года.",
			Doc: evidence.Doc{DocID: "c", Title: "Ставка сохранена", Sources: []string{"interfax"}, PublishedAt: at("2024-05-10"), URL: "javascript:alert(1)"}},
		{N: 4, Snippet: "The key rate was raised to 16% in December.",
			Doc: evidence.Doc{DocID: "d", Sources: []string{"reuters"}, PublishedAt: at("2023-12-15")}},
	}
	var cb []schemas.ContextBlock
	for _, b := range ev {
		cb = append(cb, schemas.ContextBlock{N: b.N, DocID: b.Doc.DocID, PublishedAt: b.Doc.PublishedAt, Sources: b.Doc.Sources,
			Title: b.Doc.Title, Snippet: b.Snippet, URL: b.Doc.URL})
	}
	return ev, cb
}

// briefs are briefs of every shape, from the writers themselves where one writes that shape.
func briefs(t *testing.T) map[string]schemas.Brief {
	t.Helper()
	ev, _ := roundTripContext()
	out := map[string]schemas.Brief{}
	var err error
	if out["extractive"], err = summarize.Brief("key rate", ev, asOf, summarize.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if out["extractive evolution"], err = summarize.Evolve("how has the key rate changed", ev[2:], ev[:2], asOf, summarize.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if out["extractive, weak match"], err = summarize.Brief("central expectations survey bonds pensions", ev, asOf, summarize.DefaultOptions()); err != nil || out["extractive, weak match"].Note == "" {
		t.Fatalf("no weak match: %+v, %v", out["extractive, weak match"], err)
	}
	reply := `{"not_enough":false,"new":[{"text":"The key rate rose to 18% <script>x</script>.","cites":[1]}],
		"timeline":[{"date":"2023-12-15","text":"It rose to 16%.","cites":[4]},{"date":"2024-05-10","text":"It was held [3].","cites":[3,4]},{"date":"2024-06-28","text":"It rose to 18% & more.","cites":[1,2]}]}`
	if out["llm"], err = brief.ParseBrief(reply, ev, asOf, 7); err != nil {
		t.Fatal(err)
	}
	out["not enough, with a note"] = schemas.Brief{Method: "none", AsOf: asOf, NotEnough: true, Note: "No document <was> left."}
	return out
}

// mdClaim is a claim line read back: "2024-06-28 — text [1][2]".
var mdClaim = regexp.MustCompile(`^(?:(\d{4}-\d{2}-\d{2}) — )?(.*?)((?:\[\d+\])*)$`)

// mdBackslash is a backslash escape of ASCII punctuation, which a Markdown reader removes.
var mdBackslash = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

// mdUnescape removes the backslash escapes a Markdown reader removes.
func mdUnescape(s string) string { return mdBackslash.ReplaceAllString(s, "$1") }

// readMarkdown reads a rendered brief back: this test's own reader, so that it checks the
// renderer rather than sharing its code.
func readMarkdown(t *testing.T, md string) (note, notEnough string, sections []section, sources []int) {
	t.Helper()
	inSources := false
	for line := range strings.Lines(md) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
		case line == "### Sources":
			inSources = true
		case inSources:
			n, err := strconv.Atoi(line[strings.Index(line, "[")+1 : strings.Index(line, "]")])
			if err != nil {
				t.Fatalf("source line %q", line)
			}
			sources = append(sources, n)
		case strings.HasPrefix(line, "### "):
			sections = append(sections, section{title: strings.TrimPrefix(line, "### ")})
		case strings.HasPrefix(line, "_") && strings.HasSuffix(line, "_") && len(sections) > 0: // an empty section's line
			sections[len(sections)-1].empty = strings.Trim(line, "_")
		case strings.HasPrefix(line, "_") && strings.HasSuffix(line, "_"):
			note = mdUnescape(strings.Trim(line, "_"))
		case strings.HasPrefix(line, "Not enough information"):
			notEnough = line
		case strings.HasPrefix(line, "- ") && len(sections) > 0:
			s := &sections[len(sections)-1]
			m := mdClaim.FindStringSubmatch(strings.TrimPrefix(line, "- ")) // every bullet is a claim
			c := claimSeen{date: m[1], text: mdUnescape(m[2])}
			for _, n := range regexp.MustCompile(`\d+`).FindAllString(m[3], -1) {
				k, _ := strconv.Atoi(n)
				c.cites = append(c.cites, k)
			}
			s.claims = append(s.claims, c)
		default:
			t.Fatalf("a line the renderer should not write: %q", line)
		}
	}
	return
}

type section struct {
	title  string
	claims []claimSeen
	empty  string
}

type claimSeen struct {
	date, text string
	cites      []int
}

// want is what a reader must find of b: its view, claim by claim, and the blocks it cites.
func want(b schemas.Brief, blocks []schemas.ContextBlock) (note, notEnough string, sections []section, sources []int) {
	v := ViewOf(b)
	num := NumberingOf(b)
	for _, s := range v.Sections {
		sec := section{title: s.Title}
		if len(s.Claims) == 0 {
			sec.empty = s.Empty
		}
		for _, c := range s.Claims {
			cs := claimSeen{text: OneLine(c.Text), cites: num.Shown(c.Cites)}
			if !c.Date.IsZero() {
				cs.date = Day(c.Date)
			}
			if len(c.Cites) > 0 {
				cs.text += " "
			}
			sec.claims = append(sec.claims, cs)
		}
		sections = append(sections, sec)
	}
	for _, bl := range Cited(b, blocks) {
		sources = append(sources, num.Of(bl.N))
	}
	return v.Note, v.NotEnough, sections, sources
}

// TestRoundTrip renders briefs of every shape to each output and reads them back: Markdown and
// HTML show every claim of the view, with its date and citations, under its section, and the
// cited sources; JSON gives the brief back as it was.
func TestRoundTrip(t *testing.T) {
	_, blocks := roundTripContext()
	for name, b := range briefs(t) {
		t.Run(name, func(t *testing.T) {
			wNote, wNE, wSections, wSources := want(b, blocks)
			for i, n := range wSources { // the numbers a reader sees: 1..n, in order
				if n != i+1 {
					t.Fatalf("sources shown as %v, want 1..%d", wSources, len(wSources))
				}
			}
			if len(wSections) == 0 && !b.NotEnough {
				t.Fatalf("a brief with nothing to show: %+v", b)
			}

			t.Run("markdown", func(t *testing.T) {
				md := Markdown(b, blocks)
				note, ne, sections, sources := readMarkdown(t, md)
				if note != wNote || ne != wNE || !reflect.DeepEqual(sections, wSections) || !reflect.DeepEqual(sources, wSources) {
					t.Errorf("read back\n%q %q\n%+v\n%v\nwant\n%q %q\n%+v\n%v\nfrom\n%s", note, ne, sections, sources, wNote, wNE, wSections, wSources, md)
				}
			})

			t.Run("html", func(t *testing.T) {
				frag, err := HTML(b, blocks, "topic-1")
				if err != nil {
					t.Fatal(err)
				}
				note, ne, sections, sources := readHTML(t, string(frag))
				if note != wNote || ne != wNE || !reflect.DeepEqual(sections, wSections) || !reflect.DeepEqual(sources, wSources) {
					t.Errorf("read back\n%q %q\n%+v\n%v\nwant\n%q %q\n%+v\n%v\nfrom\n%s", note, ne, sections, sources, wNote, wNE, wSections, wSources, frag)
				}
				if strings.Contains(string(frag), "<script>") || strings.Contains(string(frag), "<b>") || strings.Contains(string(frag), `href="javascript:`) {
					t.Errorf("text reached the page unescaped, or a javascript: URL became a link:\n%s", frag)
				}
			})

			t.Run("json", func(t *testing.T) {
				data, err := json.Marshal(b)
				if err != nil {
					t.Fatal(err)
				}
				var back schemas.Brief
				if err := json.Unmarshal(data, &back); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(back, b) || Markdown(back, blocks) != Markdown(b, blocks) {
					t.Errorf("JSON gave back\n%+v\nnot\n%+v", back, b)
				}
			})
		})
	}
}

// readHTML reads a rendered fragment back, checking on the way that every citation link
// leads to a listed source.
func readHTML(t *testing.T, frag string) (note, notEnough string, sections []section, sources []int) {
	t.Helper()
	doc := htmltest.Parse(t, "<!DOCTYPE html><html><body>"+frag+"</body></html>")
	ids := map[string]bool{}
	body := htmltest.FindAll(doc, "body", nil)[0]
	for n := body.FirstChild; n != nil; n = n.NextSibling {
		if n.Type != html.ElementNode {
			continue
		}
		switch {
		case n.Data == "p" && htmltest.HasClass(n, "note"):
			note = htmltest.Text(n)
		case n.Data == "p" && htmltest.HasClass(n, "empty") && len(sections) == 0:
			notEnough = htmltest.Text(n)
		case n.Data == "h3" && htmltest.Text(n) == "Sources":
		case n.Data == "h3":
			sections = append(sections, section{title: htmltest.Text(n)})
		case n.Data == "p" && htmltest.HasClass(n, "empty"):
			sections[len(sections)-1].empty = htmltest.Text(n)
		case n.Data == "ul" && htmltest.HasClass(n, "claims"):
			for _, li := range htmltest.FindAll(n, "li", nil) {
				var c claimSeen
				for k := li.FirstChild; k != nil; k = k.NextSibling {
					switch {
					case k.Type == html.TextNode:
						c.text += k.Data
					case k.Data == "time":
						c.date = htmltest.Text(k)
					case htmltest.HasClass(k, "cite"):
						n, _ := strconv.Atoi(strings.Trim(htmltest.Text(k), "[]"))
						c.cites = append(c.cites, n)
						if href := htmltest.Attr(k, "href"); href != "" && href != "#topic-1-src-"+strconv.Itoa(n) {
							t.Errorf("[%d] links to %q", n, href)
						}
					}
				}
				c.text = strings.TrimPrefix(c.text, " ")
				sections[len(sections)-1].claims = append(sections[len(sections)-1].claims, c)
			}
		case n.Data == "ul" && htmltest.HasClass(n, "sources"):
			for _, li := range htmltest.FindAll(n, "li", nil) {
				id := htmltest.Attr(li, "id")
				ids[id] = true
				n, err := strconv.Atoi(strings.TrimPrefix(id, "topic-1-src-"))
				if err != nil {
					t.Fatalf("source id %q", id)
				}
				sources = append(sources, n)
			}
		default:
			t.Fatalf("an element the renderer should not write: <%s class=%q>", n.Data, htmltest.Attr(n, "class"))
		}
	}
	for _, a := range htmltest.FindAll(doc, "a", func(n *html.Node) bool { return htmltest.HasClass(n, "cite") }) {
		if !ids[strings.TrimPrefix(htmltest.Attr(a, "href"), "#")] {
			t.Errorf("citation link %q leads nowhere", htmltest.Attr(a, "href"))
		}
	}
	return
}
