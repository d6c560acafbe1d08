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

// TestReportMatchesItsSchema marshals a summaries evaluation's summary.json as
// FinishSummaries writes it (a graded, judged answer next to the study's, so some means have
// a value and some are null) and checks it against the schema internal/jsonschema generates
// for sumeval.Report (GET /v1/openapi.json publishes it): every property written is described,
// with its type.
func TestReportMatchesItsSchema(t *testing.T) {
	ans := schemas.Answer{AsOf: day("2025-03-01"), Blocks: []schemas.ContextBlock{{N: 1, DocID: "d1", PublishedAt: day("2025-02-27"), Title: "Rate", Snippet: "The rate was raised."}}}
	summary := "On 2025-02-27 the rate was raised [1]."
	study := []schemas.StudyAnswer{{System: "gpt", QueryID: "q1", Query: "rate?", AnchorDate: day("2025-03-01"), Context: "2025-02-27: rate raised", Summary: &summary}}
	rubric := &sumeval.Rubric{Relevance: ptr(4.0), Groundedness: ptr(5.0), FactsNumbers: ptr(3.0), DatesTimeline: ptr(4.0), Recency: ptr(5.0)}
	tb := sumeval.Tabulate("asof", []sumeval.Answered{{QueryID: "q1", Query: "rate?", RunID: "r1", Answer: ans, Rubric: rubric}}, study,
		map[string]sumeval.Grades{"q1": {"d1": 2}})
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
