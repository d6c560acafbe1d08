package schemas

import "time"

// AnswerVersion is the version of Answer (runs/<run-id>/answer.json).
const AnswerVersion = 1

// Answer is what one as-of question returned: how the query was read, the ranked results with
// the evidence of every branch, the context handed to the summarizer, and the summary. It is
// written to runs/<run-id>/answer.json and printed by `asof ask --json`.
type Answer struct {
	Version int    `json:"version"`
	RunID   string `json:"run_id"`
	Index   string `json:"index"`
	// ManifestSeq is the index version the answer was computed on.
	ManifestSeq int       `json:"manifest_seq"`
	Query       string    `json:"query"`
	AsOf        time.Time `json:"as_of"`
	// Mode is the ranking mode used (recency, decay, window, evolution, …).
	Mode string `json:"mode"`
	// Interpretation says how the query was read ("window 2015-01-01..2015-12-31 (from "in 2015")").
	Interpretation string `json:"interpretation"`
	// Reading is the kind of reading auto chose (plain, look-back, fresh, past, past-period,
	// period, ongoing, window, soft, future, evolution); empty for an explicit mode.
	Reading string `json:"reading,omitempty"`
	// SearchText is the text BM25 and the embedder saw (the query without its date phrases).
	SearchText string `json:"search_text"`
	// From and To bound the documents that could be returned (inclusive); From is left out
	// when there is no start (a standing index, evolution's history).
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to"`
	// Message explains an empty answer ("no documents in that period").
	Message string `json:"message,omitempty"`
	// Standing says, when the index holds standing texts (regulations, circulars: in force
	// until superseded), what the answer used of them: "12 standing texts in force on
	// 2019-05-01; 1 superseded text and 1 not yet in force left out".
	Standing string         `json:"standing,omitempty"`
	Results  []AnswerResult `json:"results"`
	// Context is the dated, numbered evidence the summary cites ([i] = Blocks[i-1]).
	Context string         `json:"context"`
	Blocks  []ContextBlock `json:"blocks"`
	// Summary is Markdown; SummaryMethod says how it was made ("extractive", or an LLM's name).
	Summary       string `json:"summary"`
	SummaryMethod string `json:"summary_method"`
	// Brief is the summary in structured form (claims with dates and citations).
	Brief  *Brief       `json:"brief,omitempty"`
	Judge  *JudgeReport `json:"judge,omitempty"`
	Counts AnswerCounts `json:"counts"`
}

// AnswerResult is one ranked result (a document's best chunk, duplicates folded in).
type AnswerResult struct {
	Rank        int       `json:"rank"`
	DocID       string    `json:"doc_id"`
	ChunkID     string    `json:"chunk_id"`
	PublishedAt time.Time `json:"published_at"`
	Source      string    `json:"source"`
	Title       string    `json:"title"`
	URL         string    `json:"url,omitempty"`
	Score       float64   `json:"score"`
	// RankDense, RankBM25 and RankTime are the 1-based ranks in each branch (0: not ranked).
	RankDense int     `json:"rank_dense"`
	RankBM25  int     `json:"rank_bm25"`
	RankTime  int     `json:"rank_time"`
	Cosine    float64 `json:"cosine"`
	BM25      float64 `json:"bm25"`
	// Exact counts the query's identifiers (a circular number, a provision, an instrument) the
	// result holds as a whole; such results rank first (docs/retrieval.md).
	Exact int `json:"exact,omitempty"`
	// Group is "then" or "now" in evolution mode.
	Group string `json:"group,omitempty"`
	// Period names the period of a comparison it was found for ("2021", "2020-03", "now"):
	// a question comparing named periods searches each on its own.
	Period string `json:"period,omitempty"`
	// Duplicates is how many other chunks (reposts, near-duplicates) were folded into this
	// one; Sources lists every source that carried it.
	Duplicates int      `json:"duplicates"`
	Sources    []string `json:"sources"`
	// Fragments is how many posts of one source close in time were merged into this result
	// (--cluster-gap; 1 otherwise).
	Fragments int    `json:"fragments"`
	Snippet   string `json:"snippet"`
	// Relevance is the judge's grade (0, 1, 2); nil when it was not judged.
	Relevance *int `json:"relevance,omitempty"`
	// Kind is "standing" for a text in force until superseded (empty: news). Version is the
	// document's version when it is not its first (an edit or correction published on
	// PublishedAt). EffectiveAt is when a standing text came into force, when not on its
	// publication.
	Kind        string     `json:"kind,omitempty"`
	Version     int32      `json:"version,omitempty"`
	EffectiveAt *time.Time `json:"effective_at,omitempty"`
	// Superseded, when set, says the text was no longer current as of the answer's day: shown as
	// history (evolution), or ranked after the later text that restates it.
	Superseded *Supersession `json:"superseded,omitempty"`
}

