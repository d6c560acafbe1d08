// Package digest renders a daily digest — many topics answered as of one day — as Markdown
// and as one self-contained HTML page, and reads the topics file that lists them; a single
// stored answer gets the same page with one card (WriteAnswerHTML).
//
// The page has inline CSS and inline SVG charts, no script and no external resource, so it
// works offline, can be mailed or archived as is, and prints well; its only URLs are the
// links to the cited sources. The package is pure, in the manner of package report: it
// never reads the clock or the file system, the same digest always gives the same bytes,
// and every string of the input reaches the page through html/template, which escapes it
// for its context.
package digest

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

//go:embed digest.html.tmpl
var digestHTML string

var digestTemplate = template.Must(template.New("digest").Parse(digestHTML))

// WriteHTML writes d as one HTML page to w.
//
// The page has, in order: a header (name, index, as-of day, time zone); a table of
// contents; an overview chart of each topic's freshest evidence; and one card per topic
// with the content of Markdown — the reading of the query, the summary and its sources
// (render.HTML: the same view as render.Markdown), freshness, judge and summary method, or the
// topic's error. Citations [n] link to the entries of the topic's source list (a number
// the list lacks stays plain text), and a strip chart places each cited source on the 60
// days before the anchor, older ones in a zone at its left edge.
//
// The page is rendered in memory first, so on a rendering error nothing is written. The
// output is byte-identical for the same d.
func WriteHTML(w io.Writer, d schemas.Digest) error {
	return writePage(w, buildView(d))
}

// writePage renders v's topics' briefs and the page, in memory first.
func writePage(w io.Writer, v view) error {
	for i := range v.Topics {
		t := &v.Topics[i]
		if t.Error != "" {
			continue
		}
		h, err := render.HTML(t.brief, t.sources, t.ID)
		if err != nil {
			return fmt.Errorf("digest: topic %d: %w", t.Num, err)
		}
		t.BriefHTML = h
	}
	var buf bytes.Buffer
	if err := digestTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("digest: render page: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("digest: write page: %w", err)
	}
	return nil
}

// WriteAnswerHTML writes one answer as a self-contained page, the way a digest shows a topic:
// the card of WriteHTML (the reading, the summary with its sources, the chart of the cited
// sources' dates, freshness, judge and summary method) under a header naming the index and
// the as-of day, without the digest's table of contents and overview. It is how a stored
// answer is shown as HTML (`asof answers get --html`, GET /v1/answers/{id}?format=html).
func WriteAnswerHTML(w io.Writer, ans schemas.Answer) error {
	t := TopicOf(schemas.DigestTopic{Query: ans.Query, AskRunID: ans.RunID}, ans)
	v := buildView(schemas.Digest{Version: ans.Version, Index: ans.Index, AsOf: ans.AsOf, RunID: ans.RunID, Topics: []schemas.DigestTopic{t}})
	v.Title, v.Single = "Answer", true
	return writePage(w, v)
}
