// Package sumeval measures written answers the way the Telegram temporal-RAG study measured
// its summaries (its Table 3), and checks their citations. It is pure: no I/O, no clock.
//
// An Answer is an anchor day, the numbered context blocks the summary was written from (each
// with its publication day and text) and the summary. Two formats are read:
//
//   - FormatStudy: the study's summaries, which exist only as text. They open with a header
//     section, "### 1) Запрос и актуальная дата", that repeats the query and the anchor date;
//     then a digest in prose and a timeline of "* YYYY-MM-DD — event" bullets. They carry no
//     citation markers: sources are named in prose ("согласно данным Риа Новости"), if at all.
//     Their context is the study's prompt text, "[n] date=YYYY-MM-DD channel(s)=… document=…"
//     blocks (ParseStudyContext).
//   - FormatAsof: asof's summaries (extractive, or an LLM brief), read from the schemas.Brief
//     itself, never from a rendering of it. Its claims are the claims a reader saw: those of
//     render.ViewOf, section by section (a claim shown twice counts twice), each with the date
//     it is shown with and the block numbers it cites. Its note and its not-enough line are not
//     claims.
//
// Date metrics (DateMetricsOf, the study's Table 3). The summary's dates are every day it
// states (Dates, all forms) outside its header: for the study, outside its header section,
// which repeats the anchor; for asof, the date each claim is shown with and the days its text
// states. Ages are whole days, anchor day − stated day; a day after the anchor (a forecast, a
// deadline) counts as a date but has no age. The study's own rules (StudyRules) read ISO dates
// only and drop every one equal to the anchor, wherever it is; with them the study's
// published figures reproduce from its file. (asof's claim dates are shown in ISO form, so
// they count under both rules.)
//
// Citation checks (CitationsOf). The study's summary body (header removed) is cut into
// claims: each bullet line ("- ", "* ", "• ") is one claim; any other line that is not a
// heading ("#…"), an italic note ("_…_") or a "- None." bullet is cut into sentences, and
// each sentence is one claim; [n] markers in a claim would be its citations. A claim is cited when it cites at least one block and every
// block it cites is one of the context; a citation naming no block is a bad citation. Every
// date a claim states is checked against its support: the blocks it cites, or — for a format
// without markers (the study), where nothing is cited — every block of the context. A date is
// supported when it is a support block's publication day or a day the block's text states
// (read with the block's day as anchor; a day without a year in the claim is also read as of
// the block's day, so "15 марта" matches whichever year both mean). An asof claim that cites
// nothing has no support, so every date in it is unsupported.
package sumeval

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// Format says how a summary is laid out and how it cites.
type Format string

// The formats read.
const (
	// FormatAsof is asof's summary, a schemas.Brief.
	FormatAsof Format = "asof"
	// FormatStudy is the study's summary: a header section, prose and a timeline, no markers.
	FormatStudy Format = "study"
)

// Block is one numbered context block.
type Block struct {
	// N is the block's number ([N] cites it).
	N int
	// Date is the block's publication day.
	Date time.Time
	// Text is what the block shows (title, snippet or document).
	Text string
	// DocID is the block's document (asof's blocks; empty for the study's) and Folded the
	// documents folded into it as near-duplicates: LeadOf credits the block with the best
	// grade among them.
	DocID  string
	Folded []string
}

// Answer is one summary with the context it was written from.
type Answer struct {
	Format Format
	Anchor time.Time
	Blocks []Block
	// Summary is the summary's text (FormatStudy).
	Summary string
	// Brief is the summary (FormatAsof); nil when the answer has none.
	Brief *schemas.Brief
}

// Text is the summary as its reader saw it, for a grader to read: a study's text, or asof's
// Brief rendered as Markdown (render.Markdown, without the list of sources: the grader has
// the context).
func (a Answer) Text() string {
	if a.Format == FormatAsof {
		if a.Brief == nil {
			return ""
		}
		return render.Markdown(*a.Brief, nil)
	}
	return a.Summary
}

// Rules choose how summary dates are read.
type Rules struct {
	// ISOOnly reads YYYY-MM-DD dates only.
	ISOOnly bool
	// DropAnchorDates drops every date equal to the anchor day instead of the header only.
	DropAnchorDates bool
}

// DefaultRules read every date form and drop the header that repeats the anchor.
func DefaultRules() Rules { return Rules{} }

// StudyRules are the study's: ISO dates only, every date equal to the anchor dropped.
func StudyRules() Rules { return Rules{ISOOnly: true, DropAnchorDates: true} }

// DateMetrics are one summary's Table 3 figures. A figure that cannot be computed is NaN.
type DateMetrics struct {
	// Dates counts the dates the summary states (repeats included).
	Dates int
	// MinAgeContext is the age in days of the freshest block dated on or before the anchor.
	MinAgeContext float64
	// MinAgeSummary is the age of the freshest summary date on or before the anchor.
	MinAgeSummary float64
	// Gap is MinAgeSummary − MinAgeContext: how much fresher the context was than what the
	// summary says.
	Gap float64
	// Within7 and Within30 are the shares of summary dates on or before the anchor that are
	// at most 7 and 30 days old.
	Within7, Within30 float64
}

