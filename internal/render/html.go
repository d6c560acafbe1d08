package render

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/asofrag/asof/schemas"
)

//go:embed brief.html.tmpl
var briefHTML string

var briefTemplate = template.Must(template.New("brief").Parse(briefHTML))

// htmlView is a View with its claims and sources ready for the template.
type htmlView struct {
	Note, NotEnough string
	Sections        []htmlSection
	Sources         []htmlSource
}

type htmlSection struct {
	Title  string
	Claims []htmlClaim
	Empty  string
}

type htmlClaim struct {
	Date  string
	Text  string
	Cites []htmlCite
}

// htmlCite is one [n] of a claim; Href is empty when no source n is listed, so that every link
// on the page leads somewhere.
type htmlCite struct {
	N    int
	Href string
}

type htmlSource struct {
	ID      string
	N       int
	Date    string
	Names   string
	Title   string
	URL     string
	Link    string // URL again when it is an http(s) address that can be a link
	Snippet string
}

// SourceID is the HTML id of source n (the number it is shown by, Numbering) in a fragment
// written with id prefix prefix: "<prefix>-src-<n>".
func SourceID(prefix string, n int) string { return prefix + "-src-" + strconv.Itoa(n) }

// HTML renders b, with the blocks its claims cite, as an HTML fragment for a page that styles
// it (internal/digest's): the same view as Markdown, numbered the same (Numbering), with each
// source in an <li> whose id is SourceID(prefix, n) and each citation [n] a link to it (plain text when no source n is
// listed). A source's title links to its URL when that is an http(s) address, and carries its
// snippet as a tooltip. Every string reaches the fragment through html/template, which escapes
// it for its context.
func HTML(b schemas.Brief, blocks []schemas.ContextBlock, prefix string) (template.HTML, error) {
	v := ViewOf(b)
	num := v.numbering()
	hv := htmlView{Note: v.Note, NotEnough: v.NotEnough}
	listed := map[int]string{}
	for _, bl := range Cited(b, blocks) {
		s := htmlSource{ID: SourceID(prefix, num.Of(bl.N)), N: num.Of(bl.N), Date: Day(bl.PublishedAt), Names: SourceNames(bl),
			Title: SourceTitle(bl), URL: OneLine(bl.URL), Snippet: OneLine(bl.Snippet)}
		if u, err := url.Parse(s.URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			s.Link = s.URL
		}
		listed[bl.N] = "#" + s.ID
		hv.Sources = append(hv.Sources, s)
	}
	for _, s := range v.Sections {
		hs := htmlSection{Title: s.Title, Empty: s.Empty}
		for _, c := range s.Claims {
			hc := htmlClaim{Text: OneLine(c.Text)}
			if !c.Date.IsZero() {
				hc.Date = Day(c.Date)
			}
			for _, n := range shownOrder(c.Cites, num) {
				hc.Cites = append(hc.Cites, htmlCite{N: num.Of(n), Href: listed[n]})
			}
			hs.Claims = append(hs.Claims, hc)
		}
		hv.Sections = append(hv.Sections, hs)
	}
	var buf bytes.Buffer
	if err := briefTemplate.Execute(&buf, hv); err != nil {
		return "", fmt.Errorf("render: brief as HTML: %w", err)
	}
	return template.HTML(strings.TrimRight(buf.String(), "\n")), nil // #nosec G203 -- written by html/template, escaped
}

// Coord formats an SVG coordinate with at most one decimal, never "-0": what the HTML views'
// charts (digest, eval report) write into their markup.
func Coord(v float64) string {
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Label cuts a chart label to n runes, ending it with "…" when cut.
func Label(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// shownOrder are a claim's cites (block numbers), each once, in the order of the numbers they
// are shown by.
func shownOrder(cites []int, num Numbering) []int {
	out := slices.Clone(cites)
	slices.SortFunc(out, func(x, y int) int { return cmp.Compare(num.Of(x), num.Of(y)) })
	return slices.Compact(out)
}
