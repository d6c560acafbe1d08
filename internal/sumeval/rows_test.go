package sumeval_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// TestJudgedQueries keeps judged questions inside the range, on their as-of day, by id.
func TestJudgedQueries(t *testing.T) {
	qs := []schemas.EvalQuestion{
		{QuestionID: "q3", QuestionDate: day("2025-03-01").Add(15 * time.Hour), Question: "  third  "},
		{QuestionID: "q1", QuestionDate: day("2025-01-01"), Question: "first"},
		{QuestionID: "q2", QuestionDate: day("2025-02-01"), Question: "unjudged"},
		{QuestionID: "q4", QuestionDate: day("2025-06-01"), Question: "late"},
	}
	qrels := []schemas.Qrel{{QuestionID: "q1", DocID: "a"}, {QuestionID: "q3", DocID: "b"}, {QuestionID: "q3", DocID: "c"}, {QuestionID: "q4", DocID: "d"}}
	tests := []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{name: "unbounded", want: []string{"q1", "q3", "q4"}},
		{name: "from", from: day("2025-02-01"), want: []string{"q3", "q4"}},
		{name: "to the day of a question past midnight", to: day("2025-03-01"), want: []string{"q1", "q3"}},
		{name: "empty range", from: day("2025-07-01"), want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sumeval.JudgedQueries(qs, qrels, tt.from, tt.to)
			var ids []string
			for _, q := range got {
				ids = append(ids, q.QueryID)
				if q.QueryID == "q3" && (q.Query != "third" || !q.AnchorDate.Equal(day("2025-03-01"))) {
					t.Errorf("q3 = %+v, want the trimmed text on its day", q)
				}
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("ids = %v, want %v", ids, tt.want)
			}
		})
	}
}

