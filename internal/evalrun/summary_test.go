package evalrun

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/schemas"
)

// TestSummarize: rows are aggregated per system as named (other systems' rows left out); the
// top-10 freshness mean covers only questions with a fresh document; an unlabelled set has
// freshness only; a round trip through a row keeps every score Aggregate reads.
func TestSummarize(t *testing.T) {
	rows := []schemas.EvalRow{
		{System: "bm25", QuestionID: "a", Valid: true, HasGrade2: true, NDCG10: 1, Recall10: 1, Recall50: 1, MRR: 1, P10: 0.2, FreshDays: 4,
			CtxFreshestDays: 2, CtxWithin7: 0.5, CtxWithin30: 1, CtxDistinctDates: 3, CtxDocs: 4},
		{System: "bm25", QuestionID: "b", Valid: true, NDCG10: 0.5, Recall10: 0.5, Recall50: 1, P10: 0.1, FreshDays: -1, CtxFreshestDays: -1},
		{System: "bm25", QuestionID: "c", Valid: false, FreshDays: 10, CtxFreshestDays: 6, CtxWithin7: 1, CtxWithin30: 1, CtxDistinctDates: 1, CtxDocs: 1},
		{System: "dense", QuestionID: "a", Valid: true, NDCG10: 0.25, Leakage10: 0.1, Leaked: 1, FreshDays: -1, CtxFreshestDays: -1},
	}
	tests := []struct {
		name       string
		unlabelled bool
		systems    []string
		check      func(t *testing.T, s Summary)
	}{
		{"labelled", false, []string{"bm25", "dense"}, func(t *testing.T, s Summary) {
			b := s.Systems["bm25"]
			if b.Questions != 2 || b.Skipped != 1 || b.NDCG10 != 0.75 || b.MRR != 1 || b.MRRQuestions != 1 || b.P10 < 0.15-1e-12 || b.P10 > 0.15+1e-12 {
				t.Errorf("bm25 %+v: want nDCG 0.75 and MRR 1 over its 2 valid questions (1 skipped), P@10 0.15", b)
			}
			if d := s.Systems["dense"]; d.LeakedQuestions != 1 || d.NDCG10 != 0.25 {
				t.Errorf("dense %+v", d)
			}
			if got, ok := s.Top10FreshestDaysMean["bm25"]; !ok || got != 7 {
				t.Errorf("bm25's top-10 freshest mean %v (%v), want 7 (questions a and c)", got, ok)
			}
			if _, ok := s.Top10FreshestDaysMean["dense"]; ok {
				t.Errorf("dense has a top-10 freshest mean without a fresh question")
			}
			if f := s.Freshness["bm25"]; f.Queries != 3 || f.Empty != 1 || f.FreshestDaysMean != 4 || f.Within7Mean != 0.5 {
				t.Errorf("bm25's context freshness %+v", f)
			}
		}},
		{"unlabelled", true, []string{"bm25"}, func(t *testing.T, s Summary) {
			if s.Systems == nil || len(s.Systems) != 0 {
				t.Errorf("systems %v, want an empty map (summary.json writes {})", s.Systems)
			}
			if f := s.Freshness["bm25"]; f.Queries != 3 {
				t.Errorf("freshness %+v", f)
			}
			if _, ok := s.Freshness["dense"]; ok {
				t.Errorf("a system not asked for was summarized")
			}
		}},
		{"a system without rows", false, []string{"auto"}, func(t *testing.T, s Summary) {
			if a, ok := s.Systems["auto"]; !ok || a.Questions != 0 || a.System != "auto" {
				t.Errorf("auto %+v (%v)", a, ok)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, Summarize(rows, tt.systems, tt.unlabelled))
		})
	}
}

