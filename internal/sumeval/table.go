package sumeval

import (
	"fmt"

	"github.com/asofrag/asof/schemas"
)

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

// AnswersOf pairs each query with its stored answer (answer reads it by run id) or, when errs
// holds its query id, why its Ask failed; when graded, each answer gets rubrics[query id]
// (zero grades, counted as missing, when it has none). answer's error, named by query, stops it.
func AnswersOf(qs []Query, errs map[string]string, graded bool, rubrics map[string]Rubric, answer func(runID string) (schemas.Answer, error)) ([]Answered, error) {
	out := make([]Answered, len(qs))
	for i, q := range qs {
		out[i] = Answered{QueryID: q.QueryID, Query: q.Query, RunID: q.RunID}
		if out[i].Error, out[i].Failed = errs[q.QueryID]; out[i].Failed {
			continue
		}
		ans, err := answer(q.RunID)
		if err != nil {
			return nil, fmt.Errorf("answer of %s: %w", q.QueryID, err)
		}
		out[i].Answer = ans
		if graded {
			r := rubrics[q.QueryID]
			out[i].Rubric = &r
		}
	}
	return out, nil
}

// Table is a scored summaries evaluation: the aggregates per system (the study's systems
// first) under DefaultRules and under StudyRules, and every row for per_answer.parquet (asof's
// in query order, then the study's in file order).
type Table struct {
	Systems    []Aggregate
	StudyRules []Aggregate
	Rows       []schemas.SummaryEvalRow
}

// Regraded holds the grades one grader (Grader, "llm:<model>") gave the study's summaries,
// by study system and query id: the study's answers graded by the grader that graded asof's,
// so that one grader's scores sit side by side.
type Regraded struct {
	Grader  string
	Rubrics map[string]map[string]Rubric
}

// RegradedSystem names the study's system as graded by grader: "rag (graded by llm:m)".
func RegradedSystem(system, grader string) string { return system + " (graded by " + grader + ")" }

// Tabulate scores asof's answers as system, and the study's answers to the same queries (the
// study's rows for other queries are left out), each against grades[query id] when grades is
// not nil (LeadOf). When re is not nil, each study row is scored once more as
// RegradedSystem(its system, re.Grader) with re's grades instead of the study judge's (zero
// grades, counted as missing, where re has none).
func Tabulate(system string, asof []Answered, study []schemas.StudyAnswer, grades map[string]Grades, re *Regraded) Table {
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
	if re != nil {
		for _, r := range study {
			if !wanted[r.QueryID] {
				continue
			}
			rb := re.Rubrics[r.System][r.QueryID]
			row, sr := Score(RegradedSystem(r.System, re.Grader), r.QueryID, StudyAnswer(r), &rb, nil)
			studyRows, studyRules = append(studyRows, row), append(studyRules, sr)
			t.Rows = append(t.Rows, EvalRow(row, r.Query, ""))
		}
	}
	t.Systems = Summarize(append(studyRows, rows...))
	t.StudyRules = Summarize(append(studyRules, rules...))
	return t
}
