package schemas

import "time"

// Claim is one dated, cited statement of a summary: Text says it, Cites are the context block
// numbers it rests on ([i] = Answer.Blocks[i-1]), Date is the publication day of the evidence
// (the latest cited block). No claim may be dated after the anchor.
type Claim struct {
	Date  time.Time `json:"date"`
	Text  string    `json:"text"`
	Cites []int     `json:"cites"`
}

// Brief is a summary in structured form, the same whether an LLM or the extractive summarizer
// wrote it. It is the only form a summary takes between the writer and the reader: every output
// (Markdown, HTML, JSON) is rendered from it by internal/render, and the summaries evaluation
// (internal/sumeval) scores it, never a rendering of it.
type Brief struct {
	// Method is "extractive", "llm:<model>", or "none" when no document was left to summarize.
	Method string `json:"method"`
	// AsOf is the anchor day the brief answers as of (midnight UTC); zero in briefs stored
	// before it was recorded.
	AsOf time.Time `json:"as_of,omitzero"`
	// NewDays is the "new" window: New holds claims from AsOf's day and the NewDays−1 days
	// before it (0: no window). Briefs stored before it was recorded have 0 and, when they have
	// New claims, the default window of 7 days.
	NewDays int `json:"new_days"`
	// New are the claims from the last NewDays days, freshest first; Earlier the older ones.
	New     []Claim `json:"new"`
	Earlier []Claim `json:"earlier"`
	// Timeline is every claim, oldest first.
	Timeline []Claim `json:"timeline"`
	// Then and Now are the two sides of an evolution ("then vs now") answer.
	Then []Claim `json:"then,omitempty"`
	Now  []Claim `json:"now,omitempty"`
	// NotEnough is true when the context does not answer the query.
	NotEnough bool `json:"not_enough"`
	// Note says how the brief was made when that is not the plain way, one sentence or more:
	// a weak match, an LLM summary that failed and was replaced by the extractive one, no
	// document left to summarize.
	Note string `json:"note,omitempty"`
}

// JudgeReport says how the candidates of one answer were judged.
type JudgeReport struct {
	// Method is "llm:<model>", "heuristic" (no LLM configured) or "off".
	Method string `json:"method"`
	// Policy is what a batch that still failed after its retries did: keep, drop or fail.
	Policy string `json:"policy"`
	// Batches ran as parallel activities; FailedBatches failed after every retry.
	Batches       int `json:"batches"`
	FailedBatches int `json:"failed_batches"`
	// Judged got a verdict; Kept went on to the context (relevance ≥ 1, or kept unjudged by
	// the keep policy); Dropped were judged irrelevant or dropped by the drop policy; Failed
	// were in failed batches. Judged + Failed = candidates judged at all.
	Judged  int `json:"judged"`
	Kept    int `json:"kept"`
	Dropped int `json:"dropped"`
	Failed  int `json:"failed"`
	// Reason is why the first failed batch failed after its last try, with its candidates and
	// the innermost error ("candidates 1..8: judge: llm: chat … no answer within 5m0s");
	// empty when no batch failed.
	Reason string `json:"reason,omitempty"`
}

// DigestVersion is the version of Digest (digests/<name>/<as-of>/digest.json).
const DigestVersion = 1

// Digest is many topics answered as of one day: written as digest.json, digest.md and
// digest.html under digests/<name>/<as-of day>/.
type Digest struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	Index   string `json:"index"`
	// AsOf is the anchor day (midnight UTC of the day in TimeZone).
	AsOf     time.Time `json:"as_of"`
	TimeZone string    `json:"time_zone"`
	// RunID is the Digest workflow's id.
	RunID  string        `json:"run_id"`
	Topics []DigestTopic `json:"topics"`
}

// DigestTopic is one topic of a digest: its answer, boiled down.
type DigestTopic struct {
	Name  string `json:"name"`
	Query string `json:"query"`
	// Mode and Interpretation say how the query was read.
	Mode           string `json:"mode"`
	Interpretation string `json:"interpretation"`
	// Error is set (and the rest empty) when the topic's Ask failed; the digest still renders.
	Error string `json:"error,omitempty"`
	// Message explains an empty answer.
	Message string `json:"message,omitempty"`
	Brief   Brief  `json:"brief"`
	// Sources are the cited context blocks.
	Sources   []ContextBlock  `json:"sources"`
	Freshness DigestFreshness `json:"freshness"`
	Judge     JudgeReport     `json:"judge"`
	// AskRunID names the topic's Ask run (runs/<id>/answer.json).
	AskRunID string `json:"ask_run_id"`
	// History is the topic's timeline as of the digest's day (the Timeline workflow, when the
	// digest asked for one: DigestInput.History days), oldest first; HistoryRunID names its
	// run (runs/<id>/timeline.json) and HistoryError says why it failed (the digest still
	// renders).
	History      []TimelineEntry `json:"history,omitempty"`
	HistoryRunID string          `json:"history_run_id,omitempty"`
	HistoryError string          `json:"history_error,omitempty"`
}

// DigestFreshness is how fresh a topic's evidence is at the anchor.
type DigestFreshness struct {
	// Blocks is how many context blocks there were; FreshestDays and MedianDays are ages in
	// whole days at the anchor (-1: no blocks).
	Blocks       int     `json:"blocks"`
	FreshestDays int     `json:"freshest_days"`
	MedianDays   float64 `json:"median_days"`
	// Within7 and Within30 are the shares of blocks at most 7 and 30 days old.
	Within7  float64 `json:"within_7"`
	Within30 float64 `json:"within_30"`
	// DistinctDays is how many different publication days the blocks span.
	DistinctDays int `json:"distinct_days"`
}
