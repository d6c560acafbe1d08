package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// anchor is the as-of time of most tests: 08:00 UTC on 2023-03-10.
var anchor = time.Date(2023, 3, 10, 8, 0, 0, 0, time.UTC)

// ago is noon UTC days before anchor's day (negative: after it).
func ago(days int) time.Time { return time.Date(2023, 3, 10-days, 12, 0, 0, 0, time.UTC) }

// list ranks ids, all published one day before anchor.
func list(ids ...string) []Ranked {
	r := make([]Ranked, len(ids))
	for i, id := range ids {
		r[i] = Ranked{DocID: id, PublishedAt: ago(1)}
	}
	return r
}

// fillers are n unjudged ids f1..fn.
func fillers(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("f%d", i+1)
	}
	return ids
}

// l2 is log2(x), for hand-written discounts.
func l2(x float64) float64 { return math.Log2(x) }

const eps = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= eps }

func TestNDCG(t *testing.T) {
	tests := []struct {
		name    string
		judged  []Judged
		results []Ranked
		want    float64
	}{
		{"perfect ranking", []Judged{{"a", 2}, {"b", 1}, {"z", 0}}, list("a", "b", "z"), 1},
		{"perfect ranking, unjudged after", []Judged{{"a", 2}, {"b", 1}}, list("a", "b", "x", "y"), 1},
		{"relevant at rank 1", []Judged{{"a", 1}}, list("a", "x"), 1},
		{"relevant at rank 2", []Judged{{"a", 1}}, list("x", "a"), 1 / l2(3)},
		{"relevant at rank 3", []Judged{{"a", 1}}, list("x", "y", "a"), 1 / l2(4)},
		// The ideal ranks every judged document: the missing b costs 3/log2(3). An ideal
		// taken from the retrieved list would give 1.
		{"judged relevant not retrieved", []Judged{{"a", 2}, {"b", 2}}, list("a"), 3 / (3 + 3/l2(3))},
		{"judged relevant not retrieved, grade 1", []Judged{{"a", 2}, {"b", 1}}, list("a", "x"), 3 / (3 + 1/l2(3))},
		{"grade 2 above grade 1", []Judged{{"a", 2}, {"b", 1}}, list("a", "b"), 1},
		{"grade 1 above grade 2", []Judged{{"a", 2}, {"b", 1}}, list("b", "a"), (1 + 3/l2(3)) / (3 + 1/l2(3))},
		{"only grade 1 retrieved", []Judged{{"a", 2}, {"b", 1}}, list("b"), 1 / (3 + 1/l2(3))},
		{"relevant beyond 10 ignored", []Judged{{"a", 2}}, list(append(fillers(10), "a")...), 0},
		{"relevant at 10 counts", []Judged{{"a", 2}}, list(append(fillers(9), "a")...), 1 / l2(11)},
		{"judged grade 0 is not a gain", []Judged{{"a", 1}, {"z", 0}}, list("z", "a"), 1 / l2(3)},
		{"duplicate judgments keep the highest grade", []Judged{{"a", 1}, {"b", 1}, {"a", 2}}, list("b", "a"), (1 + 3/l2(3)) / (3 + 1/l2(3))},
		{"duplicate judgments keep the highest grade, listed first", []Judged{{"a", 2}, {"b", 1}, {"a", 1}}, list("b", "a"), (1 + 3/l2(3)) / (3 + 1/l2(3))},
		{"negative grade is 0", []Judged{{"a", 1}, {"z", -1}}, list("z", "a"), 1 / l2(3)},
		{"duplicate results collapse to the best rank", []Judged{{"a", 1}}, list("x", "a", "a", "a"), 1 / l2(3)},
		{
			"ideal cut at 10 of 12 judged", // 12 grade-1 docs; the top 10 retrieved are all relevant
			[]Judged{{"r1", 1}, {"r2", 1}, {"r3", 1}, {"r4", 1}, {"r5", 1}, {"r6", 1}, {"r7", 1}, {"r8", 1}, {"r9", 1}, {"r10", 1}, {"r11", 1}, {"r12", 1}},
			list("r12", "r11", "r10", "r9", "r8", "r7", "r6", "r5", "r4", "r3"), 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Score(Query{ID: "q", AsOf: anchor, Judged: tt.judged, Results: tt.results})
			if !p.Valid {
				t.Fatalf("Valid = false, want true")
			}
			if !near(p.NDCG10, tt.want) {
				t.Errorf("nDCG@10 = %.15f, want %.15f", p.NDCG10, tt.want)
			}
		})
	}
}

