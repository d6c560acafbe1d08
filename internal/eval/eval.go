// Package eval scores ranked retrieval lists against graded, dated relevance judgments
// (qrels) as of an anchor date A, and aggregates the scores of a system over many queries.
//
// # Definitions
//
// A query is judged over its own search pool only, so a document that has no judgment
// counts as grade 0, not relevant: the usual pooled-evaluation assumption. Grades are
// 0 (not relevant), 1 (relevant) and 2 (highly relevant); a document "relevant" below has
// grade ≥ 1. When a document is judged twice, its highest grade counts; a negative grade
// counts as 0. Before scoring, Score collapses the ranked list (Collapse), so each document
// counts once, at its best rank; ranks are 1-based.
//
//   - nDCG@10 = DCG@10 / IDCG@10, with DCG@10 = Σ_{r=1..10} (2^grade(r) − 1) / log2(r + 1).
//     The ideal IDCG@10 ranks ALL judged documents of the query by grade, not only the
//     retrieved ones (docs/design.md §5 item 3), so a relevant document the system never found
//     lowers the score. A query without any relevant judged document has no IDCG: it is not
//     Valid and is left out of every retrieval average (Summary.Skipped counts it).
//   - Recall@k (k = 10, 50) = relevant judged documents in the top k / relevant judged
//     documents.
//   - MRR = 1 / rank of the first grade-2 document anywhere in the list (0 when none is
//     retrieved). A query without any grade-2 judged document is left out of the MRR average.
//   - P@10 = relevant documents in the top 10 / 10, even when fewer than 10 were retrieved.
//   - leakage@10 = documents of the top 10 published after the end of A's UTC calendar day /
//     min(10, retrieved); 0 for an empty list. A correct as-of system always scores 0.
//   - Group credit (NDCG10Group, Recall10Group, MRRGroup): a ranked item that stands for a
//     folded group of near-duplicates (Ranked.Group: the other documents folded into it) is
//     credited with its best member's grade, each judged document at most once. The ideal
//     ranking counts the relevant judged documents of one retrieved group as one unit with
//     their best grade (documents never retrieved stay units of their own), and recall counts
//     units with a member in the top 10. Without groups they equal the strict figures. They
//     measure what a reader of the folded context gets: realtimeqa judges each outlet's copy
//     of a story separately, so strict metrics charge folding for every copy it hides.
//   - freshest age = min over the top 10 documents not published after A's day of (A's UTC
//     day − the publication's UTC day), in whole days; absent (HasFresh false, −1) when the
//     top 10 holds no such document.
//
// Days are UTC calendar days throughout: a document published at 23:59:59.999 UTC on A's
// day is not a leak, one published at 00:00 UTC the next day is. The package is pure: it
// reads and writes nothing and knows nothing of retrieval, storage or Temporal.
package eval

import (
	"math"
	"slices"
	"time"

	"github.com/asofrag/asof/internal/asofday"
)

// Judged is one qrels row of a query: a document and its relevance grade (0, 1 or 2).
type Judged struct {
	// DocID identifies the judged document.
	DocID string
	// Grade is 0 (not relevant), 1 (relevant) or 2 (highly relevant).
	Grade int
}

// Ranked is one document of a system's ranked list.
type Ranked struct {
	// DocID identifies the document.
	DocID string
	// PublishedAt is when the document was published; its UTC calendar day is compared
	// with the anchor's.
	PublishedAt time.Time
	// Group lists the other documents folded into this one (near-duplicates), for the
	// group-credit metrics; empty when nothing was folded.
	Group []string
}

// Query is one evaluated query: its anchor, its judgments and what a system returned.
type Query struct {
	// ID identifies the query (a question_id).
	ID string
	// AsOf is the anchor (question_date); the end of its UTC calendar day is the cutoff
	// after which a document is a leak. It must be set: with a zero AsOf every result leaks.
	AsOf time.Time
	// Judged are the qrels rows of the query; documents not listed are grade 0.
	Judged []Judged
	// Results is the ranked list, best first, of any length. Repeated DocIDs (several
	// chunks of one document) count once, at the first rank (see Collapse).
	Results []Ranked
	// LatencyMS is how long the system took to answer, in milliseconds.
	LatencyMS float64
}

