package evalrun

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/schemas"
)

// Summary is an evaluation's rows aggregated per system (summary.json's figures, under the
// names summary.json gives them).
type Summary struct {
	// Systems are the retrieval metrics per system (empty for an unlabelled query set).
	Systems map[string]eval.Summary `json:"systems"`
	// Freshness is the built context's freshness per system.
	Freshness map[string]eval.FreshnessSummary `json:"freshness"`
	// Top10FreshestDaysMean is, per system, the mean age at the anchor of the freshest of the
	// top 10 results, over the questions whose top 10 has a document not after the anchor; a
	// system without such a question has no entry.
	Top10FreshestDaysMean map[string]float64 `json:"top10_freshest_days_mean"`
	// Readings are, for each auto system, the questions each kind of reading took and their
	// nDCG@10 beside the fixed recency system's on the same questions (Readings).
	Readings []ReadingRow `json:"readings,omitempty"`
}

// ReadingRow is one kind of auto reading in one evaluation: how many judged questions it
// took, auto's mean nDCG@10 on them, and the baseline's (temporal_rrf, what auto serves where
// the intent is unclear; with its +dedup suffix for auto+dedup) when it was evaluated.
type ReadingRow struct {
	System    string  `json:"system"`
	Reading   string  `json:"reading"`
	Questions int     `json:"questions"`
	NDCG10    float64 `json:"ndcg@10"`
	Baseline  string  `json:"baseline,omitempty"`
	// BaselineNDCG10 is the baseline's mean nDCG@10 on the same questions.
	BaselineNDCG10 float64 `json:"baseline_ndcg@10,omitempty"`
}

// Readings groups each auto system's valid rows by their reading (schemas.EvalRow.Reading),
// kinds in order of first appearance, with temporal_rrf (temporal_rrf+dedup for an auto+dedup
// system) as the baseline where systems has it.
func Readings(rows []schemas.EvalRow, systems []string) []ReadingRow {
	type key struct{ system, q string }
	ndcg := map[key]float64{}
	for _, r := range rows {
		if r.Valid {
			ndcg[key{r.System, r.QuestionID}] = r.NDCG10
		}
	}
	var out []ReadingRow
	for _, name := range systems {
		base, isAuto := strings.CutPrefix(name, "auto")
		if !isAuto || strings.Contains(name, "@") {
			continue
		}
		baseline := "temporal_rrf" + base
		if !slices.Contains(systems, baseline) {
			baseline = ""
		}
		at := map[string]int{}
		var rs []ReadingRow
		for _, r := range rows {
			if r.System != name || !r.Valid {
				continue
			}
			i, ok := at[r.Reading]
			if !ok {
				i = len(rs)
				at[r.Reading] = i
				rs = append(rs, ReadingRow{System: name, Reading: r.Reading, Baseline: baseline})
			}
			rs[i].Questions++
			rs[i].NDCG10 += r.NDCG10
			if baseline != "" {
				rs[i].BaselineNDCG10 += ndcg[key{baseline, r.QuestionID}]
			}
		}
		for i := range rs {
			rs[i].NDCG10 /= float64(rs[i].Questions)
			rs[i].BaselineNDCG10 /= float64(rs[i].Questions)
		}
		out = append(out, rs...)
	}
	return out
}

// SummaryFile is a retrieval evaluation's summary.json (layout.EvalSummaryKey).
type SummaryFile struct {
	Index     string `json:"index"`
	EvalID    string `json:"eval_id"`
	Questions int    `json:"questions"`
	// Summary's figures are per system; Freshness the only ones of an unlabelled query set.
	Summary
	// Unlabelled is set for a query set without judgements.
	Unlabelled bool `json:"unlabelled,omitempty"`
	// Order lists the systems as asked.
	Order []string `json:"order"`
}