// TestCheckQueries names the first bad query.
func TestCheckQueries(t *testing.T) {
	ok := schemas.EvalQuery{QueryID: "a", Query: "what", AnchorDate: day("2025-01-01")}
	with := func(f func(*schemas.EvalQuery)) schemas.EvalQuery { q := ok; f(&q); return q }
	tests := []struct {
		name string
		rows []schemas.EvalQuery
		want string
	}{
		{name: "fine", rows: []schemas.EvalQuery{ok, with(func(q *schemas.EvalQuery) { q.QueryID = "b" })}},
		{name: "empty id", rows: []schemas.EvalQuery{ok, with(func(q *schemas.EvalQuery) { q.QueryID = "" })}, want: `query 2: query_id "" must be non-empty, without / or spaces`},
		{name: "slash", rows: []schemas.EvalQuery{with(func(q *schemas.EvalQuery) { q.QueryID = "a/b" })}, want: `query 1: query_id "a/b" must be non-empty, without / or spaces`},
		{name: "twice", rows: []schemas.EvalQuery{ok, ok}, want: `query_id "a" twice`},
		{name: "blank query", rows: []schemas.EvalQuery{with(func(q *schemas.EvalQuery) { q.Query = " " })}, want: "query a: needs a query and an anchor_date"},
		{name: "no anchor", rows: []schemas.EvalQuery{with(func(q *schemas.EvalQuery) { q.AnchorDate = time.Time{} })}, want: "query a: needs a query and an anchor_date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sumeval.CheckQueries(tt.rows)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestGradesOf groups judgements by question.
func TestGradesOf(t *testing.T) {
	got := sumeval.GradesOf([]schemas.Qrel{{QuestionID: "q1", DocID: "a", Grade: 2}, {QuestionID: "q1", DocID: "b"}, {QuestionID: "q2", DocID: "a", Grade: 1}})
	want := map[string]sumeval.Grades{"q1": {"a": 2, "b": 0}, "q2": {"a": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GradesOf = %v, want %v", got, want)
	}
}

// TestScoreAndEvalRow scores an asof answer with and without grades and writes its row:
// NaN figures are null, lead and support only for an answerable question.
func TestScoreAndEvalRow(t *testing.T) {
	anchor := day("2025-09-03")
	ans := schemas.Answer{AsOf: anchor, Blocks: []schemas.ContextBlock{
		{N: 1, DocID: "d1", Title: "Title", Snippet: "snippet", PublishedAt: day("2025-09-01")},
	}, Brief: &schemas.Brief{AsOf: anchor, New: []schemas.Claim{{Date: day("2025-09-01"), Text: "a claim", Cites: []int{1}}}}}
	sa := sumeval.AsofAnswer(ans)
	if len(sa.Blocks) != 1 || sa.Blocks[0].Text != "Title\nsnippet" || sa.Format != sumeval.FormatAsof {
		t.Fatalf("AsofAnswer = %+v", sa)
	}
	five := 5.0
	rb := &sumeval.Rubric{Relevance: &five, Groundedness: &five, FactsNumbers: &five, DatesTimeline: &five, Recency: &five}
	tests := []struct {
		name        string
		rb          *sumeval.Rubric
		grades      sumeval.Grades
		wantLead    *bool
		wantCited   *int32
		wantOverall *float64
	}{
		{name: "no grades, no rubric"},
		{name: "answerable", rb: rb, grades: sumeval.Grades{"d1": 2}, wantLead: ptr(true), wantCited: ptr(int32(1)), wantOverall: &five},
		{name: "not answerable", grades: sumeval.Grades{"d1": 1}, wantCited: ptr(int32(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, study := sumeval.Score("asof", "q1", sa, tt.rb, tt.grades)
			if row.System != "asof" || row.QueryID != "q1" || row.Citations.Claims != 1 || study.Lead != row.Lead {
				t.Errorf("row = %+v, study rules row = %+v", row, study)
			}
			if row.Dates != sumeval.DateMetricsOf(sa, sumeval.DefaultRules()) || study.Dates != sumeval.DateMetricsOf(sa, sumeval.StudyRules()) {
				t.Errorf("dates = %+v / %+v, want each under its rules", row.Dates, study.Dates)
			}
			er := sumeval.EvalRow(row, "the query", "run-1")
			if er.Query != "the query" || er.RunID != "run-1" || er.Claims != 1 || er.Cited != 1 {
				t.Errorf("EvalRow = %+v", er)
			}
			if !reflect.DeepEqual(er.Lead, tt.wantLead) || !reflect.DeepEqual(er.CitedDocs, tt.wantCited) || !reflect.DeepEqual(er.Overall, tt.wantOverall) {
				t.Errorf("lead %v cited %v overall %v, want %v %v %v", er.Lead, er.CitedDocs, er.Overall, tt.wantLead, tt.wantCited, tt.wantOverall)
			}
		})
	}
	er := sumeval.EvalRow(sumeval.Row{Dates: sumeval.DateMetrics{MinAgeContext: math.NaN(), Gap: 2}}, "", "")
	if er.MinAgeContext != nil || er.Gap == nil || *er.Gap != 2 {
		t.Errorf("NaN → %v, 2 → %v; want nil and 2", er.MinAgeContext, er.Gap)
	}
}

func ptr[T any](v T) *T { return &v }

// TestFirstQueries keeps the first queries and checks them; none is an error.
func TestFirstQueries(t *testing.T) {
	q := func(id string) schemas.EvalQuery {
		return schemas.EvalQuery{QueryID: id, Query: "what " + id, AnchorDate: day("2025-01-01")}
	}
	rows := []schemas.EvalQuery{q("a"), q("b"), q("c")}
	tests := []struct {
		name    string
		rows    []schemas.EvalQuery
		limit   int
		want    int
		wantErr string
	}{
		{name: "all", rows: rows, want: 3},
		{name: "first two", rows: rows, limit: 2, want: 2},
		{name: "limit past the end", rows: rows, limit: 9, want: 3},
		{name: "none", wantErr: "no queries"},
		{name: "a bad one", rows: []schemas.EvalQuery{q("a"), q("a")}, wantErr: `query_id "a" twice`},
		{name: "a bad one past the limit", rows: []schemas.EvalQuery{q("a"), q("a")}, limit: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sumeval.FirstQueries(tt.rows, tt.limit)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.want || got[0].QueryID != "a" {
				t.Fatalf("FirstQueries = %d rows, %v; want %d", len(got), err, tt.want)
			}
		})
	}
}