// Cutoffs of the metrics.
const (
	// K10 is the cutoff of nDCG, Recall@10, P@10, leakage and freshness.
	K10 = 10
	// K50 is the cutoff of Recall@50.
	K50 = 50
	// HighGrade is the grade whose first occurrence MRR looks for.
	HighGrade = 2
)

// PerQuery is the score of one query. Metrics that need a relevant judged document are 0
// when Valid is false, and MRR is 0 when HasGrade2 is false; Aggregate leaves them out.
type PerQuery struct {
	// ID is the query's ID.
	ID string `json:"id"`
	// Valid reports that the query has a judged document of grade ≥ 1, so nDCG and recall
	// are defined.
	Valid bool `json:"valid"`
	// HasGrade2 reports that the query has a judged document of grade 2, so MRR counts.
	HasGrade2 bool `json:"has_grade2"`
	// Relevant is how many distinct judged documents have grade ≥ 1.
	Relevant int `json:"relevant"`
	// Retrieved is how many distinct documents the collapsed list holds.
	Retrieved int `json:"retrieved"`
	// NDCG10 is nDCG@10 with the ideal ranking from all judged documents.
	NDCG10 float64 `json:"ndcg@10"`
	// Recall10 and Recall50 are the shares of relevant judged documents in the top 10 / 50.
	Recall10 float64 `json:"recall@10"`
	// Recall50 is the share of relevant judged documents in the top 50.
	Recall50 float64 `json:"recall@50"`
	// MRR is the reciprocal rank of the first grade-2 document in the whole list, 0 if none.
	MRR float64 `json:"mrr"`
	// P10 is the share of the top 10 that is relevant, always over 10.
	P10 float64 `json:"p@10"`
	// Leakage10 is the share of the top 10 (of min(10, Retrieved)) published after A's day.
	Leakage10 float64 `json:"leakage@10"`
	// Leaked is how many documents of the whole list were published after A's day.
	Leaked int `json:"leaked"`
	// FreshDays is the age in whole days at A of the freshest top-10 document not published
	// after A's day; −1 when there is none (HasFresh false).
	FreshDays int `json:"fresh_days"`
	// HasFresh reports that FreshDays is defined.
	HasFresh bool `json:"has_fresh"`
	// LatencyMS is copied from the query.
	LatencyMS float64 `json:"latency_ms"`
	// NDCG10Group, Recall10Group and MRRGroup are nDCG@10, Recall@10 and MRR with group
	// credit (see the package comment).
	NDCG10Group   float64 `json:"ndcg@10_group"`
	Recall10Group float64 `json:"recall@10_group"`
	MRRGroup      float64 `json:"mrr_group"`
}

// Collapse keeps the first occurrence of each DocID, in order: a document's rank becomes that
// of its best chunk. The input is not modified.
func Collapse(chunks []Ranked) []Ranked {
	seen := make(map[string]bool, len(chunks))
	out := make([]Ranked, 0, len(chunks))
	for _, c := range chunks {
		if seen[c.DocID] {
			continue
		}
		seen[c.DocID] = true
		out = append(out, c)
	}
	return out
}

