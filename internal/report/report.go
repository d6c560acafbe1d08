// Package report renders evaluation results as one self-contained HTML page: inline CSS and
// inline SVG charts, no script, no external resource, so the file works offline, can be
// mailed or archived as is, and prints well.
//
// The package is pure. It never reads the clock or the file system: the caller passes the
// generation time in and receives the page on an io.Writer. The same input always gives the
// same bytes, so a page can be kept as a golden file or diffed between runs. Every string
// of the input reaches the page through html/template, which escapes it for its context.
package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/schemas"
)

// EvalReport is the input of WriteEval: the scores of several systems on one index.
type EvalReport struct {
	// Title heads the page, e.g. "asof eval — index rtqa"; "Evaluation report" when empty.
	Title string
	// Generated is shown in the footer, in UTC; the footer omits it when zero.
	Generated time.Time
	// Index names the evaluated index.
	Index string
	// Questions is how many questions were asked.
	Questions int
	// Systems holds one Summary per system, in display order.
	Systems []eval.Summary
	// Rows holds one row per question × system. The age histogram and the per-question table
	// are drawn from them; systems missing from Systems are shown after those listed there,
	// by name.
	Rows []schemas.EvalRow
	// DocsPerMonth counts the corpus's documents per month; the section is left out when
	// empty. Months need not be sorted; a month given twice counts the sum.
	DocsPerMonth []MonthCount
	// Notes are free text lines shown under the title (how questions were chosen, …).
	Notes []string
}

// MonthCount is the number of documents published in one month.
type MonthCount struct {
	// Month is the month as "2006-01", e.g. "2023-01".
	Month string
	// Docs is how many documents were published in Month.
	Docs int
}

//go:embed eval.html.tmpl
var evalHTML string

var evalTemplate = template.Must(template.New("eval").Parse(evalHTML))

// WriteEval writes r as one HTML page to w.
//
// The page has, in order: a header (title, index, question count, notes); a metric table
// with one row per system, the best value of each quality column in bold and leakage
// flagged; one horizontal bar chart per metric (nDCG@10, Recall@10, MRR, leakage@10) on a
// 0..1 axis; the corpus's documents per month; the age distribution of each system's
// freshest top-10 result; and a collapsible per-question table of nDCG@10 by system, most
// informative (widest spread between systems) first, at most 200 questions. Sections
// without data are left out rather than drawn empty.
//
// The page is rendered in memory first, so on a rendering error nothing is written. The
// output is byte-identical for the same r.
func WriteEval(w io.Writer, r EvalReport) error {
	var buf bytes.Buffer
	if err := evalTemplate.Execute(&buf, buildPage(r)); err != nil {
		return fmt.Errorf("report: render eval page: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("report: write eval page: %w", err)
	}
	return nil
}
