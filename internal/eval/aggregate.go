package eval

import (
	"math"
	"slices"
)

// Summary is a system's scores over a set of queries.
//
// The retrieval metrics (NDCG10, Recall10, Recall50, P10, Leakage10) are means over the
// Valid queries, and FreshDaysMedian is the median over the Valid queries that have a fresh
// document, so that every system is compared on the same judged questions. MRR is the mean
// over the queries with a grade-2 judged document (MRRQuestions of them). Latency
// percentiles and LeakedQuestions cover every query given, judged or not. With no query to
// average, a mean is 0 and FreshDaysMedian is −1; a Summary never holds NaN, so it always
// encodes as JSON.
type Summary struct {
	// System names the evaluated system.
	System string `json:"system"`
	// NDCG10 is the mean nDCG@10 over Valid queries.
	NDCG10 float64 `json:"ndcg@10"`
	// Recall10 is the mean Recall@10 over Valid queries.
	Recall10 float64 `json:"recall@10"`
	// Recall50 is the mean Recall@50 over Valid queries.
	Recall50 float64 `json:"recall@50"`
	// MRR is the mean MRR over queries with a grade-2 judged document.
	MRR float64 `json:"mrr"`
	// P10 is the mean P@10 over Valid queries.
	P10 float64 `json:"p@10"`
	// Leakage10 is the mean leakage@10 over Valid queries; it must be 0.
	Leakage10 float64 `json:"leakage@10"`
	// FreshDaysMedian is the median freshest age in days over Valid queries with a fresh
	// document (the mean of the two middle values for an even count); −1 when there is none.
	FreshDaysMedian float64 `json:"fresh_days_median"`
	// LatencyMSP50 is the nearest-rank 50th percentile of LatencyMS over all queries.
	LatencyMSP50 float64 `json:"latency_ms_p50"`
	// LatencyMSP95 is the nearest-rank 95th percentile of LatencyMS over all queries.
	LatencyMSP95 float64 `json:"latency_ms_p95"`
	// Questions is how many queries were evaluated: the Valid ones.
	Questions int `json:"questions"`
	// Skipped is how many queries have no relevant judged document (not Valid).
	Skipped int `json:"skipped"`
	// MRRQuestions is how many queries have a grade-2 judged document and count for MRR;
	// the other Questions are left out of MRR.
	MRRQuestions int `json:"mrr_questions"`
	// LeakedQuestions is how many queries, Valid or not, retrieved at least one document
	// published after their anchor day anywhere in the list; it must be 0.
	LeakedQuestions int `json:"leaked_questions"`
	// NDCG10Group, Recall10Group (over Valid queries) and MRRGroup (over MRRQuestions) are
	// the group-credit means (see the package comment).
	NDCG10Group   float64 `json:"ndcg@10_group"`
	Recall10Group float64 `json:"recall@10_group"`
	MRRGroup      float64 `json:"mrr_group"`
}

// Aggregate summarizes the per-query scores qs of the system name (see Summary for which
// queries each figure covers). qs is not modified.
func Aggregate(name string, qs []PerQuery) Summary {
	s := Summary{System: name, FreshDaysMedian: -1}
	var fresh, latency []float64
	for _, q := range qs {
		latency = append(latency, q.LatencyMS)
		if q.Leaked > 0 {
			s.LeakedQuestions++
		}
		if !q.Valid {
			s.Skipped++
			continue
		}
		s.Questions++
		s.NDCG10 += q.NDCG10
		s.Recall10 += q.Recall10
		s.Recall50 += q.Recall50
		s.P10 += q.P10
		s.Leakage10 += q.Leakage10
		s.NDCG10Group += q.NDCG10Group
		s.Recall10Group += q.Recall10Group
		if q.HasGrade2 {
			s.MRRQuestions++
			s.MRR += q.MRR
			s.MRRGroup += q.MRRGroup
		}
		if q.HasFresh {
			fresh = append(fresh, float64(q.FreshDays))
		}
	}
	if n := float64(s.Questions); n > 0 {
		s.NDCG10 /= n
		s.Recall10 /= n
		s.Recall50 /= n
		s.P10 /= n
		s.Leakage10 /= n
		s.NDCG10Group /= n
		s.Recall10Group /= n
	}
	if s.MRRQuestions > 0 {
		s.MRR /= float64(s.MRRQuestions)
		s.MRRGroup /= float64(s.MRRQuestions)
	}
	if len(fresh) > 0 {
		s.FreshDaysMedian = Median(fresh)
	}
	s.LatencyMSP50 = Percentile(latency, 50)
	s.LatencyMSP95 = Percentile(latency, 95)
	return s
}

// Percentile is the nearest-rank p-th percentile of values: the smallest value such that at
// least p% of the values are ≤ it, i.e. the ⌈p·n/100⌉-th smallest (1-based). p ≤ 0 gives the
// minimum and p ≥ 100 the maximum; no values give 0. The result is always one of the values
// (no interpolation). values is not modified.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return nearestRank(s, p)
}

// nearestRank is Percentile over already sorted, non-empty values.
func nearestRank(sorted []float64, p float64) float64 {
	n := len(sorted)
	// p·n first: exact for integer p and n, so 95·20/100 is 19, not 19.000000000000004.
	rank := int(math.Ceil(p * float64(n) / 100))
	return sorted[min(max(rank, 1), n)-1]
}

// Median is the middle of values, or the mean of the two middle values for an even count;
// 0 for no values. values is not modified.
func Median(values []float64) float64 {
	n := len(values)
	if n == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