// TestTables renders a summary as `asof eval` prints it, from summary.json's own names (so a
// stored summary reads back into the same tables): the metric table only for judged
// questions, one row per system in the asked order, and the freshness table always.
func TestTables(t *testing.T) {
	const stored = `{"systems": {"bm25": {"system": "bm25", "ndcg@10": 0.5, "recall@10": 0.25, "questions": 4},
		"dense": {"system": "dense", "ndcg@10": 0.75, "leakage@10": 0, "questions": 4}},
		"freshness": {"bm25": {"system": "bm25", "freshest_days_mean": 3.25, "within7_mean": 0.5, "queries": 4}},
		"top10_freshest_days_mean": {"bm25": 2}}`
	var s Summary
	if err := json.Unmarshal([]byte(stored), &s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		order      []string
		unlabelled bool
		want       []string
		wantNot    []string
	}{
		{name: "judged, in the asked order", order: []string{"dense", "bm25"}, want: []string{
			"| system | nDCG@10 |",
			"| dense | 0.750 | 0.000 |",
			"| bm25 | 0.500 | 0.250 |",
			"| bm25 | 2.0 | 3.2 | 0.50 | 0.00 | 0.0 | 4 |",
		}},
		{name: "unlabelled: freshness only", order: []string{"bm25"}, unlabelled: true,
			want: []string{"Context freshness", "| bm25 | 2.0 | 3.2 |"}, wantNot: []string{"nDCG@10"}},
		{name: "a system without figures is a row of zeros", order: []string{"hybrid"}, want: []string{"| hybrid | 0.000 |", "| hybrid | 0.0 | 0.0 |"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Tables(s, tc.order, tc.unlabelled)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("tables lack %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("tables hold %q:\n%s", w, got)
				}
			}
			if i, j := strings.Index(got, "| "+tc.order[0]+" |"), strings.LastIndex(got, "| "+tc.order[len(tc.order)-1]+" |"); i < 0 || j < i {
				t.Errorf("rows out of order:\n%s", got)
			}
		})
	}
}

// TestReadings: auto's rows are grouped by reading, in order of first appearance, with the
// baseline's nDCG@10 on the same questions; invalid rows and other systems are left out; an
// evaluation without temporal_rrf has no baseline; auto+dedup is compared with
// temporal_rrf+dedup.
func TestReadings(t *testing.T) {
	row := func(system, q, reading string, ndcg float64) schemas.EvalRow {
		return schemas.EvalRow{System: system, QuestionID: q, Reading: reading, NDCG10: ndcg, Valid: true}
	}
	rows := []schemas.EvalRow{
		row("auto", "q1", "past", 1), row("auto", "q2", "plain", 0.5), row("auto", "q3", "past", 0.5),
		{System: "auto", QuestionID: "q4", Reading: "past", NDCG10: 0.9}, // not valid: no relevant judged document
		row("temporal_rrf", "q1", "", 0), row("temporal_rrf", "q2", "", 0.5), row("temporal_rrf", "q3", "", 0.25),
		row("auto+dedup", "q1", "past", 0.8), row("temporal_rrf+dedup", "q1", "", 0.2),
	}
	got := Readings(rows, []string{"temporal_rrf", "auto", "auto+dedup", "temporal_rrf+dedup"})
	want := []ReadingRow{
		{System: "auto", Reading: "past", Questions: 2, NDCG10: 0.75, Baseline: "temporal_rrf", BaselineNDCG10: 0.125},
		{System: "auto", Reading: "plain", Questions: 1, NDCG10: 0.5, Baseline: "temporal_rrf", BaselineNDCG10: 0.5},
		{System: "auto+dedup", Reading: "past", Questions: 1, NDCG10: 0.8, Baseline: "temporal_rrf+dedup", BaselineNDCG10: 0.2},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("readings\n%+v\nwant\n%+v", got, want)
	}
	if got := Readings(rows, []string{"auto"}); len(got) != 2 || got[0].Baseline != "" || got[0].BaselineNDCG10 != 0 {
		t.Fatalf("without temporal_rrf: %+v", got)
	}
	if tab := Tables(Summarize(rows, []string{"temporal_rrf", "auto"}, false), []string{"temporal_rrf", "auto"}, false); !strings.Contains(tab, "| auto | past | 2 | 0.750 | temporal_rrf | 0.125 |") {
		t.Fatalf("tables lack the readings:\n%s", tab)
	}
}
