package digest

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// Layout limits. They are constants rather than options: they shape the page, not the
// digest, and a caller has no reason to tune them per digest.
const (
	// chartDays is the span of a topic's time axis: the chartDays days before the anchor.
	chartDays = 60
	// maxStack is the most dots drawn on one day of a topic's chart; the rest are counted
	// in a "+n" label.
	maxStack = 6
	// maxLabelRunes bounds a topic name drawn in the overview chart; the full name is in
	// its tooltip.
	maxLabelRunes = 26
)

// view is the digest as both renderers see it: every string already formatted, every
// coordinate computed. Markdown and WriteHTML draw from the same view, so the two say the
// same things; a topic's summary and sources are rendered by package render, the one renderer
// of a brief, in both.
type view struct {
	Title    string
	Index    string
	AsOf     string
	TimeZone string
	RunID    string
	Version  int
	Topics   []topicView
	Overview *overviewChart
	// Single is set for the page of one answer (WriteAnswerHTML): no topic count, table of
	// contents or overview.
	Single bool
}

// topicView is one topic, ready to print.
type topicView struct {
	Num   int
	ID    string
	Name  string
	Query string
	// Reading says how the query was read: the interpretation, and the mode when the
	// interpretation does not start with it.
	Reading string
	Error   string
	Message string
	// Brief is the topic's summary with its sources, as Markdown (render.Markdown); BriefHTML
	// the same as HTML (render.HTML), filled by WriteHTML.
	Brief     string
	BriefHTML template.HTML
	Freshness string
	Judge     string
	Summary   string
	// Status sums the topic up in the table of contents; StatusClass colours it.
	Status      string
	StatusClass string
	Chart       *timeChart
	// History is the topic's timeline (schemas.DigestTopic.History), HistoryError why it
	// failed.
	History      []historyDay
	HistoryError string
	// brief and sources are what Brief and BriefHTML are rendered from.
	brief   schemas.Brief
	sources []schemas.ContextBlock
}

// historyDay is one day of a topic's history, ready to print: its sentences, each with the
// source that wrote it and when.
type historyDay struct {
	Day       string
	Documents int
	Lines     []historyLine
}

type historyLine struct {
	Sentence, Source, Title, URL, Posted string
}

func buildHistory(es []schemas.TimelineEntry) []historyDay {
	var out []historyDay
	for _, e := range es {
		h := historyDay{Day: formatDay(e.Day), Documents: e.Documents}
		for _, c := range e.Citations {
			url := c.URL
			if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
				url = ""
			}
			h.Lines = append(h.Lines, historyLine{Sentence: oneLine(c.Sentence), Source: oneLine(c.Source), Title: oneLine(c.Title), URL: url, Posted: formatDay(c.PublishedAt)})
		}
		out = append(out, h)
	}
	return out
}

func buildView(d schemas.Digest) view {
	name := oneLine(d.Name)
	title := "Digest"
	if name != "" && !strings.EqualFold(name, "digest") { // the CLI's default name is "digest": not "Digest digest"
		title = "Digest " + name
	}
	v := view{
		Title:    title,
		Index:    oneLine(d.Index),
		AsOf:     formatDay(d.AsOf),
		TimeZone: oneLine(d.TimeZone),
		RunID:    oneLine(d.RunID),
		Version:  d.Version,
	}
	for i, t := range d.Topics {
		v.Topics = append(v.Topics, buildTopic(i+1, t, d.AsOf))
	}
	v.Overview = buildOverview(d.Topics, v.Topics)
	return v
}

