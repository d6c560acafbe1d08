package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// Layout limits. They are constants rather than options: they shape the page, not the
// numbers on it, and a caller has no reason to tune them per report.
const (
	// maxQuestionRows bounds the per-question table.
	maxQuestionRows = 200
	// maxMonthLabels bounds the x labels of the month chart; the others are thinned out.
	maxMonthLabels = 12
	// maxFilledMonths bounds the month range whose gaps are filled with zero columns.
	maxFilledMonths = 1200
	// maxLabelRunes bounds a system name drawn in a chart; the full name is in its tooltip.
	maxLabelRunes = 22
	// paletteSize is how many system colour classes (c0…) the style sheet defines.
	paletteSize = 7
)

// page is the template's data: every number already formatted, every coordinate computed.
type page struct {
	Title       string
	Index       string
	Questions   int
	SystemCount int
	Notes       []string
	Generated   string
	Metrics     *metricTable
	Bars        []barChart
	Months      *columnChart
	Ages        *ageChart
	PerQuestion *questionTable
}

func buildPage(r EvalReport) page {
	title := r.Title
	if strings.TrimSpace(title) == "" {
		title = "Evaluation report"
	}
	p := page{
		Title:       title,
		Index:       r.Index,
		Questions:   r.Questions,
		SystemCount: len(r.Systems),
		Notes:       r.Notes,
	}
	if !r.Generated.IsZero() {
		p.Generated = r.Generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	colors := colorClasses(r)
	p.Metrics = buildMetricTable(r.Systems, colors)
	p.Bars = buildBarCharts(r.Systems, colors)
	p.Months = buildMonthChart(r.DocsPerMonth)
	systems := rowSystems(r)
	p.Ages = buildAgeChart(r.Rows, systems, colors)
	p.PerQuestion = buildQuestionTable(r.Rows, systems)
	return p
}

// colorClasses gives each system a colour class, c0…c6 in turn: the systems of r.Systems
// in order, then those only in r.Rows by name.
func colorClasses(r EvalReport) map[string]string {
	names := make([]string, 0, len(r.Systems))
	for _, s := range r.Systems {
		names = append(names, s.System)
	}
	names = append(names, extraSystems(r)...)
	classes := make(map[string]string, len(names))
	for _, n := range names {
		if _, ok := classes[n]; !ok {
			classes[n] = "c" + strconv.Itoa(len(classes)%paletteSize)
		}
	}
	return classes
}

// extraSystems lists, sorted, the systems of r.Rows that r.Systems does not name.
func extraSystems(r EvalReport) []string {
	listed := make(map[string]bool, len(r.Systems))
	for _, s := range r.Systems {
		listed[s.System] = true
	}
	var extra []string
	for _, row := range r.Rows {
		if !listed[row.System] {
			listed[row.System] = true
			extra = append(extra, row.System)
		}
	}
	slices.Sort(extra)
	return extra
}

// rowSystems lists the systems that have rows, in display order: those of r.Systems first,
// then the others by name.
func rowSystems(r EvalReport) []string {
	has := make(map[string]bool)
	for _, row := range r.Rows {
		has[row.System] = true
	}
	var names []string
	seen := make(map[string]bool)
	for _, s := range r.Systems {
		if has[s.System] && !seen[s.System] {
			seen[s.System] = true
			names = append(names, s.System)
		}
	}
	return append(names, extraSystems(r)...)
}

// cell is one table cell.
type cell struct {
	Text  string
	Class string
	Title string
	Best  bool
}

// metricTable is section 2: one row per system.
type metricTable struct {
	Columns []header
	Rows    []metricRow
}

type header struct {
	Label string
	Title string
}

type metricRow struct {
	System string
	Color  string
	Cells  []cell
}

// better tells which way a column improves.
type better int

const (
	unranked better = iota
	higher
	lower
)

// metricColumn is one column of the metric table.
type metricColumn struct {
	label    string
	title    string
	decimals int
	better   better
	// noneBelowZero marks a column where a negative value means "none" (fresh days).
	noneBelowZero bool
	value         func(eval.Summary) float64
}

var metricColumns = []metricColumn{
	{label: "nDCG@10", title: "mean nDCG@10 over the judged questions; higher is better",
		decimals: 3, better: higher, value: func(s eval.Summary) float64 { return s.NDCG10 }},
	{label: "Recall@10", title: "mean share of the relevant documents found in the top 10; higher is better",
		decimals: 3, better: higher, value: func(s eval.Summary) float64 { return s.Recall10 }},
	{label: "Recall@50", title: "mean share of the relevant documents found in the top 50; higher is better",
		decimals: 3, better: higher, value: func(s eval.Summary) float64 { return s.Recall50 }},
	{label: "MRR", title: "mean reciprocal rank of the first grade-2 document, over the questions that have one; higher is better",
		decimals: 3, better: higher, value: func(s eval.Summary) float64 { return s.MRR }},
	{label: "P@10", title: "mean share of relevant documents among the top 10; higher is better",
		decimals: 3, better: higher, value: func(s eval.Summary) float64 { return s.P10 }},
	{label: "leakage@10", title: "mean share of the top 10 published after the question's as-of anchor; must be 0, lower is better",
		decimals: 3, better: lower, value: func(s eval.Summary) float64 { return s.Leakage10 }},
	{label: "fresh days (median)", title: "median age in days, at the anchor, of the freshest top-10 result; lower is fresher; — when no result is dated",
		decimals: 1, better: lower, noneBelowZero: true, value: func(s eval.Summary) float64 { return s.FreshDaysMedian }},
	{label: "latency p50 (ms)", title: "median query latency in milliseconds; lower is better",
		decimals: 1, better: lower, value: func(s eval.Summary) float64 { return s.LatencyMSP50 }},
	{label: "latency p95 (ms)", title: "95th percentile query latency in milliseconds; lower is better",
		decimals: 1, better: lower, value: func(s eval.Summary) float64 { return s.LatencyMSP95 }},
	{label: "questions", title: "judged questions scored; questions without a relevant judged document are skipped",
		decimals: 0, better: unranked, value: func(s eval.Summary) float64 { return float64(s.Questions) }},
}

// leakageTitle explains a flagged leakage cell.
const leakageTitle = "Leakage: results published after the question's as-of anchor were retrieved. A correct as-of system scores 0."

func buildMetricTable(systems []eval.Summary, colors map[string]string) *metricTable {
	if len(systems) == 0 {
		return nil
	}
	t := &metricTable{Rows: make([]metricRow, len(systems))}
	for _, c := range metricColumns {
		t.Columns = append(t.Columns, header{Label: c.label, Title: c.title})
	}
	for i, s := range systems {
		t.Rows[i] = metricRow{System: s.System, Color: colors[s.System], Cells: make([]cell, len(metricColumns))}
	}
	for j, c := range metricColumns {
		vals := make([]float64, len(systems))
		ok := make([]bool, len(systems))
		for i, s := range systems {
			vals[i] = c.value(s)
			ok[i] = finite(vals[i]) && !(c.noneBelowZero && vals[i] < 0)
		}
		best := bestMask(vals, ok, c.decimals, c.better)
		for i, s := range systems {
			cl := cell{Text: "—", Class: "num", Best: best[i]}
			if ok[i] {
				cl.Text = formatFixed(vals[i], c.decimals)
			}
			switch c.label {
			case "MRR":
				cl.Title = fmt.Sprintf("over %d questions with a grade-2 document", s.MRRQuestions)
			case "questions":
				cl.Title = fmt.Sprintf("%d skipped (no relevant judged document)", s.Skipped)
			case "leakage@10":
				if s.Leakage10 > 0 || s.LeakedQuestions > 0 {
					cl.Class = "num warn"
					cl.Text = "⚠ " + cl.Text
					cl.Title = fmt.Sprintf("%s leakage@10 = %s; %d questions retrieved a later document anywhere in the list.",
						leakageTitle, formatFixed(s.Leakage10, 3), s.LeakedQuestions)
				}
			}
			t.Rows[i].Cells[j] = cl
		}
	}
	return t
}

// bestMask marks the values (among those ok) that are best once rounded to decimals, so
// that values printed alike are marked alike. It marks none when the column is unranked or
// when all ok values print alike: bold then would tell nothing.
func bestMask(vals []float64, ok []bool, decimals int, b better) []bool {
	mask := make([]bool, len(vals))
	if b == unranked {
		return mask
	}
	scale := math.Pow(10, float64(decimals))
	keys := make([]float64, len(vals))
	var best float64
	seen, distinct := false, false
	for i, v := range vals {
		if !ok[i] {
			continue
		}
		keys[i] = math.Round(v * scale)
		switch {
		case !seen:
			best, seen = keys[i], true
		case keys[i] != best:
			distinct = true
			if (b == higher) == (keys[i] > best) {
				best = keys[i]
			}
		}
	}
	if !distinct {
		return mask
	}
	for i := range vals {
		mask[i] = ok[i] && keys[i] == best
	}
	return mask
}

// barChart is one chart of section 3: a horizontal bar per system on a 0..1 axis.
type barChart struct {
	ID      string
	Title   string
	Desc    string
	Width   int
	Height  int
	PlotX0  string
	PlotX1  string
	PlotTop string
	AxisY   string
	TickY   string
	Ticks   []tick
	Bars    []hbar
}

type tick struct {
	X     string
	Y     string
	Label string
}

type hbar struct {
	Label  string
	Title  string
	Value  string
	Class  string
	LabelX string
	Y      string
	H      string
	W      string
	TextY  string
	ValueX string
}

// barMetric is one metric drawn in section 3.
type barMetric struct {
	id, title string
	warn      bool // a value > 0 is a fault (leakage)
	value     func(eval.Summary) float64
}

var barMetrics = []barMetric{
	{id: "chart-ndcg10", title: "nDCG@10", value: func(s eval.Summary) float64 { return s.NDCG10 }},
	{id: "chart-recall10", title: "Recall@10", value: func(s eval.Summary) float64 { return s.Recall10 }},
	{id: "chart-mrr", title: "MRR", value: func(s eval.Summary) float64 { return s.MRR }},
	{id: "chart-leakage10", title: "leakage@10 (must be 0)", warn: true, value: func(s eval.Summary) float64 { return s.Leakage10 }},
}

// Bar chart geometry, in SVG user units.
const (
	barWidth    = 640
	barPlotX0   = 180.0
	barPlotW    = 380.0
	barTop      = 8.0
	barStep     = 26.0
	barHeight   = 18.0
	barAxisPad  = 4.0
	barTickPad  = 14.0
	barBottom   = 22.0
	barLabelGap = 8.0
)

func buildBarCharts(systems []eval.Summary, colors map[string]string) []barChart {
	if len(systems) == 0 {
		return nil
	}
	axisY := barTop + float64(len(systems))*barStep + barAxisPad
	charts := make([]barChart, 0, len(barMetrics))
	for _, m := range barMetrics {
		c := barChart{
			ID:      m.id,
			Title:   m.title,
			Width:   barWidth,
			Height:  int(math.Ceil(axisY + barBottom)),
			PlotX0:  render.Coord(barPlotX0),
			PlotX1:  render.Coord(barPlotX0 + barPlotW),
			PlotTop: render.Coord(barTop - 4),
			AxisY:   render.Coord(axisY),
			TickY:   render.Coord(axisY + barTickPad),
		}
		for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
			c.Ticks = append(c.Ticks, tick{X: render.Coord(barPlotX0 + t*barPlotW), Label: strconv.FormatFloat(t, 'f', -1, 64)})
		}
		desc := make([]string, 0, len(systems))
		for i, s := range systems {
			v := m.value(s)
			text := "—"
			if finite(v) {
				text = formatFixed(v, 3)
			}
			if m.warn && v > 0 {
				text = "⚠ " + text
			}
			w := clamp01(v) * barPlotW
			y := barTop + float64(i)*barStep
			c.Bars = append(c.Bars, hbar{
				Label:  render.Label(s.System, maxLabelRunes),
				Title:  s.System + ": " + text,
				Value:  text,
				Class:  colors[s.System],
				LabelX: render.Coord(barPlotX0 - barLabelGap),
				Y:      render.Coord(y),
				H:      render.Coord(barHeight),
				W:      render.Coord(w),
				TextY:  render.Coord(y + barHeight/2 + 4),
				ValueX: render.Coord(barPlotX0 + w + 4),
			})
			desc = append(desc, s.System+" "+text)
		}
		c.Desc = m.title + " by system, axis 0 to 1: " + strings.Join(desc, ", ")
		charts = append(charts, c)
	}
	return charts
}

