package brief

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/summarize"
	"github.com/asofrag/asof/schemas"
)

// FallbackNote is the Note of a Brief converted from a Fallback extractive summary; Markdown
// renders it as summarize does.
const FallbackNote = "Weak match: no sentence covers enough of the query's terms; the closest ones are shown."

// FromSummary converts an extractive summary: one claim per sentence, citing its block and
// dated with its date, in the order of the summary's lists. Method is the summary's
// ("extractive"), NotEnough is copied and a Fallback summary gets FallbackNote.
func FromSummary(s summarize.Summary) schemas.Brief {
	b := schemas.Brief{
		Method:    cmp.Or(s.Method, summarize.Method),
		New:       claims(s.New),
		Earlier:   claims(s.Earlier),
		Timeline:  claims(s.Timeline),
		NotEnough: s.NotEnough,
	}
	if s.Fallback {
		b.Note = FallbackNote
	}
	return b
}

// FromEvolution converts an extractive evolution as FromSummary does: Then and Now from its
// sides, in their order; New, Earlier and Timeline are empty.
func FromEvolution(e summarize.Evolution) schemas.Brief {
	b := schemas.Brief{
		Method: cmp.Or(e.Method, summarize.Method),
		New:    []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{},
		Then:      claims(e.Then),
		Now:       claims(e.Now),
		NotEnough: e.NotEnough,
	}
	if e.Fallback {
		b.Note = FallbackNote
	}
	return b
}

func claims(ss []summarize.Sentence) []schemas.Claim {
	out := make([]schemas.Claim, len(ss))
	for i, s := range ss {
		out[i] = schemas.Claim{Date: s.Date, Text: s.Text, Cites: []int{s.N}}
	}
	return out
}

// Markdown renders a brief as the Markdown summary of an answer as of asOf's day, in the form
// of summarize.Summary.Markdown:
//
//	### New in the last 7 days
//	- 2024-05-14 — claim text [3][5]
//
//	### Earlier context
//	- …
//
//	### Timeline
//	- …
//
// with "- None." under an empty section and no "new" section when newDays is 0. A brief with
// Then or Now claims is an evolution and renders as "### Then" and "### Now" instead. A Note
// opens the summary in italics. A NotEnough brief with no claims is the single line "Not
// enough information in the documents up to YYYY-MM-DD to answer."; one with claims (an LLM
// may give partial ones) has that line, then its sections. So an extractive summary renders
// byte for byte as summarize renders it.
func Markdown(b schemas.Brief, asOf time.Time, newDays int) string {
	evolution := len(b.Then)+len(b.Now) > 0
	none := !evolution && len(b.New)+len(b.Earlier)+len(b.Timeline) == 0
	var w strings.Builder
	if b.Note != "" {
		w.WriteString("_" + strings.Join(strings.Fields(b.Note), " ") + "_\n\n")
	}
	if b.NotEnough {
		w.WriteString("Not enough information in the documents up to " + day(asOf).Format(evidence.DateLayout) + " to answer.\n")
		if none {
			return w.String()
		}
		w.WriteString("\n")
	}
	if evolution {
		section(&w, "Then", b.Then)
		section(&w, "Now", b.Now)
		return strings.TrimSuffix(w.String(), "\n")
	}
	switch {
	case newDays <= 0:
	case newDays == 1:
		section(&w, "New in the last day", b.New)
	default:
		section(&w, fmt.Sprintf("New in the last %d days", newDays), b.New)
	}
	section(&w, "Earlier context", b.Earlier)
	section(&w, "Timeline", b.Timeline)
	return strings.TrimSuffix(w.String(), "\n")
}

// section writes a heading and one line per claim, then a blank line.
func section(w *strings.Builder, heading string, cs []schemas.Claim) {
	w.WriteString("### " + heading + "\n")
	if len(cs) == 0 {
		w.WriteString("- None.\n")
	}
	for _, c := range cs {
		w.WriteString("- ")
		if !c.Date.IsZero() {
			w.WriteString(c.Date.UTC().Format(evidence.DateLayout) + " — ")
		}
		w.WriteString(strings.Join(strings.Fields(c.Text), " "))
		if len(c.Cites) > 0 {
			w.WriteString(" ")
		}
		for _, n := range c.Cites {
			w.WriteString("[" + strconv.Itoa(n) + "]")
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
}