// check compares every field of a PerQuery, floats within eps.
// check compares a score with the expected one. An expectation without group-credit figures
// means a list without groups, whose group figures must equal the strict ones.
func check(t *testing.T, got, want PerQuery) {
	t.Helper()
	if want.NDCG10Group == 0 && want.Recall10Group == 0 && want.MRRGroup == 0 {
		want.NDCG10Group, want.Recall10Group, want.MRRGroup = want.NDCG10, want.Recall10, want.MRR
	}
	floats := []struct {
		name      string
		got, want float64
	}{
		{"NDCG10", got.NDCG10, want.NDCG10},
		{"Recall10", got.Recall10, want.Recall10},
		{"Recall50", got.Recall50, want.Recall50},
		{"MRR", got.MRR, want.MRR},
		{"P10", got.P10, want.P10},
		{"Leakage10", got.Leakage10, want.Leakage10},
		{"LatencyMS", got.LatencyMS, want.LatencyMS},
		{"NDCG10Group", got.NDCG10Group, want.NDCG10Group},
		{"Recall10Group", got.Recall10Group, want.Recall10Group},
		{"MRRGroup", got.MRRGroup, want.MRRGroup},
	}
	for _, f := range floats {
		if !near(f.got, f.want) {
			t.Errorf("%s = %.15f, want %.15f", f.name, f.got, f.want)
		}
	}
	g, w := got, want
	g.NDCG10, g.Recall10, g.Recall50, g.MRR, g.P10, g.Leakage10, g.LatencyMS = 0, 0, 0, 0, 0, 0, 0
	w.NDCG10, w.Recall10, w.Recall50, w.MRR, w.P10, w.Leakage10, w.LatencyMS = 0, 0, 0, 0, 0, 0, 0
	g.NDCG10Group, g.Recall10Group, g.MRRGroup, w.NDCG10Group, w.Recall10Group, w.MRRGroup = 0, 0, 0, 0, 0, 0
	if g != w {
		t.Errorf("counts and flags:\n got %+v\nwant %+v", g, w)
	}
}