// columnChart is section 4: the corpus's documents per month.
type columnChart struct {
	Caption  string
	Desc     string
	Width    int
	Height   int
	PlotX0   string
	PlotX1   string
	PlotTop  string
	Baseline string
	YLabelX  string
	XLabelY  string
	YTicks   []tick
	Columns  []vbar
	XLabels  []tick
}

type vbar struct {
	X     string
	Y     string
	W     string
	H     string
	Title string
}

// Month chart geometry, in SVG user units.
const (
	monthWidth    = 720
	monthHeight   = 236
	monthPlotX0   = 56.0
	monthPlotX1   = 712.0
	monthPlotTop  = 12.0
	monthBaseline = 204.0
)

func buildMonthChart(in []MonthCount) *columnChart {
	months := monthSeries(in)
	if len(months) == 0 {
		return nil
	}
	total, peak := 0, 0
	for i, m := range months {
		total += m.Docs
		if m.Docs > months[peak].Docs {
			peak = i
		}
	}
	top, step := niceTop(months[peak].Docs)
	c := &columnChart{
		Width:    monthWidth,
		Height:   monthHeight,
		PlotX0:   render.Coord(monthPlotX0),
		PlotX1:   render.Coord(monthPlotX1),
		PlotTop:  render.Coord(monthPlotTop),
		Baseline: render.Coord(monthBaseline),
		YLabelX:  render.Coord(monthPlotX0 - 6),
		XLabelY:  render.Coord(monthBaseline + 16),
	}
	plotH := monthBaseline - monthPlotTop
	for v := 0; v <= top; v += step {
		y := monthBaseline - float64(v)/float64(top)*plotH
		c.YTicks = append(c.YTicks, tick{Y: render.Coord(y), Label: compactInt(v)})
	}
	slot := (monthPlotX1 - monthPlotX0) / float64(len(months))
	every := (len(months) + maxMonthLabels - 1) / maxMonthLabels
	for i, m := range months {
		h := float64(max(m.Docs, 0)) / float64(top) * plotH
		x := monthPlotX0 + float64(i)*slot
		c.Columns = append(c.Columns, vbar{
			X:     render.Coord(x + slot*0.1),
			Y:     render.Coord(monthBaseline - h),
			W:     render.Coord(slot * 0.8),
			H:     render.Coord(h),
			Title: m.Month + ": " + strconv.Itoa(m.Docs) + " documents",
		})
		if i%every == 0 {
			c.XLabels = append(c.XLabels, tick{X: render.Coord(x + slot/2), Label: m.Month})
		}
	}
	first, last := months[0].Month, months[len(months)-1].Month
	c.Caption = fmt.Sprintf("%s documents over %d months, %s to %s; busiest month %s with %s.",
		groupInt(total), len(months), first, last, months[peak].Month, groupInt(months[peak].Docs))
	c.Desc = "Column chart of documents per month, " + first + " to " + last +
		"; the busiest month is " + months[peak].Month + " with " + strconv.Itoa(months[peak].Docs) + " documents."
	return c
}

