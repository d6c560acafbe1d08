package sumeval

import (
	"errors"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestNewReport(t *testing.T) {
	tab := Table{Systems: []Aggregate{{System: AsofSystem}}, StudyRules: []Aggregate{{System: "gpt"}}}
	tests := []struct {
		name       string
		rubric     string
		wantRubric string
	}{
		{name: "not graded", rubric: "", wantRubric: "none"},
		{name: "graded by the LLM", rubric: RubricLLM, wantRubric: "llm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReport("e1", "tg", 3, 1, tab, tt.rubric)
			if r.Rubric != tt.wantRubric || r.EvalID != "e1" || r.Index != "tg" || r.Queries != 3 || r.Failed != 1 || r.Rules == "" ||
				len(r.Systems) != 1 || r.Systems[0].System != AsofSystem || len(r.StudyRules) != 1 {
				t.Fatalf("report %+v", r)
			}
		})
	}
	if got := RunID("e1", "q000"); got != "asof-sumeval-e1-q000" {
		t.Fatalf("run id %q", got)
	}
}

// TestAnswersOf: a failed query keeps its error and no answer; graded answers get their grades
// (zero ones when there are none); an answer that cannot be read stops it, naming the query.
func TestAnswersOf(t *testing.T) {
	qs := []Query{{QueryID: "q1", RunID: "r1"}, {QueryID: "q2", RunID: "r2"}}
	five := 5.0
	answers := map[string]schemas.Answer{"r1": {Query: "one"}, "r2": {Query: "two"}}
	read := func(runID string) (schemas.Answer, error) {
		a, ok := answers[runID]
		if !ok {
			return a, errors.New("not found")
		}
		return a, nil
	}
	tests := []struct {
		name    string
		errs    map[string]string
		graded  bool
		read    func(string) (schemas.Answer, error)
		check   func([]Answered) bool
		wantErr string
	}{
		{name: "both answered, not graded", read: read, check: func(a []Answered) bool {
			return a[0].Answer.Query == "one" && a[1].Answer.Query == "two" && a[0].Rubric == nil && !a[0].Failed
		}},
		{name: "one failed", errs: map[string]string{"q2": "timed out"}, read: read, check: func(a []Answered) bool {
			return a[1].Failed && a[1].Error == "timed out" && a[1].Answer.Query == "" && a[0].Answer.Query == "one"
		}},
		{name: "graded", graded: true, read: read, check: func(a []Answered) bool {
			return a[0].Rubric != nil && a[0].Rubric.Recency != nil && *a[0].Rubric.Recency == 5 && a[1].Rubric != nil && a[1].Rubric.Recency == nil
		}},
		{name: "unreadable answer", read: func(string) (schemas.Answer, error) { return schemas.Answer{}, errors.New("gone") }, wantErr: "answer of q1: gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AnswersOf(qs, tt.errs, tt.graded, map[string]Rubric{"q1": {Recency: &five}}, tt.read)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != 2 || !tt.check(got) {
				t.Fatalf("AnswersOf = %+v, %v", got, err)
			}
		})
	}
}