func TestScore(t *testing.T) {
	leakAt := func(id string, at time.Time) Ranked { return Ranked{DocID: id, PublishedAt: at} }
	tests := []struct {
		name string
		q    Query
		want PerQuery
	}{
		{
			"empty results",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}}, LatencyMS: 12.5},
			PerQuery{ID: "q", Valid: true, HasGrade2: true, Relevant: 1, FreshDays: -1, LatencyMS: 12.5},
		},
		{
			"fewer than 10 results",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}, {"b", 1}, {"c", 1}}, Results: []Ranked{
				{"a", ago(1), nil}, {"x", ago(3), nil}, {"b", ago(0), nil},
			}},
			PerQuery{
				ID: "q", Valid: true, HasGrade2: true, Relevant: 3, Retrieved: 3,
				NDCG10:   (3 + 1/l2(4)) / (3 + 1/l2(3) + 1/l2(4)),
				Recall10: 2.0 / 3, Recall50: 2.0 / 3, MRR: 1, P10: 0.2, FreshDays: 0, HasFresh: true,
			},
		},
		{
			"duplicate doc ids collapse",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}, {"b", 1}}, Results: []Ranked{
				{"x", ago(5), nil}, {"a", ago(4), nil}, {"a", ago(4), nil}, {"b", ago(2), nil}, {"x", ago(5), nil}, {"b", ago(2), nil},
			}},
			PerQuery{
				ID: "q", Valid: true, HasGrade2: true, Relevant: 2, Retrieved: 3,
				NDCG10:   (3/l2(3) + 1/l2(4)) / (3 + 1/l2(3)),
				Recall10: 1, Recall50: 1, MRR: 0.5, P10: 0.2, FreshDays: 2, HasFresh: true,
			},
		},
		{
			"leakage at the end-of-day boundary",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}}, Results: []Ranked{
				leakAt("a", time.Date(2023, 3, 10, 23, 59, 59, 999_000_000, time.UTC)), // A's day: kept
				leakAt("x", time.Date(2023, 3, 11, 0, 0, 0, 0, time.UTC)),              // next day: leak
				leakAt("y", ago(1)),
			}},
			PerQuery{
				ID: "q", Valid: true, HasGrade2: true, Relevant: 1, Retrieved: 3,
				NDCG10: 1, Recall10: 1, Recall50: 1, MRR: 1, P10: 0.1,
				Leakage10: 1.0 / 3, Leaked: 1, FreshDays: 0, HasFresh: true,
			},
		},
		{
			"last nanosecond of the day is not a leak",
			Query{ID: "q", AsOf: anchor, Results: []Ranked{
				leakAt("x", time.Date(2023, 3, 10, 23, 59, 59, 999_999_999, time.UTC)),
			}},
			PerQuery{ID: "q", Retrieved: 1, FreshDays: 0, HasFresh: true},
		},
		{
			"anchor day is its UTC day",
			// 22:00 at UTC−5 on the 10th is 03:00 UTC on the 11th, so the 11th is A's day.
			Query{ID: "q", AsOf: time.Date(2023, 3, 10, 22, 0, 0, 0, time.FixedZone("EST", -5*3600)), Results: []Ranked{
				leakAt("x", time.Date(2023, 3, 11, 1, 0, 0, 0, time.UTC)),
				leakAt("y", time.Date(2023, 3, 12, 0, 0, 0, 0, time.UTC)),
			}},
			PerQuery{ID: "q", Retrieved: 2, Leakage10: 0.5, Leaked: 1, FreshDays: 0, HasFresh: true},
		},
		{
			"published in another zone compares by UTC day",
			// 20:00 at UTC−5 on the 10th is 01:00 UTC on the 11th: a leak for A = the 10th.
			Query{ID: "q", AsOf: anchor, Results: []Ranked{
				leakAt("x", time.Date(2023, 3, 10, 20, 0, 0, 0, time.FixedZone("EST", -5*3600))),
			}},
			PerQuery{ID: "q", Retrieved: 1, Leakage10: 1, Leaked: 1, FreshDays: -1},
		},
		{
			"everything leaked: no fresh document",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 1}}, Results: []Ranked{{"x", ago(-1), nil}, {"y", ago(-30), nil}}},
			PerQuery{ID: "q", Valid: true, Relevant: 1, Retrieved: 2, Leakage10: 1, Leaked: 2, FreshDays: -1},
		},
		{
			"leak beyond the top 10 counts only in Leaked",
			Query{ID: "q", AsOf: anchor, Results: append(list(fillers(10)...), Ranked{"late", ago(-1), nil})},
			PerQuery{ID: "q", Retrieved: 11, Leaked: 1, FreshDays: 1, HasFresh: true},
		},
		{
			"freshest among the top 10 only",
			Query{ID: "q", AsOf: anchor, Results: append(
				[]Ranked{{"old", ago(40), nil}, {"older", ago(90), nil}, {"leak", ago(-2), nil}},
				append(list(fillers(7)...), Ranked{"fresh-but-11th", ago(0), nil})...)},
			PerQuery{ID: "q", Retrieved: 11, Leakage10: 0.1, Leaked: 1, FreshDays: 1, HasFresh: true},
		},
		{
			"grade 2 beyond 50: MRR over the whole list",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}}, Results: list(append(fillers(59), "a")...)},
			PerQuery{ID: "q", Valid: true, HasGrade2: true, Relevant: 1, Retrieved: 60, MRR: 1.0 / 60, FreshDays: 1, HasFresh: true},
		},
		{
			"recall@50 counts rank 50, not 51",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 1}, {"b", 1}}, Results: list(append(fillers(49), "a", "b")...)},
			PerQuery{ID: "q", Valid: true, Relevant: 2, Retrieved: 51, Recall50: 0.5, FreshDays: 1, HasFresh: true},
		},
		{
			"MRR is the first grade 2, not the first relevant",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 2}, {"b", 1}}, Results: list("b", "x", "a")},
			PerQuery{
				ID: "q", Valid: true, HasGrade2: true, Relevant: 2, Retrieved: 3,
				NDCG10:   (1 + 3/l2(4)) / (3 + 1/l2(3)),
				Recall10: 1, Recall50: 1, MRR: 1.0 / 3, P10: 0.2, FreshDays: 1, HasFresh: true,
			},
		},
		{
			"no grade 2 judged: no MRR",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 1}}, Results: list("a")},
			PerQuery{ID: "q", Valid: true, Relevant: 1, Retrieved: 1, NDCG10: 1, Recall10: 1, Recall50: 1, P10: 0.1, FreshDays: 1, HasFresh: true},
		},
		{
			"no relevant judged: not valid",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"z", 0}}, Results: list("z", "x")},
			PerQuery{ID: "q", Retrieved: 2, FreshDays: 1, HasFresh: true},
		},
		{
			"no judgments at all: not valid",
			Query{ID: "q", AsOf: anchor, Results: list("x")},
			PerQuery{ID: "q", Retrieved: 1, FreshDays: 1, HasFresh: true},
		},
		{
			"P@10 divides by 10 and ignores grade 0",
			Query{ID: "q", AsOf: anchor, Judged: []Judged{{"a", 1}, {"b", 1}, {"z", 0}}, Results: list("a", "z", "b")},
			PerQuery{
				ID: "q", Valid: true, Relevant: 2, Retrieved: 3,
				NDCG10:   (1 + 1/l2(4)) / (1 + 1/l2(3)),
				Recall10: 1, Recall50: 1, P10: 0.2, FreshDays: 1, HasFresh: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.q.Results)
			check(t, Score(tt.q), tt.want)
			if !reflect.DeepEqual(before, tt.q.Results) {
				t.Error("Score modified the results")
			}
		})
	}
}