// HasDates reports whether the summary states a date.
func (m DateMetrics) HasDates() bool { return m.Dates > 0 }

// DateMetricsOf computes an answer's Table 3 figures under rules.
func DateMetricsOf(a Answer, rules Rules) DateMetrics {
	anchor := asofday.Start(a.Anchor)
	m := DateMetrics{MinAgeContext: math.NaN(), MinAgeSummary: math.NaN(), Gap: math.NaN(), Within7: math.NaN(), Within30: math.NaN()}
	for _, b := range a.Blocks {
		if age := ageDays(anchor, b.Date); age >= 0 && !(age >= m.MinAgeContext) {
			m.MinAgeContext = age
		}
	}
	var ages []float64
	for _, d := range statedDates(a, anchor, rules) {
		if rules.DropAnchorDates && d.Day.Equal(anchor) {
			continue
		}
		m.Dates++
		if age := ageDays(anchor, d.Day); age >= 0 {
			ages = append(ages, age)
		}
	}
	if len(ages) > 0 {
		var in7, in30 int
		for _, age := range ages {
			if !(age >= m.MinAgeSummary) {
				m.MinAgeSummary = age
			}
			if age <= 7 {
				in7++
			}
			if age <= 30 {
				in30++
			}
		}
		m.Within7, m.Within30 = float64(in7)/float64(len(ages)), float64(in30)/float64(len(ages))
		m.Gap = m.MinAgeSummary - m.MinAgeContext // NaN when the context has no age
	}
	return m
}

// ageDays is anchor − day in whole UTC days.
func ageDays(anchor, day time.Time) float64 {
	return float64(asofday.Start(anchor).Sub(asofday.Start(day)).Hours() / 24)
}

// statedDates are the dates a's summary states outside its header, under rules (see the
// package comment).
func statedDates(a Answer, anchor time.Time, rules Rules) []Date {
	if a.Format != FormatAsof {
		body := a.Summary
		if !rules.DropAnchorDates {
			body = Body(a.Summary)
		}
		return Dates(body, anchor, rules.ISOOnly)
	}
	var out []Date
	for _, c := range Claims(a) {
		out = append(out, claimDates(c, anchor, rules.ISOOnly)...)
	}
	return out
}

// claimDates are the date c is shown with, if any, then the dates its text states.
func claimDates(c Claim, anchor time.Time, isoOnly bool) []Date {
	var out []Date
	if !c.Date.IsZero() {
		day := asofday.Start(c.Date)
		out = append(out, Date{Day: day, Text: day.Format(time.DateOnly)})
	}
	return append(out, Dates(c.Text, anchor, isoOnly)...)
}

// studyHeader is the heading of the study's first section (query and anchor date).
const studyHeader = "### 1) Запрос и актуальная дата"

// Body is a study summary without the header that repeats the anchor: its first section, when
// it is the study's "### 1) Запрос и актуальная дата" (up to the next "###" heading).
func Body(summary string) string {
	s := strings.TrimLeft(summary, " \t\r\n")
	if !strings.HasPrefix(s, studyHeader) {
		return summary
	}
	rest := s[len(studyHeader):]
	if i := strings.Index(rest, "\n###"); i >= 0 {
		return rest[i+1:]
	}
	return ""
}

// Claim is one checked statement of a summary.
type Claim struct {
	// Date is the day it is shown with (an asof claim), zero when the date, if any, is in
	// Text (a study claim).
	Date time.Time
	Text string
	// Cites are the block numbers it cites, in order.
	Cites []int
}

// citation matches one [n] or [n, m, …] marker.
var citation = regexp.MustCompile(`\[(\d+(?:\s*,\s*\d+)*)\]`)

// Claims are the claims of a's summary with their citations (see the package comment): for
// FormatAsof the claims of render.ViewOf(*a.Brief), for FormatStudy its body cut into claims.
func Claims(a Answer) []Claim {
	if a.Format == FormatAsof {
		if a.Brief == nil {
			return nil
		}
		var out []Claim
		for _, c := range render.ViewOf(*a.Brief).Claims() {
			out = append(out, Claim{Date: c.Date, Text: c.Text, Cites: c.Cites})
		}
		return out
	}
	var out []Claim
	add := func(text string) {
		text = strings.TrimSpace(text)
		if text == "" {
			return
		}
		c := Claim{Text: text}
		for _, m := range citation.FindAllStringSubmatch(text, -1) {
			for p := range strings.SplitSeq(m[1], ",") {
				n, _ := strconv.Atoi(strings.TrimSpace(p))
				c.Cites = append(c.Cites, n)
			}
		}
		out = append(out, c)
	}
	for line := range strings.SplitSeq(Body(a.Summary), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "", strings.HasPrefix(l, "#"), l == "- None.",
			len(l) > 1 && strings.HasPrefix(l, "_") && strings.HasSuffix(l, "_"):
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "• "):
			_, rest, _ := strings.Cut(l, " ")
			add(rest)
		default:
			for _, s := range summarize.Sentences(l) {
				add(s)
			}
		}
	}
	return out
}