// Supersession says what superseded a text, from when, and how asof knows it.
type Supersession struct {
	By string    `json:"by"`
	On time.Time `json:"on"`
	// Basis is column, stated, provision, revised or restated (internal/lifecycle); Soft is
	// set for an inferred restatement, which ranks the text after its restatement but does
	// not hide it.
	Basis  string `json:"basis"`
	Detail string `json:"detail,omitempty"`
	Soft   bool   `json:"soft,omitempty"`
}

// ContextBlock is one numbered block of the context.
type ContextBlock struct {
	N           int       `json:"n"`
	DocID       string    `json:"doc_id"`
	PublishedAt time.Time `json:"published_at"`
	Sources     []string  `json:"sources"`
	Title       string    `json:"title"`
	Snippet     string    `json:"snippet"`
	Hot         bool      `json:"hot"`
	URL         string    `json:"url,omitempty"`
	// Group is "then" or "now" in evolution mode.
	Group string `json:"group,omitempty"`
	// Folded are the documents folded into this one as near-duplicates (reposts, other
	// outlets' copies), for evaluation's group credit.
	Folded []string `json:"folded,omitempty"`
	// Shown is the number the summary cites this block by: the summary numbers what it cites
	// 1..n in the order it shows them (render.NumberingOf), not by N; 0 when it does not cite it.
	Shown int `json:"shown,omitempty"`
}

// AnswerCounts say how much evidence was looked at.
type AnswerCounts struct {
	// ShardsSearched were loaded; ShardsSkipped lay wholly outside the time mask.
	ShardsSearched int `json:"shards_searched"`
	ShardsSkipped  int `json:"shards_skipped"`
	// Allowed chunks passed the as-of mask; Candidates were ranked by some branch;
	// Clusters remained after near-duplicate folding.
	Allowed    int   `json:"allowed"`
	Candidates int   `json:"candidates"`
	Clusters   int   `json:"clusters"`
	RetrieveMS int64 `json:"retrieve_ms"`
	// Standing counts the standing documents allowed; Superseded and NotYet those the
	// lifecycle left out because a later text superseded them, or because they were not yet
	// in force, by the answer's day.
	Standing   int `json:"standing,omitempty"`
	Superseded int `json:"superseded,omitempty"`
	NotYet     int `json:"not_yet,omitempty"`
	// TakenDown counts the documents taken down (asof docs delete) whose rows the mask removed.
	TakenDown int `json:"taken_down,omitempty"`
}

// CandidateVersion is the version of CandidateRow.
const CandidateVersion = 1

// CandidateRow is one ranked, deduplicated candidate of an answer (runs/<run-id>/candidates.parquet):
// the pool the judge grades and the context is built from. Rank is 1-based in fused order.
type CandidateRow struct {
	Rank        int32     `parquet:"rank" json:"rank"`
	DocID       string    `parquet:"doc_id" json:"doc_id"`
	ChunkID     string    `parquet:"chunk_id" json:"chunk_id"`
	PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)" json:"published_at"`
	Source      string    `parquet:"source" json:"source"`
	// Sources are every source of its duplicate cluster, the kept one first.
	Sources    []string `parquet:"sources,list" json:"sources"`
	Title      string   `parquet:"title" json:"title"`
	URL        string   `parquet:"url" json:"url"`
	Text       string   `parquet:"text" json:"text"`
	Score      float64  `parquet:"score" json:"score"`
	Cosine     float64  `parquet:"cosine" json:"cosine"`
	BM25       float64  `parquet:"bm25" json:"bm25"`
	RankDense  int32    `parquet:"rank_dense" json:"rank_dense"`
	RankBM25   int32    `parquet:"rank_bm25" json:"rank_bm25"`
	RankTime   int32    `parquet:"rank_time" json:"rank_time"`
	Group      string   `parquet:"group" json:"group"`
	Duplicates int32    `parquet:"duplicates" json:"duplicates"`
	Fragments  int32    `parquet:"fragments" json:"fragments"`
	// Folded are the documents folded into it as near-duplicates (answer.Hit.Folded).
	Folded []string `parquet:"folded,list" json:"folded,omitempty"`
	// Kind is the document's kind ("standing"; empty: news).
	Kind string `parquet:"kind,optional" json:"kind,omitempty"`
}
