package sumeval_test

import (
	"math"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/sumeval"
	"github.com/asofrag/asof/schemas"
)

// studyFile is the study's published answers (../shared/data, next to the repository).
const studyFile = "../../../shared/data/tg-finance-ru/study-answers.parquet"

// readStudy reads the study's answers, or skips the test when the data is absent.
func readStudy(t *testing.T) []schemas.StudyAnswer {
	t.Helper()
	if _, err := os.Stat(studyFile); err != nil {
		t.Skipf("no %s: %v", studyFile, err)
	}
	rows, err := parquet.ReadFile[schemas.StudyAnswer](studyFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 600 {
		t.Fatalf("%d rows, want 600", len(rows))
	}
	return rows
}

// studyRows scores the study's answers under rules.
func studyRows(rows []schemas.StudyAnswer, rules sumeval.Rules) []sumeval.Row {
	out := make([]sumeval.Row, 0, len(rows))
	for _, r := range rows {
		a := sumeval.StudyAnswer(r)
		out = append(out, sumeval.Row{System: r.System, QueryID: r.QueryID, Dates: sumeval.DateMetricsOf(a, rules),
			Citations: sumeval.CitationsOf(a), Rubric: sumeval.StudyRubric(r)})
	}
	return out
}

// TestReproduceStudy checks the study's own figures from its file: Table 3 (ISO dates, every
// date equal to the anchor dropped: its notebook's rules) and the rubric's overall means.
func TestReproduceStudy(t *testing.T) {
	aggs := sumeval.Summarize(studyRows(readStudy(t), sumeval.StudyRules()))
	// The study's rag_quality notebook, per system: has_sum_dates, n_sum_dates, min_age_ctx,
	// min_age_sum, gap_sum_vs_ctx_days, share_sum_7d, share_sum_30d; and the overall means.
	want := map[string][8]float64{
		"rag":               {1.000, 23.650, 22.575000, 33.135000, 10.560000, 0.021120, 0.082304, 3.624},
		"rag_filtered":      {0.990, 25.475, 30.787879, 33.838384, 3.050505, 0.019467, 0.068626, 3.736},
		"temporal_filtered": {0.995, 21.525, 7.618090, 10.492462, 2.874372, 0.147082, 0.319016, 3.901},
	}
	if len(aggs) != 3 {
		t.Fatalf("%d systems, want 3", len(aggs))
	}
	for _, g := range aggs {
		w, ok := want[g.System]
		if !ok {
			t.Fatalf("unexpected system %q", g.System)
		}
		got := [8]float64{g.HasDates.Value(), g.DatesPerSummary.Value(), g.MinAgeContext.Value(), g.MinAgeSummary.Value(),
			g.Gap.Value(), g.Within7.Value(), g.Within30.Value(), g.Overall.Value()}
		names := [8]string{"has dates", "dates per summary", "min ctx age", "min summary age", "gap", "within 7d", "within 30d", "overall"}
		for i := range got {
			tol := 5e-6
			if i == 7 {
				tol = 5e-4 // published to 3 decimals
			}
			if math.Abs(got[i]-w[i]) > tol {
				t.Errorf("%s %s = %.6f, want %.6f", g.System, names[i], got[i], w[i])
			}
		}
	}
}

// TestStudyTable prints the study's systems under the default rules (every date form, only
// the header dropped) and checks the table has their rows and rubric.
func TestStudyTable(t *testing.T) {
	aggs := sumeval.Summarize(studyRows(readStudy(t), sumeval.DefaultRules()))
	md := sumeval.Markdown(aggs)
	t.Log("\n" + md)
	for _, g := range aggs {
		if !g.Judged || g.Overall.N+g.RubricMissing != 200 || !g.WholeContext || g.Claims == 0 || g.Cited != 0 {
			t.Errorf("%s: judged %v, overall n %d + missing %d, whole context %v, claims %d, cited %d", g.System, g.Judged, g.Overall.N, g.RubricMissing, g.WholeContext, g.Claims, g.Cited)
		}
	}
}
