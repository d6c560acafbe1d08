// Package render is the one place where a summary becomes something to read. A summary is a
// schemas.Brief, whoever wrote it (the extractive summarizer or an LLM); every output is
// rendered from it here, and from nothing else:
//
//   - Markdown, for terminals, files and API clients: `asof ask`, each topic of digest.md, and
//     the Answer's summary field that the example clients print; AnswerMarkdown puts a whole
//     answer around it (reading, results table, counts) for `asof ask` and `asof answers get`;
//   - HTML, a fragment of the digest page (internal/digest puts it in a topic's card);
//   - JSON is the Brief itself (its tags are in package schemas): answer.json, `asof ask
//     --json`, digest.json.
//
// What is shown, in which order, under which heading, is decided once, by ViewOf, and both
// renderers draw from that view; the summaries evaluation (internal/sumeval) scores the claims
// of the same view, so it measures what a reader saw. A new summary format touches ViewOf and,
// for new markup, the two renderers in this package.
//
// The view of a brief, in order:
//
//   - its Note, when it has one (how it was made: a weak match, a replaced LLM summary);
//   - "Not enough information in the documents up to YYYY-MM-DD to answer." when NotEnough;
//     a NotEnough brief with no claims shows nothing more;
//   - an evolution brief (one with Then or Now claims): "Then", oldest first, and "Now",
//     freshest first;
//   - any other: "New in the last N days" (the writer's first new claim, its lead, then the
//     others freshest first; "Nothing new in the last N days." when empty; absent when the
//     brief has no new window); when nothing is new, "Latest": one claim, the freshest earlier
//     claim (the writer's first of that day; else the freshest of the timeline), so the reader sees the latest answer
//     first, when the timeline holds more than that one; then "Timeline" (oldest first). The Earlier claims are in the timeline already and
//     are not shown again; a brief with an empty timeline shows its New and Earlier claims
//     there, so no claim goes unseen;
//   - no claim is shown twice: one that repeats a claim shown before it (the same text, or on
//     the same day most of the same terms, textnorm.RepeatsTitle) is left out, so the new
//     claims an extractive timeline also holds are not listed again, and a section left with
//     nothing that was not shown above is left out;
//   - the sources: the blocks the claims cite, numbered 1..n in the order the view first cites
//     them (Numbering): the numbers a reader sees are those, not the context's, so they never
//     skip.
//
// Each section other than "new" is put in its order by date (a stable sort: the writers' order
// stands among claims of one date), whatever order a stored brief has; a claim's text is put on one line.
// Output is deterministic: the same brief and blocks give the same bytes.
//
// Defects lists what a reader must never see in a view (a sentence twice, boilerplate, a source
// named by a bare id, sentences glued at a join); the tests of the written answers on real
// channel text (internal/answer) and on the demo (cmd/asof) hold every answer to none.
package render

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// LegacyNewDays is the "new" window of a brief stored before Brief.NewDays was recorded (it
// has NewDays 0 and New claims): the summarizer's default then and now.
const LegacyNewDays = 7

// Section kinds, in the order a view may show them.
const (
	SectionNew      = "new"
	SectionLatest   = "latest"
	SectionTimeline = "timeline"
	SectionThen     = "then"
	SectionNow      = "now"
)

// None is what an empty section other than "new" says.
const None = "None."

// Section is one titled list of claims.
type Section struct {
	// Kind is one of the Section… constants.
	Kind string
	// Title is the heading, e.g. "New in the last 7 days".
	Title string
	// Claims are the section's claims, in the brief's order.
	Claims []schemas.Claim
	// Empty is what the section says when it has no claims.
	Empty string
}

// View is a brief as every output shows it.
type View struct {
	// Note is the brief's note on one line, or "".
	Note string
	// NotEnough is the not-enough line, or "".
	NotEnough string
	// Sections are the sections shown, in order.
	Sections []Section
}

// Claims are the claims of the view's sections, in order: every claim a reader sees, once per
// time it is shown.
func (v View) Claims() []schemas.Claim {
	var out []schemas.Claim
	for _, s := range v.Sections {
		out = append(out, s.Claims...)
	}
	return out
}

