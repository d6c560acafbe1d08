package sumeval_test

import (
	"math"
	"testing"

	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// TestLeadOf scores what a reader sees first, and what a summary cites, against judgements.
func TestLeadOf(t *testing.T) {
	c := func(date string, ns ...int) schemas.Claim {
		return schemas.Claim{Date: day(date), Text: "claim " + date, Cites: ns}
	}
	blocks := []sumeval.Block{
		{N: 1, Date: day("2025-09-03"), DocID: "fresh-answer"},
		{N: 2, Date: day("2025-09-02"), DocID: "calendar"},
		{N: 3, Date: day("2025-08-20"), DocID: "old-related"},
		{N: 4, Date: day("2025-08-01"), DocID: "unjudged-copy", Folded: []string{"answer-copy"}},
		{N: 5, Date: day("2025-07-01"), DocID: "never-judged"},
	}
	grades := sumeval.Grades{"fresh-answer": 2, "calendar": 0, "old-related": 1, "answer-copy": 2}
	tests := []struct {
		name   string
		brief  *schemas.Brief
		grades sumeval.Grades
		want   sumeval.LeadMetrics
	}{
		{"the lead (the writer's first new claim) cites the answer",
			&schemas.Brief{AsOf: day("2025-09-04"), NewDays: 7, New: []schemas.Claim{c("2025-09-03", 1), c("2025-09-02", 2)}, Earlier: []schemas.Claim{c("2025-08-20", 3)}},
			grades, sumeval.LeadMetrics{Answerable: true, Lead: true, Support: true, CitedDocs: 3, CitedRelevant: 2}},
		{"a calendar post leads: support without lead",
			&schemas.Brief{AsOf: day("2025-09-04"), NewDays: 7, New: []schemas.Claim{c("2025-09-02", 2)}, Earlier: []schemas.Claim{c("2025-08-20", 3), c("2025-07-01", 5, 1)}},
			grades, sumeval.LeadMetrics{Answerable: true, Support: true, CitedDocs: 4, CitedRelevant: 2, CitedUnjudged: 1}},
		{"a folded copy of the answer credits its block",
			&schemas.Brief{AsOf: day("2025-09-04"), Timeline: []schemas.Claim{c("2025-08-01", 4)}},
			grades, sumeval.LeadMetrics{Answerable: true, Lead: true, Support: true, CitedDocs: 1, CitedRelevant: 1, CitedUnjudged: 0}},
		{"one block cited twice counts once",
			&schemas.Brief{AsOf: day("2025-09-04"), Timeline: []schemas.Claim{c("2025-08-20", 3), c("2025-08-20", 3, 9)}},
			grades, sumeval.LeadMetrics{Answerable: true, CitedDocs: 1, CitedRelevant: 1}},
		{"no grade 2 in the judgements: not answerable",
			&schemas.Brief{AsOf: day("2025-09-04"), Timeline: []schemas.Claim{c("2025-08-20", 3)}},
			sumeval.Grades{"old-related": 1}, sumeval.LeadMetrics{CitedDocs: 1, CitedRelevant: 1}},
		{"an empty summary leads with nothing",
			&schemas.Brief{AsOf: day("2025-09-04"), NotEnough: true},
			grades, sumeval.LeadMetrics{Answerable: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sumeval.Answer{Format: sumeval.FormatAsof, Anchor: day("2025-09-04"), Blocks: blocks, Brief: tt.brief}
			if got := sumeval.LeadOf(a, tt.grades); got != tt.want {
				t.Errorf("LeadOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestLeadAggregate pools the lead figures over graded answers only.
func TestLeadAggregate(t *testing.T) {
	rows := []sumeval.Row{
		{System: "asof", Lead: &sumeval.LeadMetrics{Answerable: true, Lead: true, Support: true, CitedDocs: 4, CitedRelevant: 3}},
		{System: "asof", Lead: &sumeval.LeadMetrics{Answerable: true, Support: true, CitedDocs: 4, CitedRelevant: 1, CitedUnjudged: 2}},
		{System: "asof", Lead: &sumeval.LeadMetrics{CitedDocs: 2, CitedRelevant: 2}}, // no grade-2 doc: noise only
		{System: "asof"}, // not graded
	}
	g := sumeval.Summarize(rows)[0]
	if g.Graded != 3 || g.Lead.N != 2 || g.Lead.Value() != 0.5 || g.Support.Value() != 1 {
		t.Errorf("graded %d, lead %v over %d, support %v; want 3, 0.5 over 2, 1", g.Graded, g.Lead.Value(), g.Lead.N, g.Support.Value())
	}
	if noise, un := g.Noise(), g.UnjudgedShare(); math.Abs(noise-0.4) > 1e-12 || math.Abs(un-0.2) > 1e-12 {
		t.Errorf("noise %v, unjudged %v; want 0.4 (4 of 10), 0.2", noise, un)
	}
}
