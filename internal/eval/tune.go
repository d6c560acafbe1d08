package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Axis is one parameter of a sweep and the values it takes, e.g. {"wt", ["0.3", "0.6", "1"]}.
type Axis struct {
	Key    string
	Values []string
}

// ParseAxis reads "key=v1,v2,…".
func ParseAxis(s string) (Axis, error) {
	k, vs, ok := strings.Cut(s, "=")
	if !ok || k == "" || vs == "" {
		return Axis{}, fmt.Errorf("grid axis %q is not key=v1,v2,…", s)
	}
	a := Axis{Key: k}
	for v := range strings.SplitSeq(vs, ",") {
		if v == "" || slices.Contains(a.Values, v) {
			return Axis{}, fmt.Errorf("grid axis %q: empty or repeated value", s)
		}
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// Grid is every combination of the axes' values as system names "base@k1=v,k2=v,…", the
// first axis varying slowest. Axes with the same key are refused.
func Grid(base string, axes []Axis) ([]string, error) {
	names := []string{""}
	for i, a := range axes {
		if slices.ContainsFunc(axes[:i], func(b Axis) bool { return b.Key == a.Key }) {
			return nil, fmt.Errorf("grid: key %q given twice", a.Key)
		}
		var next []string
		for _, n := range names {
			for _, v := range a.Values {
				sep := ","
				if n == "" {
					sep = ""
				}
				next = append(next, n+sep+a.Key+"="+v)
			}
		}
		names = next
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = base + "@" + n
	}
	return out, nil
}

// Span is a range of question days [From, To], both inclusive (zero: open).
type Span struct {
	Name     string
	From, To time.Time
}

// Holds reports whether a question dated t falls in the span.
func (s Span) Holds(t time.Time) bool {
	d := dayNumber(t)
	return (s.From.IsZero() || d >= dayNumber(s.From)) && (s.To.IsZero() || d <= dayNumber(s.To))
}

// Scored is one question's score by one system, with the question's date.
type Scored struct {
	System string
	AsOf   time.Time
	PerQuery
}

// SplitScore is a system's means over one span's questions: NDCG10 over the Valid ones (every
// judged question with a relevant document), NDCG10G2 over those with a grade-2 document (the
// held-back set's headline figure), MRR over those too.
type SplitScore struct {
	Questions   int     `json:"questions"`
	G2Questions int     `json:"g2_questions"`
	NDCG10      float64 `json:"ndcg@10"`
	NDCG10G2    float64 `json:"ndcg@10_g2"`
	MRR         float64 `json:"mrr"`
	Recall10    float64 `json:"recall@10"`
	NDCG10Group float64 `json:"ndcg@10_group"`
	Leakage10   float64 `json:"leakage@10"`
}

// Objectives of Tune: what the choose span's ranking maximizes.
const (
	// ObjectiveBoth is the mean of nDCG@10 over grade-2 questions and over every judged
	// question: the two goals at once (the default).
	ObjectiveBoth = "both"
	// ObjectiveG2 is nDCG@10 over questions with a grade-2 document.
	ObjectiveG2 = "g2"
	// ObjectiveAll is nDCG@10 over every judged question.
	ObjectiveAll = "all"
)

// Objectives lists the objectives.
var Objectives = []string{ObjectiveBoth, ObjectiveG2, ObjectiveAll}

// Objective is the figure objective names, of s.
func (s SplitScore) Objective(objective string) float64 {
	switch objective {
	case ObjectiveG2:
		return s.NDCG10G2
	case ObjectiveAll:
		return s.NDCG10
	}
	return (s.NDCG10G2 + s.NDCG10) / 2
}

// Tuned is a system scored on the span it is chosen on and the span that confirms it.
type Tuned struct {
	System  string     `json:"system"`
	Choose  SplitScore `json:"choose"`
	Confirm SplitScore `json:"confirm"`
}

// Tune scores every system on both spans and orders them by the choose span's objective (see
// the Objective constants), then its MRR, then name: the first is the one to choose, and its
// Confirm figures say whether the choice holds on questions it was not chosen on.
func Tune(rows []Scored, systems []string, choose, confirm Span, objective string) []Tuned {
	by := map[string][]Scored{}
	for _, r := range rows {
		by[r.System] = append(by[r.System], r)
	}
	out := make([]Tuned, 0, len(systems))
	for _, s := range systems {
		out = append(out, Tuned{System: s, Choose: splitScore(by[s], choose), Confirm: splitScore(by[s], confirm)})
	}
	slices.SortStableFunc(out, func(a, b Tuned) int {
		return cmp.Or(cmp.Compare(b.Choose.Objective(objective), a.Choose.Objective(objective)), cmp.Compare(b.Choose.MRR, a.Choose.MRR), cmp.Compare(a.System, b.System))
	})
	return out
}

func splitScore(rows []Scored, s Span) SplitScore {
	var out SplitScore
	for _, r := range rows {
		if !r.Valid || !s.Holds(r.AsOf) {
			continue
		}
		out.Questions++
		out.NDCG10 += r.NDCG10
		out.Recall10 += r.Recall10
		out.NDCG10Group += r.NDCG10Group
		out.Leakage10 += r.Leakage10
		if r.HasGrade2 {
			out.G2Questions++
			out.NDCG10G2 += r.NDCG10
			out.MRR += r.MRR
		}
	}
	if n := float64(out.Questions); n > 0 {
		out.NDCG10 /= n
		out.Recall10 /= n
		out.NDCG10Group /= n
		out.Leakage10 /= n
	}
	if n := float64(out.G2Questions); n > 0 {
		out.NDCG10G2 /= n
		out.MRR /= n
	}
	return out
}
