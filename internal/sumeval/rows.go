package sumeval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

// AsofAnswer is an answer of asof as sumeval reads it: its blocks (title and snippet as
// text) and its brief, the structured summary its reader saw rendered (never the Markdown).
func AsofAnswer(ans schemas.Answer) Answer {
	sa := Answer{Format: FormatAsof, Anchor: ans.AsOf, Brief: ans.Brief}
	for _, b := range ans.Blocks {
		sa.Blocks = append(sa.Blocks, Block{N: b.N, Date: b.PublishedAt, Text: strings.TrimSpace(b.Title + "\n" + b.Snippet),
			DocID: b.DocID, Folded: b.Folded})
	}
	return sa
}

// Score scores one answer of system for queryID: its dates under DefaultRules, its citations,
// the rubric rb (nil: not graded) and, when grades is not nil, its lead (LeadOf). studyRules is
// the same row with its dates read under StudyRules.
func Score(system, queryID string, a Answer, rb *Rubric, grades Grades) (row, studyRules Row) {
	row = Row{System: system, QueryID: queryID, Dates: DateMetricsOf(a, DefaultRules()), Citations: CitationsOf(a), Rubric: rb}
	if grades != nil {
		l := LeadOf(a, grades)
		row.Lead = &l
	}
	studyRules = row
	studyRules.Dates = DateMetricsOf(a, StudyRules())
	return row, studyRules
}

// GradesOf groups judgements by question: a question id's Grades.
func GradesOf(qrels []schemas.Qrel) map[string]Grades {
	grades := map[string]Grades{}
	for _, r := range qrels {
		if grades[r.QuestionID] == nil {
			grades[r.QuestionID] = Grades{}
		}
		grades[r.QuestionID][r.DocID] = int(r.Grade)
	}
	return grades
}

// JudgedQueries are the questions that have judgements, dated (by their as-of day) within
// [from, to] (zero: unbounded), as queries in question id order.
func JudgedQueries(qs []schemas.EvalQuestion, qrels []schemas.Qrel, from, to time.Time) []schemas.EvalQuery {
	judged := map[string]bool{}
	for _, r := range qrels {
		judged[r.QuestionID] = true
	}
	var rows []schemas.EvalQuery
	for _, q := range qs {
		d := asofday.Start(q.QuestionDate)
		if !judged[q.QuestionID] || (!from.IsZero() && d.Before(from)) || (!to.IsZero() && d.After(to)) {
			continue
		}
		rows = append(rows, schemas.EvalQuery{QueryID: q.QuestionID, Query: strings.TrimSpace(q.Question), AnchorDate: d})
	}
	slices.SortFunc(rows, func(x, y schemas.EvalQuery) int { return strings.Compare(x.QueryID, y.QueryID) })
	return rows
}

// CheckQueries checks the queries of a summaries evaluation: each has a query id without / or
// spaces, seen once, a query and an anchor date. The error names the first bad one.
func CheckQueries(rows []schemas.EvalQuery) error {
	seen := map[string]bool{}
	for i, r := range rows {
		switch {
		case r.QueryID == "" || strings.ContainsAny(r.QueryID, "/ "):
			return fmt.Errorf("query %d: query_id %q must be non-empty, without / or spaces", i+1, r.QueryID)
		case seen[r.QueryID]:
			return fmt.Errorf("query_id %q twice", r.QueryID)
		case strings.TrimSpace(r.Query) == "" || r.AnchorDate.IsZero():
			return fmt.Errorf("query %s: needs a query and an anchor_date", r.QueryID)
		}
		seen[r.QueryID] = true
	}
	return nil
}

// FirstQueries keeps the first limit queries (0: all) and checks them (CheckQueries); none
// left is an error.
func FirstQueries(rows []schemas.EvalQuery, limit int) ([]schemas.EvalQuery, error) {
	if limit > 0 && limit < len(rows) {
		rows = rows[:limit]
	}
	if len(rows) == 0 {
		return nil, errors.New("no queries")
	}
	return rows, CheckQueries(rows)
}

// EvalRow is a scored row as written to per_answer.parquet: a figure that cannot be computed
// (NaN) is null, and Lead and Support are set only for an answerable question.
func EvalRow(r Row, query, runID string) schemas.SummaryEvalRow {
	opt := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	d, c := r.Dates, r.Citations
	row := schemas.SummaryEvalRow{System: r.System, QueryID: r.QueryID, Query: query, RunID: runID, Dates: int32(d.Dates),
		MinAgeContext: opt(d.MinAgeContext), MinAgeSummary: opt(d.MinAgeSummary), Gap: opt(d.Gap), Within7: opt(d.Within7), Within30: opt(d.Within30),
		Claims: int32(c.Claims), Cited: int32(c.Cited), BadCitations: int32(c.BadCitations), DatesChecked: int32(c.DatesChecked), DatesUnsupported: int32(c.DatesUnsupported)}
	if rb := r.Rubric; rb != nil {
		row.Relevance, row.Groundedness, row.FactsNumbers, row.DatesTimeline, row.Recency = rb.Relevance, rb.Groundedness, rb.FactsNumbers, rb.DatesTimeline, rb.Recency
		if o, ok := rb.Overall(); ok {
			row.Overall = &o
		}
	}
	if l := r.Lead; l != nil {
		n := func(x int) *int32 { v := int32(x); return &v }
		row.CitedDocs, row.CitedRelevant, row.CitedUnjudged = n(l.CitedDocs), n(l.CitedRelevant), n(l.CitedUnjudged)
		if l.Answerable {
			row.Lead, row.Support = &l.Lead, &l.Support
		}
	}
	return row
}