// ViewOf is what every output shows of b (see the package comment).
func ViewOf(b schemas.Brief) View {
	v := View{Note: OneLine(b.Note)}
	if b.NotEnough {
		v.NotEnough = NotEnoughLine(b.AsOf)
	}
	evolution := len(b.Then)+len(b.Now) > 0
	if b.NotEnough && !evolution && len(b.New)+len(b.Earlier)+len(b.Timeline) == 0 {
		return v
	}
	if evolution {
		v.Sections = []Section{
			{Kind: SectionThen, Title: "Then", Claims: sorted(b.Then, oldestFirst), Empty: None},
			{Kind: SectionNow, Title: "Now", Claims: sorted(b.Now, freshestFirst), Empty: None},
		}
		return v.once()
	}
	days := newDays(b)
	fresh := leadFirst(b.New)
	if days > 0 {
		v.Sections = append(v.Sections, Section{Kind: SectionNew, Title: "New in the " + lastDays(days), Claims: fresh,
			Empty: "Nothing new in the " + lastDays(days) + "."})
	}
	timeline := b.Timeline
	if len(timeline) == 0 { // a brief that only split its claims still has a timeline
		timeline = slices.Concat(b.Earlier, b.New)
	}
	timeline = sorted(timeline, oldestFirst)
	if len(fresh) == 0 && len(timeline) > 1 {
		// Nothing new: the latest claim leads, so a reader sees the freshest answer first, not
		// the oldest line of the timeline.
		latest := timeline[len(timeline)-1]
		if len(b.Earlier) > 0 {
			latest = sorted(b.Earlier, freshestFirst)[0]
		}
		v.Sections = append(v.Sections, Section{Kind: SectionLatest, Title: "Latest", Claims: []schemas.Claim{latest}, Empty: None})
	}
	v.Sections = append(v.Sections, Section{Kind: SectionTimeline, Title: "Timeline", Claims: timeline, Empty: None})
	return v.once()
}

// leadFirst is the claims of a "new" section as shown: the writer's first claim (its lead: the
// extractive summarizer puts its most relevant fresh sentence there), then the others freshest
// first. A brief whose new claims are freshest first shows them in that order.
func leadFirst(cs []schemas.Claim) []schemas.Claim {
	if len(cs) == 0 {
		return nil
	}
	return slices.Concat(cs[:1], sorted(cs[1:], freshestFirst))
}

// once drops every claim that repeats one shown before it, in view order (sections in order,
// claims in order): no sentence is shown twice, whether a writer listed it in two sections
// (the extractive timeline holds the new claims too) or two sources said it (repeats). A
// section all of whose claims were shown above is left out.
func (v View) once() View {
	var shown []schemas.Claim
	sections := v.Sections[:0]
	for _, s := range v.Sections {
		var keep []schemas.Claim
		for _, c := range s.Claims {
			if slices.ContainsFunc(shown, func(d schemas.Claim) bool { return repeats(c, d) }) {
				continue
			}
			shown = append(shown, c)
			keep = append(keep, c)
		}
		if len(s.Claims) > 0 && len(keep) == 0 {
			continue
		}
		s.Claims = keep
		sections = append(sections, s)
	}
	v.Sections = sections
	return v
}

// repeats reports whether claim c says claim d again: the same text (case and spacing aside),
// or, on the same day, one holds most of the other's terms (textnorm.RepeatsTitle).
func repeats(c, d schemas.Claim) bool {
	a, b := strings.ToLower(OneLine(c.Text)), strings.ToLower(OneLine(d.Text))
	if a == b {
		return true
	}
	if Day(c.Date) != Day(d.Date) {
		return false
	}
	return textnorm.RepeatsTitle(a, b) || textnorm.RepeatsTitle(b, a)
}

// sorted is a copy of cs in order (a stable sort), or nil when cs is empty.
func sorted(cs []schemas.Claim, order func(x, y schemas.Claim) int) []schemas.Claim {
	if len(cs) == 0 {
		return nil
	}
	return slices.SortedStableFunc(slices.Values(cs), order)
}

func oldestFirst(x, y schemas.Claim) int   { return x.Date.Compare(y.Date) }
func freshestFirst(x, y schemas.Claim) int { return y.Date.Compare(x.Date) }

// newDays is b's "new" window, LegacyNewDays for a brief stored before it was recorded.
func newDays(b schemas.Brief) int {
	if b.NewDays == 0 && len(b.New) > 0 {
		return LegacyNewDays
	}
	return b.NewDays
}

// lastDays is "last day" or "last N days".
func lastDays(n int) string {
	if n == 1 {
		return "last day"
	}
	return "last " + strconv.Itoa(n) + " days"
}

