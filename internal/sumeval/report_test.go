package sumeval

import "testing"

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