// monthSeries sums in by month and sorts it. When every month parses as "2006-01" and the
// range is not absurdly long, missing months are filled in with 0 so the x axis is time.
func monthSeries(in []MonthCount) []MonthCount {
	if len(in) == 0 {
		return nil
	}
	sum := make(map[string]int, len(in))
	var keys []string
	for _, m := range in {
		if _, ok := sum[m.Month]; !ok {
			keys = append(keys, m.Month)
		}
		sum[m.Month] += m.Docs
	}
	slices.Sort(keys)
	out := make([]MonthCount, 0, len(keys))
	for _, k := range keys {
		out = append(out, MonthCount{Month: k, Docs: sum[k]})
	}
	first, err1 := time.Parse("2006-01", keys[0])
	last, err2 := time.Parse("2006-01", keys[len(keys)-1])
	if err1 != nil || err2 != nil {
		return out
	}
	span := (last.Year()-first.Year())*12 + int(last.Month()-first.Month()) + 1
	if span == len(keys) || span > maxFilledMonths {
		return out
	}
	for _, k := range keys {
		if _, err := time.Parse("2006-01", k); err != nil {
			return out
		}
	}
	filled := make([]MonthCount, 0, span)
	for t := first; !t.After(last); t = t.AddDate(0, 1, 0) {
		k := t.Format("2006-01")
		filled = append(filled, MonthCount{Month: k, Docs: sum[k]})
	}
	return filled
}