func buildTopic(num int, t schemas.DigestTopic, asOf time.Time) topicView {
	tv := topicView{
		Num:     num,
		ID:      "topic-" + strconv.Itoa(num),
		Name:    oneLine(t.Name),
		Query:   oneLine(t.Query),
		Reading: reading(oneLine(t.Mode), oneLine(t.Interpretation)),
		Error:   oneLine(t.Error),
		Message: oneLine(t.Message),
	}
	if tv.Name == "" {
		tv.Name = defaultName(tv.Query)
	}
	if tv.Name == "" {
		tv.Name = "Topic " + strconv.Itoa(num)
	}
	if tv.Error != "" {
		tv.Status, tv.StatusClass = "failed", "bad"
		return tv
	}
	b := t.Brief
	if b.AsOf.IsZero() { // a brief stored before it recorded its day
		b.AsOf = asOf
	}
	tv.History, tv.HistoryError = buildHistory(t.History), oneLine(t.HistoryError)
	tv.brief, tv.sources = b, t.Sources
	tv.Brief = render.Markdown(b, t.Sources)
	tv.Freshness = freshnessLine(t.Freshness)
	tv.Judge = judgeLine(t.Judge)
	tv.Summary = oneLine(b.Method)
	if tv.Summary == "" {
		tv.Summary = "none"
	}
	switch f := t.Freshness; {
	case f.Blocks == 0 || f.FreshestDays < 0:
		tv.Status, tv.StatusClass = "no evidence", "muted"
	default:
		tv.Status, tv.StatusClass = "freshest "+days(f.FreshestDays)+" old", ageClass(f.FreshestDays)
	}
	tv.Chart = buildTimeChart(tv.ID, t.Sources, render.NumberingOf(b), asOf)
	return tv
}

// reading is "recency (no date in query)", or "recency (no date in query) · mode hybrid"
// when the ranking mode is not the one the interpretation names.
func reading(mode, interpretation string) string {
	switch {
	case interpretation == "":
		return mode
	case mode == "" || strings.HasPrefix(interpretation, mode):
		return interpretation
	default:
		return interpretation + " · mode " + mode
	}
}

// freshnessLine describes f: "freshest evidence 2 days old, 60% within 7 days, 5 distinct
// days; median 4.5 days, 80% within 30 days, 10 context blocks".
func freshnessLine(f schemas.DigestFreshness) string {
	if f.Blocks == 0 || f.FreshestDays < 0 {
		return "no evidence"
	}
	return fmt.Sprintf("freshest evidence %s old, %s within 7 days, %s; median %s, %s within 30 days, %s",
		days(f.FreshestDays), pct(f.Within7), plural(f.DistinctDays, "distinct day", "distinct days"),
		days(f.MedianDays), pct(f.Within30), plural(f.Blocks, "context block", "context blocks"))
}

// judgeLine describes j: "llm:qwen — 24 judged, 9 kept, 15 dropped, 0 failed", and when
// batches failed, how many, the policy and why the first failed.
func judgeLine(j schemas.JudgeReport) string {
	method := oneLine(j.Method)
	switch method {
	case "":
		return "none recorded"
	case "off":
		return "off"
	}
	s := fmt.Sprintf("%s — %d judged, %d kept, %d dropped, %d failed", method, j.Judged, j.Kept, j.Dropped, j.Failed)
	if j.FailedBatches > 0 {
		s += fmt.Sprintf(" (%d of %s failed, policy %s)", j.FailedBatches, plural(j.Batches, "batch", "batches"), oneLine(j.Policy))
		if j.Reason != "" {
			s += "; first failure: " + oneLine(j.Reason)
		}
	}
	return s
}

// ageClass colours an age: fresh within a week, aging within a month, stale after.
func ageClass(age int) string {
	switch {
	case age <= 7:
		return "fresh"
	case age <= 30:
		return "aging"
	default:
		return "stale"
	}
}

// tick is one labelled axis position.
type tick struct {
	X     string
	Label string
}

// timeChart is a topic's freshness strip: one dot per cited source on a time axis of the
// chartDays days before the anchor, older sources clamped into a zone at the left edge.
type timeChart struct {
	ID          string
	Desc        string
	Width       int
	Height      int
	PlotX0      string
	PlotX1      string
	Top         string
	AxisY       string
	TickY       string
	LabelY      string
	NewX        string
	NewW        string
	NewH        string
	AnchorLabel string
	Ticks       []tick
	Dots        []dot
	Extra       []label
	Older       *olderZone
}

type dot struct {
	Class string
	CX    string
	CY    string
	Title string
}

type label struct {
	X    string
	Y    string
	Text string
}

// olderZone marks the sources older than chartDays, drawn at OlderX left of the axis.
type olderZone struct {
	X     string
	SepX  string
	Label string
}

// Time chart geometry, in SVG user units.
const (
	timeWidth   = 640
	timeOlderX  = 26.0
	timeSepX    = 48.0
	timePlotX0  = 64.0
	timePlotX1  = 620.0
	timeTop     = 20.0
	timeDotStep = 10.0
	timeDotR    = 4.0
	timeDotGap  = 8.0
	timeTickPad = 14.0
	timeBottom  = 30.0
)