// CitationMetrics are one summary's citation checks.
type CitationMetrics struct {
	// Claims counts claims; Cited those with at least one marker, every one naming a block.
	Claims, Cited int
	// BadCitations counts markers that name no block.
	BadCitations int
	// DatesChecked counts the dates stated in claims; DatesUnsupported those absent from the
	// claim's support (its cited blocks, or the whole context for an unmarked format).
	DatesChecked, DatesUnsupported int
	// WholeContext is true when the support was the whole context (the format has no markers).
	WholeContext bool
}

// CitationsOf checks an answer's citations and the dates its claims state.
func CitationsOf(a Answer) CitationMetrics {
	anchor := asofday.Start(a.Anchor)
	byN := make(map[int]Block, len(a.Blocks))
	for _, b := range a.Blocks {
		byN[b.N] = b
	}
	stated := make(map[int]map[time.Time]bool, len(a.Blocks)) // block N → days it states
	days := func(b Block) map[time.Time]bool {
		if s, ok := stated[b.N]; ok {
			return s
		}
		s := map[time.Time]bool{asofday.Start(b.Date): true}
		for _, d := range Dates(b.Text, b.Date, false) {
			s[d.Day] = true
		}
		stated[b.N] = s
		return s
	}
	m := CitationMetrics{WholeContext: a.Format == FormatStudy}
	for _, c := range Claims(a) {
		m.Claims++
		ok := len(c.Cites) > 0
		var support []Block
		for _, n := range c.Cites {
			b, found := byN[n]
			if !found {
				m.BadCitations++
				ok = false
				continue
			}
			support = append(support, b)
		}
		if ok {
			m.Cited++
		}
		if m.WholeContext {
			support = a.Blocks
		}
		for _, d := range claimDates(Claim{Date: c.Date, Text: citation.ReplaceAllString(c.Text, "")}, anchor, false) {
			m.DatesChecked++
			found := false
			for _, b := range support {
				if days(b)[d.Day] || days(b)[reread(d, b.Date)] {
					found = true
					break
				}
			}
			if !found {
				m.DatesUnsupported++
			}
		}
	}
	return m
}

// reread is d read as of day instead of the anchor: a day without a year ("15 марта") that a
// block dated 2025-03-01 states means 2024-03-15 there, and 2025-03-15 in a summary written on
// 2025-09-04; both name the same statement. A date with a year is itself.
func reread(d Date, day time.Time) time.Time {
	if ds := Dates(d.Text, day, false); len(ds) == 1 {
		return ds[0].Day
	}
	return d.Day
}

// studyBlock matches the head line of one block of the study's context.
var studyBlock = regexp.MustCompile(`(?m)^\[(\d+)\] date=(\d{4}-\d{2}-\d{2}) channel(?:\(s\))?=`)

// ParseStudyContext reads the blocks of the study's prompt context: each starts at a line
// "[n] date=YYYY-MM-DD channel=…" (or "channel(s)=…") and runs to the next; its Text is the
// rest of that line and the block's lines after it (" document=…"). A block with an
// unreadable date is skipped.
func ParseStudyContext(ctx string) []Block {
	idx := studyBlock.FindAllStringSubmatchIndex(ctx, -1)
	var out []Block
	for i, m := range idx {
		end := len(ctx)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		n, _ := strconv.Atoi(ctx[m[2]:m[3]])
		day, err := time.Parse(time.DateOnly, ctx[m[4]:m[5]])
		if err != nil {
			continue
		}
		out = append(out, Block{N: n, Date: day, Text: strings.TrimSpace(ctx[m[1]:end])})
	}
	return out
}

// StudyAnswer is one row of the study's file as an Answer (FormatStudy); a missing summary is
// empty.
func StudyAnswer(r schemas.StudyAnswer) Answer {
	a := Answer{Format: FormatStudy, Anchor: r.AnchorDate, Blocks: ParseStudyContext(r.Context)}
	if r.Summary != nil {
		a.Summary = *r.Summary
	}
	return a
}

// StudyRubric is the study judge's scores of one row.
func StudyRubric(r schemas.StudyAnswer) *Rubric {
	return &Rubric{Relevance: r.Relevance, Groundedness: r.Groundedness, FactsNumbers: r.FactsNumbers,
		DatesTimeline: r.DatesTimeline, Recency: r.Recency}
}
