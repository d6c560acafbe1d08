package schemas

import "time"

// StudyAnswer is one published answer of the Telegram temporal-RAG study
// (tg-finance-ru study-answers.parquet): a system's context and summary for one query, and the
// 1–5 rubric scores its LLM judge gave (nil: missing).
type StudyAnswer struct {
	System        string    `parquet:"system" json:"system"`
	QueryID       string    `parquet:"query_id" json:"query_id"`
	Query         string    `parquet:"query" json:"query"`
	QueryType     string    `parquet:"query_type,optional" json:"query_type,omitempty"`
	AnchorDate    time.Time `parquet:"anchor_date,timestamp(microsecond)" json:"anchor_date"`
	Context       string    `parquet:"context,optional" json:"context"`
	Summary       *string   `parquet:"summary,optional" json:"summary"`
	Relevance     *float64  `parquet:"relevance,optional" json:"relevance"`
	Groundedness  *float64  `parquet:"groundedness,optional" json:"groundedness"`
	FactsNumbers  *float64  `parquet:"facts_numbers,optional" json:"facts_numbers"`
	DatesTimeline *float64  `parquet:"dates_timeline,optional" json:"dates_timeline"`
	Recency       *float64  `parquet:"recency,optional" json:"recency"`
}

// SummaryEvalRowVersion is the version of SummaryEvalRow.
const SummaryEvalRowVersion = 2

// SummaryEvalRow is one summary scored by the summaries evaluation (per_answer.parquet): the
// study's Table 3 date figures, the citation checks and the rubric. A nil figure could not be
// computed (no dated block, no summary date) or was not judged.
type SummaryEvalRow struct {
	System           string   `parquet:"system" json:"system"`
	QueryID          string   `parquet:"query_id" json:"query_id"`
	Query            string   `parquet:"query" json:"query"`
	RunID            string   `parquet:"run_id,optional" json:"run_id,omitempty"`
	Dates            int32    `parquet:"dates" json:"dates"`
	MinAgeContext    *float64 `parquet:"min_age_context_days,optional" json:"min_age_context_days"`
	MinAgeSummary    *float64 `parquet:"min_age_summary_days,optional" json:"min_age_summary_days"`
	Gap              *float64 `parquet:"gap_days,optional" json:"gap_days"`
	Within7          *float64 `parquet:"within_7d,optional" json:"within_7d"`
	Within30         *float64 `parquet:"within_30d,optional" json:"within_30d"`
	Claims           int32    `parquet:"claims" json:"claims"`
	Cited            int32    `parquet:"cited_claims" json:"cited_claims"`
	BadCitations     int32    `parquet:"bad_citations" json:"bad_citations"`
	DatesChecked     int32    `parquet:"dates_checked" json:"dates_checked"`
	DatesUnsupported int32    `parquet:"dates_unsupported" json:"dates_unsupported"`
	Relevance        *float64 `parquet:"relevance,optional" json:"relevance"`
	Groundedness     *float64 `parquet:"groundedness,optional" json:"groundedness"`
	FactsNumbers     *float64 `parquet:"facts_numbers,optional" json:"facts_numbers"`
	DatesTimeline    *float64 `parquet:"dates_timeline,optional" json:"dates_timeline"`
	Recency          *float64 `parquet:"recency,optional" json:"recency"`
	Overall          *float64 `parquet:"overall,optional" json:"overall"`
	Error            string   `parquet:"error,optional" json:"error,omitempty"`
	// Lead, Support, CitedDocs, CitedRelevant and CitedUnjudged score the summary against
	// judgements (eval --summaries with --qrels; sumeval.LeadOf): nil without them. Lead and
	// Support are nil too when the question has no grade-2 document.
	Lead          *bool  `parquet:"summary_lead,optional" json:"summary_lead,omitempty"`
	Support       *bool  `parquet:"summary_support,optional" json:"summary_support,omitempty"`
	CitedDocs     *int32 `parquet:"cited_docs,optional" json:"cited_docs,omitempty"`
	CitedRelevant *int32 `parquet:"cited_relevant,optional" json:"cited_relevant,omitempty"`
	CitedUnjudged *int32 `parquet:"cited_unjudged,optional" json:"cited_unjudged,omitempty"`
}