// TestGroupCredit: a folded item is credited with its best member's grade, each judged
// document once; the ideal counts one retrieved group as one unit.
func TestGroupCredit(t *testing.T) {
	anchor := time.Date(2024, 5, 15, 0, 0, 0, 0, time.UTC)
	at := anchor.AddDate(0, 0, -1)
	l2 := math.Log2
	judged := []Judged{{"a", 2}, {"a2", 2}, {"b", 1}, {"c", 1}}
	tests := []struct {
		name                string
		results             []Ranked
		ndcg, recall10, mrr float64
		strictNDCG          float64
	}{
		{
			// Strict: a (3) at 1, x (0) at 2; ideal 3,3,1,1. Group: a+a2 one unit (3) at 1;
			// ideal 3,1,1 (b, c never retrieved).
			name:       "a copy folded into the first item",
			results:    []Ranked{{"a", at, []string{"a2"}}, {"x", at, nil}},
			ndcg:       3 / (3 + 1/l2(3) + 1/l2(4)),
			recall10:   1.0 / 3,
			mrr:        1,
			strictNDCG: 3 / (3 + 3/l2(3) + 1/l2(4) + 1/l2(5)),
		},
		{
			// An irrelevant representative with a grade-2 member is credited 2.
			name:       "the best member's grade counts",
			results:    []Ranked{{"x", at, []string{"a"}}, {"b", at, nil}},
			ndcg:       (3 + 1/l2(3)) / (3 + 3/l2(3) + 1/l2(4) + 1/l2(5)),
			recall10:   2.0 / 4,
			mrr:        1,
			strictNDCG: (1 / l2(3)) / (3 + 3/l2(3) + 1/l2(4) + 1/l2(5)),
		},
		{
			// A document credited in an earlier group earns nothing again.
			name:       "each judged document once",
			results:    []Ranked{{"b", at, []string{"c"}}, {"y", at, []string{"c"}}, {"a", at, nil}},
			ndcg:       (1 + 3/l2(4)) / (3 + 3/l2(3) + 1/l2(4)),
			recall10:   2.0 / 3,
			mrr:        1.0 / 3,
			strictNDCG: (1 + 3/l2(4)) / (3 + 3/l2(3) + 1/l2(4) + 1/l2(5)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Score(Query{ID: "q", AsOf: anchor, Judged: judged, Results: tt.results})
			for _, f := range []struct {
				name      string
				got, want float64
			}{{"NDCG10Group", p.NDCG10Group, tt.ndcg}, {"Recall10Group", p.Recall10Group, tt.recall10}, {"MRRGroup", p.MRRGroup, tt.mrr}, {"NDCG10", p.NDCG10, tt.strictNDCG}} {
				if !near(f.got, f.want) {
					t.Errorf("%s = %.6f, want %.6f", f.name, f.got, f.want)
				}
			}
		})
	}
}