// NotEnoughLine is the line of a brief that found no answer as of asOf's day; without a day
// (a brief stored before Brief.AsOf was recorded) it names none.
func NotEnoughLine(asOf time.Time) string {
	if asOf.IsZero() {
		return "Not enough information in the documents to answer."
	}
	return "Not enough information in the documents up to " + Day(asOf) + " to answer."
}

// Cites are the block numbers the claims shown of b cite (ViewOf: a repeat left out cites
// nothing), ascending, each once.
func Cites(b schemas.Brief) []int {
	var out []int
	for _, c := range ViewOf(b).Claims() {
		out = append(out, c.Cites...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Numbering maps the block numbers a view cites to the numbers a reader sees: 1..n in the
// order the view first cites them (section by section, claim by claim, a claim's cites in
// their order), so the summary and its Sources read [1], [2], [3] … without gaps, whatever
// blocks of the context the writer cited. A block the view does not cite keeps its number.
type Numbering map[int]int

// Of is the number block n is shown by.
func (m Numbering) Of(n int) int {
	if s, ok := m[n]; ok {
		return s
	}
	return n
}

// Shown are a claim's cites as shown: their numbers, ascending, each once.
func (m Numbering) Shown(cites []int) []int {
	out := make([]int, 0, len(cites))
	for _, n := range cites {
		out = append(out, m.Of(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NumberingOf is the numbering of b's view (ViewOf).
func NumberingOf(b schemas.Brief) Numbering { return ViewOf(b).numbering() }

func (v View) numbering() Numbering {
	m := Numbering{}
	for _, c := range v.Claims() {
		for _, n := range c.Cites {
			if _, ok := m[n]; !ok {
				m[n] = len(m) + 1
			}
		}
	}
	return m
}

// MarkShown sets each block's Shown to the number b's rendering cites it by (0 when b does
// not cite it), for the views that list the context beside the summary (the page at /).
func MarkShown(b schemas.Brief, blocks []schemas.ContextBlock) {
	num := NumberingOf(b)
	for i := range blocks {
		blocks[i].Shown = 0
		if s, ok := num[blocks[i].N]; ok {
			blocks[i].Shown = s
		}
	}
}

// Cited are the blocks b cites (the first block of each number), in the order they are shown
// (NumberingOf).
func Cited(b schemas.Brief, blocks []schemas.ContextBlock) []schemas.ContextBlock {
	cites := Cites(b)
	num := NumberingOf(b)
	var out []schemas.ContextBlock
	for _, bl := range blocks {
		if _, ok := slices.BinarySearch(cites, bl.N); ok && !slices.ContainsFunc(out, func(o schemas.ContextBlock) bool { return o.N == bl.N }) {
			out = append(out, bl)
		}
	}
	slices.SortStableFunc(out, func(x, y schemas.ContextBlock) int { return cmp.Compare(num.Of(x.N), num.Of(y.N)) })
	return out
}

// MaxTitleRunes bounds a source's shown title when it falls back to the snippet.
const MaxTitleRunes = 120

// SourceTitle is how a source is named: its title, or, for a post without one, the start of
// its snippet (MaxTitleRunes runes at most), or "untitled". Never a bare document id.
func SourceTitle(b schemas.ContextBlock) string {
	if t := textnorm.DisplayTitle(OneLine(b.Title), b.Snippet, MaxTitleRunes); t != "" {
		return t
	}
	return "untitled"
}

// SourceNames are a source's channels or outlets, comma-separated: each once (textnorm.Channels:
// case and ё aside, "A; B" lists split), empty names left out.
func SourceNames(b schemas.ContextBlock) string {
	names := make([]string, 0, len(b.Sources))
	for _, n := range b.Sources {
		names = append(names, OneLine(n))
	}
	return strings.Join(textnorm.Channels(names...), ", ")
}

// Day is t's UTC day as YYYY-MM-DD, or "undated" for the zero time.
func Day(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.UTC().Format(time.DateOnly)
}

// OneLine is s fit to print on one line: its control characters (C0 and C1: ESC, BEL, CSI…)
// and bidirectional overrides removed by textnorm.Field, the rule documents are loaded with,
// and its whitespace, line breaks and tabs included, collapsed into single spaces. Every
// text a renderer places on a line (MarkdownText, Truncate, the HTML views, the CLI's tables)
// goes through it, so what a stored query or topic name holds cannot reach a terminal as an
// escape sequence.
func OneLine(s string) string { return strings.Join(strings.Fields(textnorm.Field(s)), " ") }

// Truncate puts s on one line and cuts it to n runes, the last one "…" when cut.
func Truncate(s string, n int) string {
	s = OneLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 0)]) + "…"
}
