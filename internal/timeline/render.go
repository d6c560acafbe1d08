package timeline

import (
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// Markdown renders a timeline for a reader: a heading, one line per day with its sentences and
// numbered citations, and the sources below.
func Markdown(t schemas.Timeline) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Timeline: %s\n\n", render.MarkdownText(t.Topic))
	fmt.Fprintf(&b, "As of %s · index %s · %d days from %d documents (%d passages read; %d days reported).\n\n",
		t.AsOf.UTC().Format(time.DateOnly), render.MarkdownText(t.Index), len(t.Entries), t.Documents, t.Passages, t.Days)
	if len(t.Entries) == 0 {
		fmt.Fprintf(&b, "%s\n", render.MarkdownText(t.Message))
		return b.String()
	}
	nums, sources := numbering(t)
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "- **%s** — ", e.Day.UTC().Format(time.DateOnly))
		for i, c := range e.Citations {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s [%d]", render.MarkdownText(oneLine(c.Sentence)), nums[c.DocID])
		}
		fmt.Fprintf(&b, " *(%d %s)*\n", e.Documents, plural(e.Documents, "source", "sources"))
	}
	b.WriteString("\n## Sources\n\n")
	for i, c := range sources {
		name := cmpOr(c.Title, c.DocID)
		if c.URL != "" {
			fmt.Fprintf(&b, "%d. [%s](%s)", i+1, render.MarkdownText(oneLine(name)), c.URL)
		} else {
			fmt.Fprintf(&b, "%d. %s", i+1, render.MarkdownText(oneLine(name)))
		}
		fmt.Fprintf(&b, " — %s, %s\n", render.MarkdownText(cmpOr(c.Source, "unknown source")), c.PublishedAt.UTC().Format(time.DateOnly))
	}
	return b.String()
}

// numbering numbers the cited documents in order of first citation.
func numbering(t schemas.Timeline) (map[string]int, []schemas.TimelineCitation) {
	nums := map[string]int{}
	var sources []schemas.TimelineCitation
	for _, e := range t.Entries {
		for _, c := range e.Citations {
			if nums[c.DocID] == 0 {
				sources = append(sources, c)
				nums[c.DocID] = len(sources)
			}
		}
	}
	return nums, sources
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

//go:embed timeline.html.tmpl
var htmlTemplate string

var page = template.Must(template.New("timeline").Parse(htmlTemplate))

// axis is the SVG time axis: a tick per day, its height by how many documents report it.
type axis struct {
	Width, Height int
	Ticks         []tick
	Labels        []label
}

type tick struct {
	X, Y, H float64
	Title   string
	Anchor  string
}

type label struct {
	X    float64
	Text string
}

type htmlEntry struct {
	Day, Anchor string
	Documents   int
	Citations   []htmlCitation
}

type htmlCitation struct {
	Sentence string
	N        int
}

type htmlSource struct {
	N                         int
	Name, URL, Source, Posted string
}

// HTML renders a timeline as one page: the time axis, the days with their sentences, the
// sources.
func HTML(t schemas.Timeline) (string, error) {
	nums, sources := numbering(t)
	v := struct {
		T       schemas.Timeline
		AsOf    string
		Axis    axis
		Entries []htmlEntry
		Sources []htmlSource
	}{T: t, AsOf: t.AsOf.UTC().Format(time.DateOnly), Axis: axisOf(t.Entries)}
	for _, e := range t.Entries {
		he := htmlEntry{Day: e.Day.UTC().Format(time.DateOnly), Anchor: "d" + e.Day.UTC().Format("20060102"), Documents: e.Documents}
		for _, c := range e.Citations {
			he.Citations = append(he.Citations, htmlCitation{Sentence: oneLine(c.Sentence), N: nums[c.DocID]})
		}
		v.Entries = append(v.Entries, he)
	}
	for i, c := range sources {
		v.Sources = append(v.Sources, htmlSource{N: i + 1, Name: oneLine(cmpOr(c.Title, c.DocID)), URL: safeURL(c.URL), Source: c.Source,
			Posted: c.PublishedAt.UTC().Format(time.DateOnly)})
	}
	var b strings.Builder
	if err := page.Execute(&b, v); err != nil {
		return "", fmt.Errorf("timeline html: %w", err)
	}
	return b.String(), nil
}

// safeURL keeps http and https links only.
func safeURL(u string) string {
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

// axisOf lays the entries out on a line from the first day to the last, with month or year
// labels.
func axisOf(es []schemas.TimelineEntry) axis {
	a := axis{Width: 960, Height: 110}
	if len(es) == 0 {
		return a
	}
	first, last := es[0].Day.UTC(), es[len(es)-1].Day.UTC()
	span := math.Max(last.Sub(first).Hours()/24, 1)
	most := 1
	for _, e := range es {
		most = max(most, e.Documents)
	}
	const left, right, base, tall = 20.0, 20.0, 80.0, 60.0
	x := func(d time.Time) float64 { return left + (float64(a.Width)-left-right)*d.Sub(first).Hours()/24/span }
	for _, e := range es {
		h := 6 + (tall-6)*float64(e.Documents)/float64(most)
		a.Ticks = append(a.Ticks, tick{X: x(e.Day.UTC()), Y: base - h, H: h,
			Title:  fmt.Sprintf("%s: %d %s", e.Day.UTC().Format(time.DateOnly), e.Documents, plural(e.Documents, "source", "sources")),
			Anchor: "#d" + e.Day.UTC().Format("20060102")})
	}
	// Labels: months when the span is under two years, else years.
	monthly := last.Sub(first) < 2*365*24*time.Hour
	d := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC)
	if !monthly {
		d = time.Date(first.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	for ; !d.After(last); d = next(d, monthly) {
		if d.Before(first) {
			continue
		}
		text := d.Format("2006")
		if monthly {
			text = d.Format("Jan 2006")
		}
		a.Labels = append(a.Labels, label{X: x(d), Text: text})
	}
	// The first day is labelled too, unless a month or year label stands at it.
	if len(a.Labels) == 0 || a.Labels[0].X-x(first) > 60 {
		a.Labels = append([]label{{X: x(first), Text: first.Format(time.DateOnly)}}, a.Labels...)
	}
	return a
}

func next(d time.Time, monthly bool) time.Time {
	if monthly {
		return d.AddDate(0, 1, 0)
	}
	return d.AddDate(1, 0, 0)
}
