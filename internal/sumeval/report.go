package sumeval

import (
	"cmp"
	"time"
)

// AsofSystem is the name of asof's answers in a summaries evaluation.
const AsofSystem = "asof"

// RubricLLM is the summaries evaluation's rubric that asks the LLM for the study's scores.
const RubricLLM = "llm"

// RunID is the Ask run (and child workflow) id of one query of a summaries evaluation: its
// answer is runs/<id>/answer.json, so a rerun finds it and does not ask again.
func RunID(evalID, queryID string) string {
	return "asof-sumeval-" + evalID + "-" + queryID
}

// Query is one query of a summaries evaluation to answer, and whether its answer is stored.
type Query struct {
	QueryID    string    `json:"query_id"`
	Query      string    `json:"query"`
	AnchorDate time.Time `json:"anchor_date"`
	// RunID is the Ask run that answers it (RunID).
	RunID string `json:"run_id"`
	// Done: runs/<RunID>/answer.json exists (a rerun resumes).
	Done bool `json:"done"`
}

// Report is a summaries evaluation's summary.json (layout.SummariesSummaryKey).
type Report struct {
	EvalID  string `json:"eval_id"`
	Index   string `json:"index"`
	Queries int    `json:"queries"`
	Failed  int    `json:"failed"`
	// Rules say how summary dates were read: every form, header dropped (DefaultRules).
	Rules   string      `json:"rules"`
	Systems []Aggregate `json:"systems"`
	// StudyRules are every system under the study's own rules (ISO dates, every date equal to
	// the anchor dropped): for the study's systems, its published Table 3.
	StudyRules []Aggregate `json:"study_rules,omitempty"`
	Rubric     string      `json:"rubric"`
}

// NewReport is the report of t, a summaries evaluation of queries queries, failed of which
// have no answer, graded by rubric ("" for none).
func NewReport(evalID, index string, queries, failed int, t Table, rubric string) Report {
	return Report{EvalID: evalID, Index: index, Queries: queries, Failed: failed,
		Rules:   "every date form; the header that repeats the anchor dropped",
		Systems: t.Systems, StudyRules: t.StudyRules, Rubric: cmp.Or(rubric, "none")}
}
