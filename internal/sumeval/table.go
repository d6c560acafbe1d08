package sumeval

import "github.com/asofrag/asof/schemas"

// Answered is one of asof's queries in a summaries evaluation: its stored answer, or Failed
// with why its Ask failed (a row that says so, without metrics).
type Answered struct {
	QueryID string
	Query   string
	RunID   string
	Answer  schemas.Answer
	Failed  bool
	Error   string
	// Rubric is the LLM's grades of the answer; nil when the evaluation did not grade.
	Rubric *Rubric
}

// Table is a scored summaries evaluation: the aggregates per system (the study's systems
// first) under DefaultRules and under StudyRules, and every row for per_answer.parquet (asof's
// in query order, then the study's in file order).
type Table struct {
	Systems    []Aggregate
	StudyRules []Aggregate
	Rows       []schemas.SummaryEvalRow
}

// Tabulate scores asof's answers as system, and the study's answers to the same queries (the
// study's rows for other queries are left out), each against grades[query id] when grades is
// not nil (LeadOf).
func Tabulate(system string, asof []Answered, study []schemas.StudyAnswer, grades map[string]Grades) Table {
	var t Table
	wanted := map[string]bool{}
	var rows, rules, studyRows, studyRules []Row
	for _, q := range asof {
		wanted[q.QueryID] = true
		if q.Failed {
			t.Rows = append(t.Rows, schemas.SummaryEvalRow{System: system, QueryID: q.QueryID, Query: q.Query, RunID: q.RunID, Error: q.Error})
			continue
		}
		row, sr := Score(system, q.QueryID, AsofAnswer(q.Answer), q.Rubric, grades[q.QueryID])
		rows, rules = append(rows, row), append(rules, sr)
		t.Rows = append(t.Rows, EvalRow(row, q.Query, q.RunID))
	}
	for _, r := range study {
		if !wanted[r.QueryID] {
			continue
		}
		row, sr := Score(r.System, r.QueryID, StudyAnswer(r), StudyRubric(r), nil)
		studyRows, studyRules = append(studyRows, row), append(studyRules, sr)
		t.Rows = append(t.Rows, EvalRow(row, r.Query, ""))
	}
	t.Systems = Summarize(append(studyRows, rows...))
	t.StudyRules = Summarize(append(studyRules, rules...))
	return t
}
