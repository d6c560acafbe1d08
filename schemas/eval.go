package schemas

import "time"

// EvalQuestion is one dated question (realtimeqa questions.parquet; other columns ignored).
type EvalQuestion struct {
	QuestionID   string    `parquet:"question_id" json:"question_id"`
	QuestionDate time.Time `parquet:"question_date,timestamp(millisecond)" json:"question_date"`
	Question     string    `parquet:"question" json:"question"`
}

// Qrel is one graded judgement (realtimeqa qrels.parquet): grade 2 names the answer and was
// published 0–14 days before the question, grade 1 15–365 days before, 0 not relevant.
type Qrel struct {
	QuestionID string `parquet:"question_id" json:"question_id"`
	DocID      string `parquet:"doc_id" json:"doc_id"`
	Grade      int32  `parquet:"grade" json:"grade"`
	DaysBefore int32  `parquet:"days_before" json:"days_before"`
}

// EvalQuery is one dated query without judgements (tg-finance-ru queries.parquet): evaluated
// for the freshness of the context each system builds.
type EvalQuery struct {
	QueryID    string    `parquet:"query_id" json:"query_id"`
	Query      string    `parquet:"query" json:"query"`
	QueryType  string    `parquet:"query_type,optional" json:"query_type,omitempty"`
	AnchorDate time.Time `parquet:"anchor_date,timestamp(millisecond)" json:"anchor_date"`
}

// EvalRowVersion is the version of EvalRow.
const EvalRowVersion = 1

// EvalRow is one question answered by one system (per_query.parquet).
type EvalRow struct {
	System     string    `parquet:"system" json:"system"`
	QuestionID string    `parquet:"question_id" json:"question_id"`
	AsOf       time.Time `parquet:"as_of,timestamp(millisecond)" json:"as_of"`
	// Valid is false for a question without any relevant judged document (left out of means).
	Valid     bool    `parquet:"valid" json:"valid"`
	HasGrade2 bool    `parquet:"has_grade2" json:"has_grade2"`
	NDCG10    float64 `parquet:"ndcg10" json:"ndcg@10"`
	Recall10  float64 `parquet:"recall10" json:"recall@10"`
	Recall50  float64 `parquet:"recall50" json:"recall@50"`
	MRR       float64 `parquet:"mrr" json:"mrr"`
	P10       float64 `parquet:"p10" json:"p@10"`
	Leakage10 float64 `parquet:"leakage10" json:"leakage@10"`
	// Leaked counts results anywhere in the list published after the anchor day.
	Leaked int32 `parquet:"leaked" json:"leaked"`
	// FreshDays is the age at the anchor of the freshest top-10 result (-1: none).
	FreshDays float64 `parquet:"fresh_days" json:"fresh_days"`
	LatencyMS float64 `parquet:"latency_ms" json:"latency_ms"`
	// NDCG10Group, Recall10Group and MRRGroup credit a folded result with its best member's
	// grade (internal/eval); equal to the strict figures for systems that fold nothing.
	NDCG10Group   float64 `parquet:"ndcg10_group" json:"ndcg@10_group"`
	Recall10Group float64 `parquet:"recall10_group" json:"recall@10_group"`
	MRRGroup      float64 `parquet:"mrr_group" json:"mrr_group"`
	// Context freshness: the built context (deduplicated, 30 documents, 75% hot) as of the
	// anchor: the freshest document's age (-1: empty context), the shares within 7 and 30
	// days, distinct publication days and documents.
	CtxFreshestDays  float64 `parquet:"ctx_freshest_days" json:"ctx_freshest_days"`
	CtxWithin7       float64 `parquet:"ctx_within7" json:"ctx_within7"`
	CtxWithin30      float64 `parquet:"ctx_within30" json:"ctx_within30"`
	CtxDistinctDates int32   `parquet:"ctx_distinct_dates" json:"ctx_distinct_dates"`
	CtxDocs          int32   `parquet:"ctx_docs" json:"ctx_docs"`
	// Top10 lists the ranked document ids, best first.
	Top10 []string `parquet:"top10,list" json:"top10"`
	// Ranked lists every scored document id (up to 50), best first: the list `asof ask --k 50`
	// returns for the same question and options.
	Ranked []string `parquet:"ranked,list" json:"ranked"`
	// Reading is the kind of reading auto searched (answer.Kinds: plain, look-back, fresh,
	// past, period, …); empty for fixed systems.
	Reading string `parquet:"reading,optional" json:"reading,omitempty"`
}
