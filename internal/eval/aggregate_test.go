package eval

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// jsonKeys are the keys v encodes to, sorted.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestAggregate(t *testing.T) {
	qs := []PerQuery{
		{ID: "q1", Valid: true, HasGrade2: true, NDCG10: 0.5, Recall10: 0.5, Recall50: 1, MRR: 1, P10: 0.2, FreshDays: 3, HasFresh: true, LatencyMS: 10},
		{ID: "q2", Valid: true, NDCG10: 1, Recall10: 1, Recall50: 1, P10: 0.1, Leakage10: 0.1, Leaked: 1, FreshDays: 1, HasFresh: true, LatencyMS: 20},
		{ID: "q3", Valid: true, HasGrade2: true, Recall50: 0.5, MRR: 0.25, FreshDays: -1, LatencyMS: 30},
		// Skipped: its scores and freshness stay out of the means; its latency and leak count.
		{ID: "q4", NDCG10: 0.9, P10: 0.9, Leakage10: 0.9, Leaked: 2, FreshDays: 0, HasFresh: true, LatencyMS: 40},
	}
	var twenty []PerQuery // latencies 20, 19, …, 1 ms
	for i := range 20 {
		twenty = append(twenty, PerQuery{Valid: true, FreshDays: -1, LatencyMS: float64(20 - i)})
	}
	tests := []struct {
		name string
		qs   []PerQuery
		want Summary
	}{
		{
			"means over valid queries, MRR over grade-2 queries",
			qs,
			Summary{
				System: "sys", NDCG10: 0.5, Recall10: 0.5, Recall50: 2.5 / 3, MRR: 0.625, P10: 0.1,
				Leakage10: 0.1 / 3, FreshDaysMedian: 2, LatencyMSP50: 20, LatencyMSP95: 40,
				Questions: 3, Skipped: 1, MRRQuestions: 2, LeakedQuestions: 2,
			},
		},
		{
			"odd number of fresh ages",
			[]PerQuery{
				{Valid: true, FreshDays: 9, HasFresh: true, LatencyMS: 5},
				{Valid: true, FreshDays: 2, HasFresh: true, LatencyMS: 1},
				{Valid: true, FreshDays: 4, HasFresh: true, LatencyMS: 3},
			},
			Summary{System: "sys", FreshDaysMedian: 4, LatencyMSP50: 3, LatencyMSP95: 5, Questions: 3},
		},
		{
			"only skipped queries",
			[]PerQuery{{ID: "q", MRR: 1, FreshDays: 0, HasFresh: true, LatencyMS: 7}},
			Summary{System: "sys", FreshDaysMedian: -1, LatencyMSP50: 7, LatencyMSP95: 7, Skipped: 1},
		},
		{
			"latency percentiles of 1..20 ms",
			twenty,
			Summary{System: "sys", FreshDaysMedian: -1, LatencyMSP50: 10, LatencyMSP95: 19, Questions: 20},
		},
		{"no queries", nil, Summary{System: "sys", FreshDaysMedian: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.qs)
			got := Aggregate("sys", tt.qs)
			g, w := reflect.ValueOf(got), reflect.ValueOf(tt.want)
			for i := range g.NumField() {
				name := g.Type().Field(i).Name
				switch a, b := g.Field(i), w.Field(i); a.Kind() {
				case reflect.Float64:
					if math.Abs(a.Float()-b.Float()) > eps {
						t.Errorf("%s = %v, want %v", name, a.Float(), b.Float())
					}
				default:
					if !a.Equal(b) {
						t.Errorf("%s = %v, want %v", name, a, b)
					}
				}
			}
			if !reflect.DeepEqual(before, tt.qs) {
				t.Error("Aggregate modified its input")
			}
			jsonKeys(t, got) // a Summary always encodes (no NaN)
		})
	}
}

func TestSummaryJSONKeys(t *testing.T) {
	want := []string{
		"fresh_days_median", "latency_ms_p50", "latency_ms_p95", "leakage@10", "leaked_questions",
		"mrr", "mrr_group", "mrr_questions", "ndcg@10", "ndcg@10_group", "p@10", "questions", "recall@10", "recall@10_group",
		"recall@50", "skipped", "system",
	}
	if got := jsonKeys(t, Summary{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Summary keys = %v, want %v", got, want)
	}
	wantF := []string{
		"distinct_dates_mean", "empty", "freshest_days_mean", "leaked_queries", "queries", "system",
		"within30_mean", "within7_mean",
	}
	if got := jsonKeys(t, FreshnessSummary{}); !reflect.DeepEqual(got, wantF) {
		t.Errorf("FreshnessSummary keys = %v, want %v", got, wantF)
	}
}

func TestPercentile(t *testing.T) {
	oneTo := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(n - i) // descending: Percentile must sort
		}
		return v
	}
	tests := []struct {
		name   string
		values []float64
		p      float64
		want   float64
	}{
		{"empty", nil, 50, 0},
		{"single", []float64{5}, 95, 5},
		{"p50 of 1..20", oneTo(20), 50, 10},
		{"p95 of 1..20 is the 19th", oneTo(20), 95, 19},
		{"p95 of 1..100", oneTo(100), 95, 95},
		{"p95 of 1..10 rounds the rank up", oneTo(10), 95, 10},
		{"p50 of 1..4 is a value, not 2.5", oneTo(4), 50, 2},
		{"p50 of 3 unsorted", []float64{3, 1, 2}, 50, 2},
		{"p100 is the maximum", oneTo(7), 100, 7},
		{"p0 is the minimum", oneTo(7), 0, 1},
		{"p below 0 is the minimum", oneTo(7), -5, 1},
		{"p above 100 is the maximum", oneTo(7), 150, 7},
		{"p1 of 1..100", oneTo(100), 1, 1},
		{"p10 of 1..12 rounds 1.2 up to the 2nd", oneTo(12), 10, 2},
		{"p33 of 1..10 rounds 3.3 up to the 4th", oneTo(10), 33, 4},
		{"p2.5 of 1..1000", oneTo(1000), 2.5, 25},
		{"p97.5 of 1..1000", oneTo(1000), 97.5, 975},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.values)
			if got := Percentile(tt.values, tt.p); got != tt.want {
				t.Errorf("Percentile(p%v) = %v, want %v", tt.p, got, tt.want)
			}
			if !reflect.DeepEqual(before, tt.values) {
				t.Error("Percentile modified its input")
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{"empty", nil, 0},
		{"single", []float64{4}, 4},
		{"odd, unsorted", []float64{3, 1, 2}, 2},
		{"even: mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"repeated", []float64{7, 7, 1, 7}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.values)
			if got := Median(tt.values); got != tt.want {
				t.Errorf("Median = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(before, tt.values) {
				t.Error("Median modified its input")
			}
		})
	}
}
