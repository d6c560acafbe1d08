package evalrun

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/report"
	"github.com/asofrag/asof/schemas"
)

// Unlabelled reads a query set without judgements (query_id, query, anchor_date) as questions,
// every one of them to be asked.
func Unlabelled(rows []schemas.EvalQuery) ([]schemas.EvalQuestion, map[string]bool) {
	var qs []schemas.EvalQuestion
	judged := map[string]bool{}
	for _, r := range rows {
		qs = append(qs, schemas.EvalQuestion{QuestionID: r.QueryID, QuestionDate: r.AnchorDate, Question: r.Query})
		judged[r.QueryID] = true
	}
	return qs, judged
}

// JudgedIDs are the question ids that have judgements.
func JudgedIDs(qrels []schemas.Qrel) map[string]bool {
	judged := map[string]bool{}
	for _, r := range qrels {
		judged[r.QuestionID] = true
	}
	return judged
}

// JudgedOf groups judgements by question id, in file order.
func JudgedOf(qrels []schemas.Qrel) map[string][]eval.Judged {
	judged := map[string][]eval.Judged{}
	for _, r := range qrels {
		judged[r.QuestionID] = append(judged[r.QuestionID], eval.Judged{DocID: r.DocID, Grade: int(r.Grade)})
	}
	return judged
}

// ParseSystems parses every system name (ParseSystem), in order.
func ParseSystems(names []string) ([]System, error) {
	systems := make([]System, len(names))
	for i, n := range names {
		s, err := ParseSystem(n)
		if err != nil {
			return nil, err
		}
		systems[i] = s
	}
	return systems, nil
}

// Questions are a batch's planned questions with their vectors, laid out as the workflow
// embeds them: one vector per question, then one per question with an AutoText, in order.
// A count that does not match is an error.
func Questions(batch []Planned, vecs [][]float32) ([]Question, error) {
	questions := make([]Question, len(batch))
	next := len(batch)
	for i, q := range batch {
		questions[i] = Question{ID: q.ID, AsOf: q.AsOf, Text: q.Question}
		if i < len(vecs) {
			questions[i].Vec = vecs[i]
		}
		if q.AutoText == "" {
			continue
		}
		if next < len(vecs) {
			questions[i].AutoVec = vecs[next]
		}
		next++
	}
	if next != len(vecs) {
		return nil, fmt.Errorf("%d vectors for %d questions and their auto readings (%d)", len(vecs), len(batch), next)
	}
	return questions, nil
}

// NewBatch is a batch ready for its shards: the systems named (ParseSystems), the planned
// questions with their vectors (Questions) and the qrels by question (JudgedOf; none for an
// unlabelled set). The error is the first bad system or a vector count that does not match.
func NewBatch(systems []string, planned []Planned, vecs [][]float32, qrels []schemas.Qrel) (Batch, error) {
	s, err := ParseSystems(systems)
	if err != nil {
		return Batch{}, err
	}
	q, err := Questions(planned, vecs)
	if err != nil {
		return Batch{}, err
	}
	return Batch{Systems: s, Questions: q, Judged: JudgedOf(qrels)}, nil
}

// ReportInput is a finished evaluation, for its HTML report.
type ReportInput struct {
	EvalID, Index string
	// Systems are the systems as asked; Summaries their metrics by name.
	Systems   []string
	Summaries map[string]eval.Summary
	Questions int
	// Unlabelled: a query set without judgements (no relevance metrics).
	Unlabelled bool
	Generated  time.Time
	Rows       []schemas.EvalRow
	// Manifest is the index's live manifest (nil when it could not be read): a monthly index
	// shows its documents per month.
	Manifest *schemas.Manifest
}

// Report is the evaluation's HTML report: the metric table of the systems (a sweep's
// variants, named with "@", are left to summary.json), the rows, and the corpus's documents
// per month.
func Report(in ReportInput) report.EvalReport {
	rep := report.EvalReport{Title: "asof eval — index " + in.Index, Generated: in.Generated, Index: in.Index, Questions: in.Questions, Rows: in.Rows,
		Notes: []string{fmt.Sprintf("Each judged question is a query as of its question_date; a document's rank is its best chunk's. Evaluation %s.", in.EvalID)}}
	variants := 0
	for _, name := range in.Systems {
		if strings.Contains(name, "@") {
			variants++ // a sweep's variants: summary.json and `asof tune`'s report hold them
			continue
		}
		if !in.Unlabelled {
			rep.Systems = append(rep.Systems, in.Summaries[name])
		}
	}
	if variants > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d parameter variants are left out of this report: see summary.json (or `asof tune`'s report).", variants))
		rep.Rows = slices.DeleteFunc(slices.Clone(in.Rows), func(r schemas.EvalRow) bool { return strings.Contains(r.System, "@") })
	}
	if in.Unlabelled {
		rep.Notes = append(rep.Notes, "Unlabelled queries: no relevance metrics; see summary.json for the context freshness of each system.")
	}
	if m := in.Manifest; m != nil && m.Period == "month" {
		for _, sm := range m.Shards {
			rep.DocsPerMonth = append(rep.DocsPerMonth, report.MonthCount{Month: sm.Period, Docs: sm.Docs})
		}
	}
	return rep
}