func TestCollapse(t *testing.T) {
	tests := []struct {
		name string
		in   []Ranked
		want []Ranked
	}{
		{"nil", nil, []Ranked{}},
		{"no duplicates", list("a", "b"), list("a", "b")},
		{
			"first occurrence wins, in order",
			[]Ranked{{"a", ago(1), nil}, {"b", ago(2), nil}, {"a", ago(9), nil}, {"c", ago(3), nil}, {"b", ago(9), nil}},
			[]Ranked{{"a", ago(1), nil}, {"b", ago(2), nil}, {"c", ago(3), nil}},
		},
		{"all the same", list("a", "a", "a"), list("a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.in)
			if got := Collapse(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Collapse = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(before, tt.in) {
				t.Error("Collapse modified its input")
			}
		})
	}
}

// randomQuery is a query with up to 15 judged documents of random grades and a ranked list of
// up to 60 entries drawn from judged and unjudged ids, with repeats, published from 20 days
// before to 3 days after anchor.
func randomQuery(r *rand.Rand) Query {
	q := Query{ID: "rand", AsOf: anchor.Add(time.Duration(r.IntN(24*60)) * time.Minute)}
	for i := range r.IntN(16) {
		q.Judged = append(q.Judged, Judged{DocID: fmt.Sprintf("j%d", i), Grade: r.IntN(3)})
	}
	for range r.IntN(61) {
		id := fmt.Sprintf("u%d", r.IntN(40))
		if len(q.Judged) > 0 && r.IntN(2) == 0 {
			id = q.Judged[r.IntN(len(q.Judged))].DocID
		}
		at := anchor.Add(time.Duration(r.IntN(24*23)-24*20) * time.Hour)
		q.Results = append(q.Results, Ranked{DocID: id, PublishedAt: at})
	}
	return q
}

// idealList ranks every judged document by grade, best first.
func idealList(q Query) []Ranked {
	j := slices.Clone(q.Judged)
	slices.SortStableFunc(j, func(a, b Judged) int { return b.Grade - a.Grade })
	r := make([]Ranked, len(j))
	for i, x := range j {
		r[i] = Ranked{DocID: x.DocID, PublishedAt: ago(1)}
	}
	return r
}

func TestScoreProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		q := randomQuery(r)
		p := Score(q)
		for name, v := range map[string]float64{
			"nDCG@10": p.NDCG10, "recall@10": p.Recall10, "recall@50": p.Recall50,
			"MRR": p.MRR, "P@10": p.P10, "leakage@10": p.Leakage10,
		} {
			if !(v >= 0 && v <= 1) { // also rejects NaN
				t.Fatalf("query %d: %s = %v outside [0, 1]: %+v", i, name, v, q)
			}
		}
		if p.Recall10 > p.Recall50 {
			t.Fatalf("query %d: recall@10 %v > recall@50 %v", i, p.Recall10, p.Recall50)
		}
		if p.HasFresh != (p.FreshDays >= 0) || p.FreshDays > 21 { // oldest: 20 days before anchor, as of the next day
			t.Fatalf("query %d: fresh days %d, has fresh %v", i, p.FreshDays, p.HasFresh)
		}
		if !p.Valid && (p.NDCG10 != 0 || p.Recall10 != 0 || p.Recall50 != 0) {
			t.Fatalf("query %d: invalid query with scores %+v", i, p)
		}

		ideal := idealList(q)
		q.Results = ideal
		best := Score(q)
		if p.Valid && !near(best.NDCG10, 1) {
			t.Fatalf("query %d: nDCG of the ideal ordering = %v, want 1", i, best.NDCG10)
		}
		q.Results = slices.Clone(ideal)
		slices.Reverse(q.Results)
		if rev := Score(q); rev.NDCG10 > best.NDCG10+eps {
			t.Fatalf("query %d: reversing the ideal list raised nDCG %v → %v", i, best.NDCG10, rev.NDCG10)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	q := Query{ID: "bench", AsOf: anchor}
	for i := range 30 {
		q.Judged = append(q.Judged, Judged{DocID: fmt.Sprintf("j%d", i), Grade: r.IntN(3)})
	}
	for i := range 100 {
		q.Results = append(q.Results, Ranked{DocID: fmt.Sprintf("j%d", r.IntN(200)), PublishedAt: ago(i % 30)})
	}
	b.ReportAllocs()
	for b.Loop() {
		Score(q)
	}
}
