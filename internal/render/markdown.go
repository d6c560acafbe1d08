package render

import (
	"strconv"
	"strings"

	"github.com/asofrag/asof/schemas"
)

// Markdown renders b, with the blocks its claims cite, for a terminal or a file:
//
//	_Weak match: no sentence covers enough of the query's terms; the closest ones are shown._
//
//	### New in the last 7 days
//	- 2024-06-28 — The ECB kept its deposit rate at 3.75%. [1][2]
//
//	### Timeline
//	- 2024-06-06 — The ECB cut rates for the first time since 2019. [2]
//	- 2024-06-28 — The ECB kept its deposit rate at 3.75%. [1][3]
//
//	### Sources
//	- [1] 2024-06-28 · reuters, ft · ECB holds · https://example.com/ecb
//
// in the order of ViewOf: the note in italics, the not-enough line, the sections ("_None._" or
// "_Nothing new in the last 7 days._" under an empty one: a line in italics, never a bullet,
// so that every bullet is a claim with its citations) and the sources (SourceLine; none
// when nothing is cited, or when blocks is nil). An undated claim has no date. The text ends
// with one line break. Every text that comes from a document, a model or a person (claims,
// the note, source names, titles, URLs) goes through MarkdownText: no raw HTML, no link but
// an http(s) one.
func Markdown(b schemas.Brief, blocks []schemas.ContextBlock) string {
	v := ViewOf(b)
	num := v.numbering()
	var parts []string
	if v.Note != "" {
		parts = append(parts, "_"+MarkdownText(v.Note)+"_\n")
	}
	if v.NotEnough != "" {
		parts = append(parts, v.NotEnough+"\n")
	}
	for _, s := range v.Sections {
		var w strings.Builder
		w.WriteString("### " + s.Title + "\n")
		if len(s.Claims) == 0 {
			w.WriteString("_" + s.Empty + "_\n") // a line, not a bullet: every bullet is a claim and cites
		}
		for _, c := range s.Claims {
			w.WriteString("- " + claimLine(c, num) + "\n")
		}
		parts = append(parts, w.String())
	}
	if cited := Cited(b, blocks); len(cited) > 0 {
		var w strings.Builder
		w.WriteString("### Sources\n")
		for _, bl := range cited {
			w.WriteString("- " + sourceLine(bl, num.Of(bl.N)) + "\n")
		}
		parts = append(parts, w.String())
	}
	return strings.Join(parts, "\n")
}

// ClaimLine is one claim as a Markdown line without its bullet: "2024-06-28 — text [1][3]",
// the date left out when the claim has none, the marks when it cites nothing.
func ClaimLine(c schemas.Claim) string { return claimLine(c, nil) }

// claimLine is ClaimLine with the cites numbered by num.
func claimLine(c schemas.Claim, num Numbering) string {
	var w strings.Builder
	if !c.Date.IsZero() {
		w.WriteString(Day(c.Date) + " — ")
	}
	w.WriteString(MarkdownText(c.Text))
	if len(c.Cites) > 0 {
		w.WriteString(" ")
	}
	for _, n := range num.Shown(c.Cites) {
		w.WriteString("[" + strconv.Itoa(n) + "]")
	}
	return w.String()
}

// SourceLine is one source as a Markdown line without its bullet: "[n] YYYY-MM-DD · sources ·
// title · url", the sources and url left out when empty, the title as SourceTitle gives it.
func SourceLine(b schemas.ContextBlock) string { return sourceLine(b, b.N) }

// sourceLine is SourceLine shown as number n.
func sourceLine(b schemas.ContextBlock, n int) string {
	parts := []string{"[" + strconv.Itoa(n) + "] " + Day(b.PublishedAt)}
	if s := MarkdownText(SourceNames(b)); s != "" {
		parts = append(parts, s)
	}
	parts = append(parts, MarkdownText(SourceTitle(b)))
	if u := MarkdownText(b.URL); u != "" {
		parts = append(parts, u)
	}
	return strings.Join(parts, " · ")
}
