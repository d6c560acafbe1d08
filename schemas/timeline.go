package schemas

import "time"

// TimelineVersion is the version of Timeline (runs/<run-id>/timeline.json).
const TimelineVersion = 1

// Timeline is the dated events of a topic as of a day (`asof timeline`, the Timeline
// workflow): the days many sources report, each with one or two of their sentences and the
// documents they come from. No day, sentence or document is after the anchor. It is written to
// runs/<run-id>/timeline.json and printed by `asof timeline --format json`.
type Timeline struct {
	Version     int       `json:"version"`
	RunID       string    `json:"run_id"`
	Index       string    `json:"index"`
	ManifestSeq int       `json:"manifest_seq"`
	Topic       string    `json:"topic"`
	AsOf        time.Time `json:"as_of"`
	// From is the first day the timeline could show (zero: the whole past).
	From time.Time `json:"from,omitzero"`
	// Dates is how many days were asked for (0: the default, chosen from the span).
	Dates int `json:"dates"`
	// Method is how the sentences were chosen: "extractive" (the sources' own sentences).
	Method  string          `json:"method"`
	Entries []TimelineEntry `json:"entries"`
	// Passages is how many passages about the topic were read; Documents how many documents
	// they came from; Days how many days any of them reported.
	Passages  int `json:"passages"`
	Documents int `json:"documents"`
	Days      int `json:"days"`
	// Message explains an empty timeline.
	Message string `json:"message,omitempty"`
}

// TimelineEntry is one day of a timeline.
type TimelineEntry struct {
	Day time.Time `json:"day"`
	// Text is the day's sentences, joined.
	Text string `json:"text"`
	// Documents is how many documents report the day (mention it, or were published on it).
	Documents int `json:"documents"`
	// Score weighs the day: each document mentioning it counts 1, one published on it 0.5.
	Score     float64            `json:"score"`
	Citations []TimelineCitation `json:"citations"`
}

// TimelineCitation is a sentence of a day and the document it comes from.
type TimelineCitation struct {
	DocID       string    `json:"doc_id"`
	Title       string    `json:"title,omitempty"`
	Source      string    `json:"source,omitempty"`
	URL         string    `json:"url,omitempty"`
	PublishedAt time.Time `json:"published_at"`
	Sentence    string    `json:"sentence"`
	// Mentioned is set when the sentence names the day; else it leads a document published on it.
	Mentioned bool `json:"mentioned"`
}