// dayX is the x of an age in days on the time axis.
func dayX(age float64) float64 {
	return timePlotX1 - age/chartDays*(timePlotX1-timePlotX0)
}

// buildTimeChart charts a topic's sources (the blocks its brief cites, or all its blocks when
// it cites none), one dot per number, in the order and by the numbers the summary shows them
// (num); nil when there are none.
func buildTimeChart(topicID string, sources []schemas.ContextBlock, num render.Numbering, asOf time.Time) *timeChart {
	sources = slices.Clone(sources)
	slices.SortStableFunc(sources, func(a, b schemas.ContextBlock) int { return cmp.Compare(num.Of(a.N), num.Of(b.N)) })
	sources = slices.CompactFunc(sources, func(a, b schemas.ContextBlock) bool { return a.N == b.N })
	if len(sources) == 0 {
		return nil
	}
	// Stack the dots of each day (and of the older zone, age −1 here) in source order.
	const older = -1
	stack := make(map[int][]schemas.ContextBlock)
	var keys []int
	for _, s := range sources {
		age := max(ageDays(s.PublishedAt, asOf), 0)
		if age > chartDays {
			age = older
		}
		if _, ok := stack[age]; !ok {
			keys = append(keys, age)
		}
		stack[age] = append(stack[age], s)
	}
	slices.Sort(keys)
	height := 1
	for _, k := range keys {
		height = max(height, min(len(stack[k]), maxStack))
	}
	axisY := timeTop + float64(height)*timeDotStep + timeDotGap
	c := &timeChart{
		ID:          topicID + "-chart",
		Width:       timeWidth,
		Height:      int(math.Ceil(axisY + timeBottom)),
		PlotX0:      render.Coord(timePlotX0),
		PlotX1:      render.Coord(timePlotX1),
		Top:         render.Coord(timeTop - 6),
		AxisY:       render.Coord(axisY),
		TickY:       render.Coord(axisY + timeTickPad),
		LabelY:      render.Coord(axisY + timeTickPad + 12),
		NewX:        render.Coord(dayX(NewDays - 0.5)),
		NewW:        render.Coord(timePlotX1 + timeDotR + 2 - dayX(NewDays-0.5)),
		NewH:        render.Coord(axisY - (timeTop - 6)),
		AnchorLabel: "as of " + formatDay(asOf),
	}
	for _, d := range []int{60, 30, 14, 7, 0} {
		c.Ticks = append(c.Ticks, tick{X: render.Coord(dayX(float64(d))), Label: tickLabel(d)})
	}
	var desc []string
	olderCount := 0
	for _, k := range keys {
		x, class := timeOlderX, "older"
		if k != older {
			x, class = dayX(float64(k)), "dot"
		}
		list := stack[k]
		for i, s := range list {
			if i == maxStack {
				break
			}
			c.Dots = append(c.Dots, dot{
				Class: class,
				CX:    render.Coord(x),
				CY:    render.Coord(axisY - timeDotGap/2 - timeDotR - float64(i)*timeDotStep),
				Title: fmt.Sprintf("[%d] %s · %s old · %s", num.Of(s.N), formatDay(s.PublishedAt), days(max(ageDays(s.PublishedAt, asOf), 0)), render.SourceTitle(s)),
			})
		}
		if len(list) > maxStack {
			c.Extra = append(c.Extra, label{ // right of the top dot
				X:    render.Coord(x + timeDotR + 3),
				Y:    render.Coord(axisY - timeDotGap/2 - timeDotR - float64(maxStack-1)*timeDotStep + 4),
				Text: "+" + strconv.Itoa(len(list)-maxStack),
			})
		}
		if k == older {
			olderCount = len(list)
			continue
		}
		desc = append(desc, fmt.Sprintf("%s old: %d", days(k), len(list)))
	}
	if olderCount > 0 {
		c.Older = &olderZone{X: render.Coord(timeOlderX), SepX: render.Coord(timeSepX), Label: "older"}
		desc = append(desc, fmt.Sprintf("older than %d days: %d", chartDays, olderCount))
	}
	c.Desc = fmt.Sprintf("Publication days of the %s over the %d days up to %s: %s.",
		plural(len(sources), "cited source", "cited sources"), chartDays, formatDay(asOf), strings.Join(desc, "; "))
	return c
}

func tickLabel(d int) string {
	if d == 0 {
		return "0"
	}
	return strconv.Itoa(d) + " d"
}