// Tables renders s as the Markdown tables `asof eval` prints, one row per system of order:
// the retrieval metrics (not for an unlabelled query set), then the context's freshness.
func Tables(s Summary, order []string, unlabelled bool) string {
	var b strings.Builder
	if !unlabelled {
		b.WriteString("| system | nDCG@10 | R@10 | R@50 | MRR | P@10 | leak@10 | fresh days (median) | p50 ms | p95 ms | questions |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, name := range order {
			m := s.Systems[name]
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.1f | %.1f | %d |\n", name, m.NDCG10, m.Recall10, m.Recall50, m.MRR, m.P10,
				m.Leakage10, m.FreshDaysMedian, m.LatencyMSP50, m.LatencyMSP95, m.Questions)
		}
		b.WriteString("\n")
		if len(s.Readings) > 0 {
			b.WriteString("How auto read the questions (nDCG@10 of each kind of reading, beside the fixed recency system's on the same questions):\n\n")
			b.WriteString("| system | reading | questions | nDCG@10 | baseline | baseline nDCG@10 |\n|---|---|---|---|---|---|\n")
			for _, r := range s.Readings {
				base := "—"
				if r.Baseline != "" {
					base = fmt.Sprintf("%.3f", r.BaselineNDCG10)
				}
				fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %s | %s |\n", r.System, cmp.Or(r.Reading, "(explicit)"), r.Questions, r.NDCG10, cmp.Or(r.Baseline, "—"), base)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("Context freshness (the 30-document context each system builds, duplicates folded):\n\n")
	b.WriteString("| system | freshest of top 10, days (mean) | freshest in context, days (mean) | context within 7 days | within 30 days | distinct dates | queries |\n|---|---|---|---|---|---|---|\n")
	for _, name := range order {
		m := s.Freshness[name]
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2f | %.2f | %.1f | %d |\n", name, s.Top10FreshestDaysMean[name], m.FreshestDaysMean, m.Within7Mean, m.Within30Mean, m.DistinctDatesMean, m.Queries)
	}
	return b.String()
}

// Summarize aggregates rows per system, for each of systems (a system without rows is
// aggregated over none). An unlabelled query set has no relevance metrics: freshness only.
func Summarize(rows []schemas.EvalRow, systems []string, unlabelled bool) Summary {
	sum := Summary{Systems: map[string]eval.Summary{}, Freshness: map[string]eval.FreshnessSummary{}, Top10FreshestDaysMean: map[string]float64{}}
	for _, name := range systems {
		var pqs []eval.PerQuery
		var fs []eval.Freshness
		for _, r := range rows {
			if r.System == name {
				pqs = append(pqs, perQuery(r))
				fs = append(fs, eval.Freshness{FreshestDays: r.CtxFreshestDays, HasFresh: r.CtxFreshestDays >= 0, Within7: r.CtxWithin7,
					Within30: r.CtxWithin30, DistinctDates: int(r.CtxDistinctDates), Docs: int(r.CtxDocs)})
			}
		}
		if !unlabelled {
			sum.Systems[name] = eval.Aggregate(name, pqs)
		}
		var tot float64
		n := 0
		for _, p := range pqs {
			if p.HasFresh {
				tot += float64(p.FreshDays)
				n++
			}
		}
		if n > 0 {
			sum.Top10FreshestDaysMean[name] = tot / float64(n)
		}
		sum.Freshness[name] = eval.AggregateFreshness(name, fs)
	}
	if !unlabelled {
		sum.Readings = Readings(rows, systems)
	}
	return sum
}

// perQuery reads a per_query.parquet row back as the scores eval.Aggregate takes.
func perQuery(r schemas.EvalRow) eval.PerQuery {
	return eval.PerQuery{ID: r.QuestionID, Valid: r.Valid, HasGrade2: r.HasGrade2, NDCG10: r.NDCG10, Recall10: r.Recall10,
		Recall50: r.Recall50, MRR: r.MRR, P10: r.P10, Leakage10: r.Leakage10, Leaked: int(r.Leaked), FreshDays: int(r.FreshDays), HasFresh: r.FreshDays >= 0,
		LatencyMS: r.LatencyMS, NDCG10Group: r.NDCG10Group, Recall10Group: r.Recall10Group, MRRGroup: r.MRRGroup}
}