// niceTop is an axis top ≥ peak and a tick step of 1, 2 or 5 × 10^k giving at most 5
// intervals.
func niceTop(peak int) (top, step int) {
	if peak <= 0 {
		return 1, 1
	}
	raw := float64(peak) / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var f float64
	switch r := raw / mag; {
	case r <= 1:
		f = 1
	case r <= 2:
		f = 2
	case r <= 5:
		f = 5
	default:
		f = 10
	}
	step = max(int(math.Round(f*mag)), 1)
	return (peak + step - 1) / step * step, step
}

// ageBucket is one bar of the age histogram: ages below upper and at or above the previous
// bucket's upper.
type ageBucket struct {
	label string
	upper float64
}

var ageBuckets = []ageBucket{
	{"0", 1}, {"1", 2}, {"2–3", 4}, {"4–7", 8}, {"8–14", 15}, {"15–30", 31},
	{"31–90", 91}, {"91–365", 366}, {">365", math.Inf(1)},
}

// noneLabel is the last bucket: no dated top-10 result (FreshDays −1).
const noneLabel = "none"

// bucketOf is the index of the age bucket of days; len(ageBuckets) for none.
func bucketOf(days float64) int {
	if !(days >= 0) { // negative or NaN
		return len(ageBuckets)
	}
	for i, b := range ageBuckets {
		if days < b.upper {
			return i
		}
	}
	return len(ageBuckets) - 1
}