// overviewChart is the page's summary: the freshest evidence of each topic as a bar, on an
// axis of 0 to chartDays days (longer bars are staler; older ages are drawn to the end).
type overviewChart struct {
	Desc   string
	Width  int
	Height int
	PlotX0 string
	PlotX1 string
	Top    string
	AxisY  string
	TickY  string
	Ticks  []tick
	Bars   []overviewBar
}

type overviewBar struct {
	Label  string
	Title  string
	Href   string
	Class  string
	Y      string
	H      string
	W      string
	TextY  string
	LabelX string
	ValueX string
	Value  string
}

// Overview chart geometry, in SVG user units.
const (
	ovWidth    = 720
	ovPlotX0   = 230.0
	ovPlotW    = 380.0
	ovTop      = 8.0
	ovStep     = 24.0
	ovBarH     = 16.0
	ovAxisPad  = 4.0
	ovTickPad  = 14.0
	ovBottom   = 22.0
	ovLabelGap = 8.0
	ovMinBar   = 3.0
)

func buildOverview(topics []schemas.DigestTopic, views []topicView) *overviewChart {
	if len(topics) == 0 {
		return nil
	}
	axisY := ovTop + float64(len(topics))*ovStep + ovAxisPad
	c := &overviewChart{
		Width:  ovWidth,
		Height: int(math.Ceil(axisY + ovBottom)),
		PlotX0: render.Coord(ovPlotX0),
		PlotX1: render.Coord(ovPlotX0 + ovPlotW),
		Top:    render.Coord(ovTop - 4),
		AxisY:  render.Coord(axisY),
		TickY:  render.Coord(axisY + ovTickPad),
	}
	for _, d := range []int{0, 7, 14, 30, 60} {
		c.Ticks = append(c.Ticks, tick{X: render.Coord(ovPlotX0 + float64(d)/chartDays*ovPlotW), Label: tickLabel(d)})
	}
	desc := make([]string, 0, len(topics))
	for i, t := range topics {
		tv := views[i]
		y := ovTop + float64(i)*ovStep
		b := overviewBar{
			Label:  render.Label(fmt.Sprintf("%d. %s", tv.Num, tv.Name), maxLabelRunes),
			Href:   "#" + tv.ID,
			Y:      render.Coord(y),
			H:      render.Coord(ovBarH),
			TextY:  render.Coord(y + ovBarH/2 + 4),
			LabelX: render.Coord(ovPlotX0 - ovLabelGap),
		}
		w := 0.0
		f := t.Freshness
		switch {
		case tv.Error != "":
			b.Value, b.Class = "failed", "bad"
		case f.Blocks == 0 || f.FreshestDays < 0:
			b.Value, b.Class = "no evidence", "muted"
		default:
			w = max(min(float64(f.FreshestDays), chartDays)/chartDays*ovPlotW, ovMinBar)
			b.Class = ageClass(f.FreshestDays)
			b.Value = fmt.Sprintf("%s · %s within 7 days", days(f.FreshestDays), pct(f.Within7))
			if f.FreshestDays > chartDays {
				b.Value += " (off the axis)"
			}
		}
		b.W, b.ValueX = render.Coord(w), render.Coord(ovPlotX0+w+4)
		b.Title = tv.Name + ": " + b.Value
		desc = append(desc, tv.Name+" "+b.Value)
		c.Bars = append(c.Bars, b)
	}
	c.Desc = fmt.Sprintf("Age in days of the freshest evidence per topic, axis 0 to %d days: %s", chartDays, strings.Join(desc, ", "))
	return c
}

// formatDay is t's UTC day as YYYY-MM-DD; "undated" for the zero time.
func formatDay(t time.Time) string { return render.Day(t) }

// days formats an age in days: "1 day", "2 days", "4.5 days".
func days[T int | float64](n T) string {
	s := strconv.FormatFloat(float64(n), 'f', -1, 64)
	if s == "1" {
		return "1 day"
	}
	return s + " days"
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// pct formats a share as a whole percentage: 0.6 → "60%".
func pct(share float64) string {
	if math.IsNaN(share) {
		share = 0
	}
	return strconv.Itoa(int(math.Round(share*100))) + "%"
}

// oneLine collapses s's whitespace, newlines included, into single spaces.
func oneLine(s string) string { return render.OneLine(s) }
