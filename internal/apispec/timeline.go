package apispec

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/internal/timeline"
)

// TimelineRequest asks for a topic's dated events as of a day: the body of POST /v1/timeline,
// and what the flags of `asof timeline` fill in.
type TimelineRequest struct {
	// Index is the index to read (required).
	Index string `json:"index"`
	// Topic is what the timeline is about: a name or a few words (required).
	Topic string `json:"topic"`
	// AsOf is the anchor day, YYYY-MM-DD (required): nothing published or dated after it is
	// shown.
	AsOf string `json:"as_of"`
	// From, when set, is the first day to search and show.
	From string `json:"from,omitempty"`
	// Dates is how many days to show (0: one a week of the span found, 10 to 40).
	Dates int `json:"dates,omitempty"`
	// Sentences is how many sentences each day shows, 0 to 3 (0: 1).
	Sentences int `json:"sentences,omitempty"`
	// Pool is how many passages about the topic to start from (0: 300); their documents are
	// read whole.
	Pool int `json:"pool,omitempty"`
	// BM25 searches the topic's words only, without embedding it.
	BM25 bool `json:"bm25,omitempty"`
}

// Timeline is a checked TimelineRequest: what the Timeline workflow's input is made of.
type Timeline struct {
	Index, Topic           string
	AsOf, From             time.Time
	Dates, Sentences, Pool int
	BM25                   bool
}

// Check validates r, naming the fields in its errors with label. Every error is an
// *InvalidError.
func (r TimelineRequest) Check(label Label) (Timeline, error) {
	t, err := r.check(label)
	if err != nil {
		return Timeline{}, &InvalidError{Err: err}
	}
	return t, nil
}

func (r TimelineRequest) check(label Label) (Timeline, error) {
	t := Timeline{Index: r.Index, Topic: strings.TrimSpace(r.Topic), Dates: r.Dates, Sentences: r.Sentences, Pool: r.Pool, BM25: r.BM25}
	if err := layout.ValidateIndexName(r.Index); err != nil {
		return t, fmt.Errorf("%s: %w", label("index"), err)
	}
	if t.Topic == "" {
		return t, fmt.Errorf(`%s is empty: say what the timeline is about ("Libia", "key rate")`, label("topic"))
	}
	if err := querycap.Check(label("topic"), t.Topic); err != nil {
		return t, err
	}
	if r.AsOf == "" {
		return t, fmt.Errorf("%s is required: the day the timeline is as of", label("as_of"))
	}
	var err error
	if t.AsOf, err = ParseDay(label("as_of"), r.AsOf); err != nil {
		return t, err
	}
	if r.From != "" {
		if t.From, err = ParseDay(label("from"), r.From); err != nil {
			return t, err
		}
		if t.From.After(t.AsOf) {
			return t, fmt.Errorf("%s %s is after %s %s", label("from"), r.From, label("as_of"), r.AsOf)
		}
	}
	switch {
	case r.Dates < 0:
		return t, fmt.Errorf("%s %d: give 0 (the default) or more", label("dates"), r.Dates)
	case r.Sentences < 0 || r.Sentences > 3:
		return t, fmt.Errorf("%s %d: give 0 to 3", label("sentences"), r.Sentences)
	case r.Pool < 0:
		return t, fmt.Errorf("%s %d: give 0 (the default) or more", label("pool"), r.Pool)
	case r.Pool > MaxTimelinePool:
		return t, errors.New(label("pool") + fmt.Sprintf(" %d: at most %d", r.Pool, MaxTimelinePool))
	}
	return t, nil
}

// MaxTimelinePool bounds the passages a timeline starts from (timeline.MaxPool).
const MaxTimelinePool = timeline.MaxPool