// agePhrase describes the questions of the bucket labelled label, for a tooltip.
func agePhrase(label string) string {
	switch label {
	case noneLabel:
		return "with no dated result in the top 10"
	case "1":
		return "with the freshest top-10 result 1 day old"
	default:
		return "with the freshest top-10 result " + label + " days old"
	}
}

// ageChart is section 5: small multiples, one histogram per system.
type ageChart struct {
	Desc   string
	Width  int
	Height int
	Panels []agePanel
}

type agePanel struct {
	Title     string
	Label     string
	Class     string
	Transform string
	TitleY    string
	LabelY    string
	Baseline  string
	PanelW    string
	Bars      []ageBar
}

type ageBar struct {
	X      string
	Y      string
	W      string
	H      string
	MidX   string
	CountY string
	Count  string
	Bucket string
	Title  string
}

// Age chart geometry, in SVG user units.
const (
	agePanelW     = 350.0
	agePanelStepX = 360.0
	agePanelStepY = 156.0
	ageTitleY     = 14.0
	agePlotTop    = 34.0
	agePlotH      = 90.0
	ageSlot       = 34.0
	ageBarW       = 26.0
	ageLabelY     = agePlotTop + agePlotH + 14
	ageColumns    = 2
)

func buildAgeChart(rows []schemas.EvalRow, systems []string, colors map[string]string) *ageChart {
	if len(rows) == 0 {
		return nil
	}
	nb := len(ageBuckets) + 1
	counts := make(map[string][]int, len(systems))
	for _, s := range systems {
		counts[s] = make([]int, nb)
	}
	peak := 0
	for _, row := range rows {
		c := counts[row.System]
		b := bucketOf(row.FreshDays)
		c[b]++
		peak = max(peak, c[b])
	}
	cols := min(len(systems), ageColumns)
	nrows := (len(systems) + ageColumns - 1) / ageColumns
	a := &ageChart{
		Width:  int(agePanelStepX * float64(cols)),
		Height: int(agePanelStepY * float64(nrows)),
	}
	desc := make([]string, 0, len(systems))
	for p, s := range systems {
		c := counts[s]
		total := 0
		for _, n := range c {
			total += n
		}
		panel := agePanel{
			Title:     s,
			Label:     render.Label(s, maxLabelRunes) + " (" + strconv.Itoa(total) + " questions)",
			Class:     colors[s],
			Transform: "translate(" + render.Coord(float64(p%ageColumns)*agePanelStepX) + "," + render.Coord(float64(p/ageColumns)*agePanelStepY) + ")",
			TitleY:    render.Coord(ageTitleY),
			LabelY:    render.Coord(ageLabelY),
			Baseline:  render.Coord(agePlotTop + agePlotH),
			PanelW:    render.Coord(agePanelW),
		}
		parts := make([]string, 0, nb)
		for b, n := range c {
			label := noneLabel
			if b < len(ageBuckets) {
				label = ageBuckets[b].label
			}
			h := float64(n) / float64(peak) * agePlotH
			x := 5 + float64(b)*ageSlot + (ageSlot-ageBarW)/2
			panel.Bars = append(panel.Bars, ageBar{
				X:      render.Coord(x),
				Y:      render.Coord(agePlotTop + agePlotH - h),
				W:      render.Coord(ageBarW),
				H:      render.Coord(h),
				MidX:   render.Coord(x + ageBarW/2),
				CountY: render.Coord(agePlotTop + agePlotH - h - 3),
				Count:  strconv.Itoa(n),
				Bucket: label,
				Title:  fmt.Sprintf("%s: %d of %d questions (%s%%) %s", s, n, total, formatFixed(percent(n, total), 0), agePhrase(label)),
			})
			parts = append(parts, label+": "+strconv.Itoa(n))
		}
		a.Panels = append(a.Panels, panel)
		desc = append(desc, s+" — "+strings.Join(parts, ", "))
	}
	a.Desc = "Histograms of the age in days of the freshest top-10 result, per system. " + strings.Join(desc, "; ")
	return a
}

