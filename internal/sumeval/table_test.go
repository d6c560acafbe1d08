package sumeval_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/jsonschema"
	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// rateAnswers are asof's answer to q1 ("rate?", one dated block) and the study's answers to q1
// and to q9, which asof did not answer.
func rateAnswers() (schemas.Answer, []schemas.StudyAnswer) {
	ans := schemas.Answer{AsOf: day("2025-03-01"), Blocks: []schemas.ContextBlock{{N: 1, DocID: "d1", PublishedAt: day("2025-02-27"), Title: "Rate", Snippet: "The rate was raised."}}}
	summary := "On 2025-02-27 the rate was raised [1]."
	return ans, []schemas.StudyAnswer{
		{System: "gpt", QueryID: "q1", Query: "rate?", AnchorDate: day("2025-03-01"), Context: "2025-02-27: rate raised", Summary: &summary},
		{System: "gpt", QueryID: "q9", Query: "other?", AnchorDate: day("2025-03-01"), Summary: &summary},
	}
}

// TestTabulate: a failed Ask is a row that says so and no answer in the aggregates; the
// study's answers count only for the queries asof answered; the study's systems come first;
// a rubric and judgements reach the rows.
func TestTabulate(t *testing.T) {
	ans, study := rateAnswers()
	rubric := &sumeval.Rubric{Relevance: ptr(4.0)}
	tests := []struct {
		name    string
		asof    []sumeval.Answered
		study   []schemas.StudyAnswer
		grades  map[string]sumeval.Grades
		re      *sumeval.Regraded
		systems []string // Aggregate.System in order
		answers []int    // Aggregate.Answers in order
		rows    []string // system/query_id of each row
		check   func(t *testing.T, tb sumeval.Table)
	}{
		{name: "asof alone", asof: []sumeval.Answered{{QueryID: "q1", Query: "rate?", RunID: "r1", Answer: ans}},
			systems: []string{"asof"}, answers: []int{1}, rows: []string{"asof/q1"},
			check: func(t *testing.T, tb sumeval.Table) {
				if r := tb.Rows[0]; r.RunID != "r1" || r.Query != "rate?" || r.CitedDocs != nil || r.Relevance != nil {
					t.Errorf("row %+v: want run r1, no lead, no rubric", r)
				}
			}},
		{name: "a failed ask", asof: []sumeval.Answered{{QueryID: "q1", Answer: ans}, {QueryID: "q2", Query: "late?", RunID: "r2", Failed: true, Error: "timed out"}},
			systems: []string{"asof"}, answers: []int{1}, rows: []string{"asof/q1", "asof/q2"},
			check: func(t *testing.T, tb sumeval.Table) {
				if r := tb.Rows[1]; r.Error != "timed out" || r.RunID != "r2" || r.Query != "late?" {
					t.Errorf("failed row %+v", r)
				}
			}},
		{name: "with the study", asof: []sumeval.Answered{{QueryID: "q1", Answer: ans}}, study: study,
			systems: []string{"gpt", "asof"}, answers: []int{1, 1}, rows: []string{"asof/q1", "gpt/q1"},
			check: func(t *testing.T, tb sumeval.Table) {
				if len(tb.StudyRules) != 2 || tb.StudyRules[0].System != "gpt" {
					t.Errorf("study rules %+v", tb.StudyRules)
				}
			}},
		{name: "graded and judged", asof: []sumeval.Answered{{QueryID: "q1", Answer: ans, Rubric: rubric}}, grades: map[string]sumeval.Grades{"q1": {"d1": 2}},
			systems: []string{"asof"}, answers: []int{1}, rows: []string{"asof/q1"},
			check: func(t *testing.T, tb sumeval.Table) {
				if r := tb.Rows[0]; r.Relevance == nil || *r.Relevance != 4 || r.CitedDocs == nil {
					t.Errorf("row %+v: want the rubric's relevance and a lead", r)
				}
			}},
		{name: "the study regraded by asof's grader", asof: []sumeval.Answered{{QueryID: "q1", Answer: ans, Rubric: rubric}}, study: study,
			re:      &sumeval.Regraded{Grader: "llm:m", Rubrics: map[string]map[string]sumeval.Rubric{"gpt": {"q1": {Relevance: ptr(2.0)}, "q9": {Relevance: ptr(5.0)}}}},
			systems: []string{"gpt", "gpt (graded by llm:m)", "asof"}, answers: []int{1, 1, 1}, rows: []string{"asof/q1", "gpt/q1", "gpt (graded by llm:m)/q1"},
			check: func(t *testing.T, tb sumeval.Table) {
				// the study judge's relevance stays with "gpt" (none in the file), the grader's is 2
				if r := tb.Rows[1]; r.Relevance != nil {
					t.Errorf("study row %+v: want the study's own (missing) relevance", r)
				}
				if r := tb.Rows[2]; r.Relevance == nil || *r.Relevance != 2 || !reflect.DeepEqual(r.Within30, tb.Rows[1].Within30) {
					t.Errorf("regraded row %+v: want the grader's relevance 2 and the study row's dates", r)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := sumeval.Tabulate("asof", tc.asof, tc.study, tc.grades, tc.re)
			var systems []string
			var answers []int
			for _, a := range tb.Systems {
				systems, answers = append(systems, a.System), append(answers, a.Answers)
			}
			var rows []string
			for _, r := range tb.Rows {
				rows = append(rows, r.System+"/"+r.QueryID)
			}
			if !reflect.DeepEqual(systems, tc.systems) || !reflect.DeepEqual(answers, tc.answers) || !reflect.DeepEqual(rows, tc.rows) {
				t.Fatalf("systems %v answers %v rows %v; want %v %v %v", systems, answers, rows, tc.systems, tc.answers, tc.rows)
			}
			if tc.check != nil {
				tc.check(t, tb)
			}
		})
	}
}

// TestReportMatchesItsSchema marshals a summaries evaluation's summary.json as
// FinishSummaries writes it (a graded, judged answer next to the study's, so some means have
// a value and some are null) and checks it against the schema internal/jsonschema generates
// for sumeval.Report (GET /v1/openapi.json publishes it): every property written is described,
// with its type.
func TestReportMatchesItsSchema(t *testing.T) {
	ans, study := rateAnswers()
	rubric := &sumeval.Rubric{Relevance: ptr(4.0), Groundedness: ptr(5.0), FactsNumbers: ptr(3.0), DatesTimeline: ptr(4.0), Recency: ptr(5.0)}
	tb := sumeval.Tabulate("asof", []sumeval.Answered{{QueryID: "q1", Query: "rate?", RunID: "r1", Answer: ans, Rubric: rubric}}, study,
		map[string]sumeval.Grades{"q1": {"d1": 2}}, nil)
	doc, err := json.Marshal(sumeval.NewReport("0123456789abcdef", "tg", 2, 1, tb, sumeval.RubricLLM))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"relevance":{"mean":4,"n":1,"sum":4}`, `"mean":null`} { // a mean of each kind is checked
		if !strings.Contains(string(doc), want) {
			t.Fatalf("summary.json lacks %s: %s", want, doc)
		}
	}
	schema, err := jsonschema.For(reflect.TypeFor[sumeval.Report](), jsonschema.Output, "id", "summary.json").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonschema.ValidateExact(schema, doc); err != nil {
		t.Fatalf("summary.json does not match its schema: %v", err)
	}
}