// Score computes the metrics of one query (see the package comment for the definitions).
// The query is not modified.
func Score(q Query) PerQuery {
	grade := make(map[string]int, len(q.Judged))
	for _, j := range q.Judged {
		g := max(j.Grade, 0)
		if old, ok := grade[j.DocID]; !ok || g > old {
			grade[j.DocID] = g
		}
	}
	p := PerQuery{ID: q.ID, FreshDays: -1, LatencyMS: q.LatencyMS}
	var ideal []int
	for _, g := range grade {
		if g >= 1 {
			ideal = append(ideal, g)
			p.Relevant++
		}
		if g >= HighGrade {
			p.HasGrade2 = true
		}
	}
	p.Valid = p.Relevant > 0

	res := Collapse(q.Results)
	p.Retrieved = len(res)
	anchor := dayNumber(q.AsOf)
	var dcg float64
	var rel10, rel50, leak10 int
	for i, r := range res {
		rank := i + 1
		g := grade[r.DocID]
		age := anchor - dayNumber(r.PublishedAt)
		if age < 0 {
			p.Leaked++
		}
		if g >= HighGrade && p.MRR == 0 {
			p.MRR = 1 / float64(rank)
		}
		if rank <= K50 && g >= 1 {
			rel50++
		}
		if rank > K10 {
			continue
		}
		dcg += gain(g) / math.Log2(float64(rank+1))
		if g >= 1 {
			rel10++
		}
		if age < 0 {
			leak10++
		} else if !p.HasFresh || age < int64(p.FreshDays) {
			p.FreshDays, p.HasFresh = int(age), true
		}
	}
	p.P10 = float64(rel10) / K10
	if n := min(K10, len(res)); n > 0 {
		p.Leakage10 = float64(leak10) / float64(n)
	}
	if p.Valid {
		slices.SortFunc(ideal, func(a, b int) int { return b - a })
		var idcg float64
		for i, g := range ideal[:min(K10, len(ideal))] {
			idcg += gain(g) / math.Log2(float64(i+2))
		}
		p.NDCG10 = dcg / idcg
		p.Recall10 = float64(rel10) / float64(p.Relevant)
		p.Recall50 = float64(rel50) / float64(p.Relevant)
	}
	p.NDCG10Group, p.Recall10Group, p.MRRGroup = groupCredit(grade, res)
	return p
}

// groupCredit is nDCG@10, Recall@10 and MRR with each ranked item credited with the best
// grade among itself and its Group, each judged document once; the ideal and the recall count
// the relevant documents of one retrieved group as one unit. All are 0 without a relevant
// judged document.
func groupCredit(grade map[string]int, res []Ranked) (ndcg, recall10, mrr float64) {
	unit := map[string]int{} // retrieved relevant judged document → its unit: the first item holding it
	for i, r := range res {
		for _, id := range append([]string{r.DocID}, r.Group...) {
			if _, seen := unit[id]; !seen && grade[id] >= 1 {
				unit[id] = i
			}
		}
	}
	units := map[int]int{} // retrieved unit → best grade
	var ideal []int
	for id, g := range grade {
		if g < 1 {
			continue
		}
		i, ok := unit[id]
		if !ok {
			ideal = append(ideal, g) // never retrieved: a unit of its own
			continue
		}
		units[i] = max(units[i], g)
	}
	if len(ideal)+len(units) == 0 {
		return 0, 0, 0
	}
	var dcg float64
	found10 := 0
	for i := range res {
		g, ok := units[i]
		if !ok {
			continue
		}
		ideal = append(ideal, g)
		rank := i + 1
		if g >= HighGrade && mrr == 0 {
			mrr = 1 / float64(rank)
		}
		if rank <= K10 {
			dcg += gain(g) / math.Log2(float64(rank+1))
			found10++
		}
	}
	slices.SortFunc(ideal, func(a, b int) int { return b - a })
	var idcg float64
	for i, g := range ideal[:min(K10, len(ideal))] {
		idcg += gain(g) / math.Log2(float64(i+2))
	}
	return dcg / idcg, float64(found10) / float64(len(ideal)), mrr
}

// gain is 2^grade − 1, 0 for grade ≤ 0.
func gain(grade int) float64 {
	if grade <= 0 {
		return 0
	}
	return math.Exp2(float64(grade)) - 1
}

// dayNumber is t's UTC calendar day counted from 1970-01-01 (asofday.Number).
func dayNumber(t time.Time) int64 { return asofday.Number(t) }