// questionTable is section 6: nDCG@10 per question and system, widest spread first.
type questionTable struct {
	Systems []string
	Rows    []questionRow
	Total   int
	Shown   int
}

type questionRow struct {
	ID     string
	AsOf   string
	Spread string
	Cells  []cell
}

// question gathers the rows of one question.
type question struct {
	id     string
	asOf   time.Time
	rows   map[string]schemas.EvalRow
	spread float64 // −1 when fewer than two systems have a valid score
}

func buildQuestionTable(rows []schemas.EvalRow, systems []string) *questionTable {
	if len(rows) == 0 {
		return nil
	}
	byID := make(map[string]*question)
	var qs []*question
	for _, row := range rows {
		q := byID[row.QuestionID]
		if q == nil {
			q = &question{id: row.QuestionID, asOf: row.AsOf, rows: make(map[string]schemas.EvalRow)}
			byID[row.QuestionID] = q
			qs = append(qs, q)
		}
		if !row.AsOf.IsZero() && (q.asOf.IsZero() || row.AsOf.Before(q.asOf)) {
			q.asOf = row.AsOf
		}
		if _, dup := q.rows[row.System]; !dup {
			q.rows[row.System] = row
		}
	}
	for _, q := range qs {
		q.spread = -1
		lo, hi, n := math.Inf(1), math.Inf(-1), 0
		for _, s := range systems {
			if row, ok := q.rows[s]; ok && row.Valid && finite(row.NDCG10) {
				lo, hi, n = min(lo, row.NDCG10), max(hi, row.NDCG10), n+1
			}
		}
		if n >= 2 {
			q.spread = hi - lo
		}
	}
	slices.SortFunc(qs, func(a, b *question) int {
		if a.spread != b.spread {
			if a.spread > b.spread {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	t := &questionTable{Systems: systems, Total: len(qs), Shown: min(len(qs), maxQuestionRows)}
	for _, q := range qs[:t.Shown] {
		r := questionRow{ID: q.id, Spread: "—", Cells: make([]cell, len(systems))}
		if !q.asOf.IsZero() {
			r.AsOf = q.asOf.UTC().Format("2006-01-02")
		}
		if q.spread >= 0 {
			r.Spread = formatFixed(q.spread, 3)
		}
		vals := make([]float64, len(systems))
		ok := make([]bool, len(systems))
		for i, s := range systems {
			row, has := q.rows[s]
			switch {
			case !has:
				r.Cells[i] = cell{Text: "—", Class: "num muted", Title: "no row for this system"}
			case !row.Valid:
				r.Cells[i] = cell{Text: "n/a", Class: "num muted", Title: "no relevant judged document: not scored"}
			case !finite(row.NDCG10):
				r.Cells[i] = cell{Text: "—", Class: "num muted"}
			default:
				vals[i], ok[i] = row.NDCG10, true
				r.Cells[i] = cell{Text: formatFixed(row.NDCG10, 3), Class: "num"}
			}
		}
		for i, b := range bestMask(vals, ok, 3, higher) {
			r.Cells[i].Best = b
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clamp01 is v limited to [0, 1]; 0 for NaN.
func clamp01(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// percent is 100·n/total, 0 when total is 0.
func percent(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

// formatFixed formats v with decimals digits after the point; "—" for NaN or ±Inf.
func formatFixed(v float64, decimals int) string {
	if !finite(v) {
		return "—"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.000"
	}
	return s
}

// compactInt formats an axis value: 950, 12k, 1.5M.
func compactInt(n int) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	default:
		return strconv.Itoa(n)
	}
}

// groupInt formats n with thin spaces between groups of three digits: 12 345.
func groupInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(r)
	}
	return b.String()
}
