package client

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
	"github.com/asofrag/asof/workflows"
)

// TimelineEval is an evaluation of timelines against reference ones (CL-TLS's shape): every
// topic's timeline is built by the Timeline workflow, as asof timeline builds it, and scored
// (eval.ScoreTimeline).
type TimelineEval struct {
	// Index is the index to read; "{lang}" in it is replaced by each topic's language
	// ("tls-{lang}": one index per language, as the benchmark's collections are).
	Index string
	// Topics are the timelines to build; Reference the reference timelines, by key.
	Topics    []eval.TimelineTopic
	Reference map[eval.TimelineKey]map[time.Time]string
	// Dates is the days per timeline (0: as many as the reference has, the benchmark's protocol).
	Dates int
	// AsOf, when set, is every timeline's anchor; else a topic's LastArticle, else its last
	// reference day.
	AsOf time.Time
	// Started, when set, is told each timeline before it is built.
	Started func(i int, t eval.TimelineTopic, index string, asOf time.Time, dates int)
}

// TimelineEvalTopic is one topic's result.
type TimelineEvalTopic struct {
	Lang      string             `json:"lang"`
	Topic     string             `json:"topic"`
	Index     string             `json:"index"`
	AsOf      string             `json:"as_of"`
	Reference int                `json:"reference_dates"`
	Score     eval.TimelineScore `json:"score"`
	// Leaked counts the days and citations after the anchor (always 0: the as-of invariant).
	Leaked int    `json:"leaked"`
	RunID  string `json:"run_id"`
	// Entries are the timeline's days, for the benchmark's own scorer.
	Entries []schemas.TimelineEntry `json:"-"`
}

// TimelineEvalResult is every topic's figures, their macro average overall and per language,
// and the leakage.
type TimelineEvalResult struct {
	Topics  []TimelineEvalTopic           `json:"topics"`
	Macro   eval.TimelineMacro            `json:"macro"`
	Leaked  int                           `json:"leaked"`
	PerLang map[string]eval.TimelineMacro `json:"per_lang"`
}

// IndexFor is in.Index for a topic in language lang.
func (in TimelineEval) IndexFor(lang string) string {
	return strings.ReplaceAll(in.Index, "{lang}", lang)
}

// CheckTimelineEval refuses an evaluation that cannot run, before anything starts: a bad index
// name, no topics, a topic without a reference, a negative number of days.
func CheckTimelineEval(in TimelineEval) error {
	if len(in.Topics) == 0 {
		return fmt.Errorf("topics: none to evaluate")
	}
	if in.Dates < 0 {
		return fmt.Errorf("dates %d must not be negative", in.Dates)
	}
	for _, t := range in.Topics {
		if err := layout.ValidateIndexName(in.IndexFor(t.Lang)); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if _, ok := in.Reference[t.Key()]; !ok {
			return fmt.Errorf("topics: %s-%s has no reference timeline", t.Lang, t.Topic)
		}
	}
	return nil
}

// EvalTimelines builds and scores every topic's timeline, one after another.
func (c *Client) EvalTimelines(ctx context.Context, in TimelineEval) (TimelineEvalResult, error) {
	if err := CheckTimelineEval(in); err != nil {
		return TimelineEvalResult{}, err
	}
	res := TimelineEvalResult{PerLang: map[string]eval.TimelineMacro{}}
	var scores []eval.TimelineScore
	langs := map[string][]eval.TimelineScore{}
	for i, t := range in.Topics {
		ref := in.Reference[t.Key()]
		asOf := in.AsOf
		if asOf.IsZero() {
			asOf = t.LastArticle
		}
		if asOf.IsZero() {
			for d := range ref {
				if d.After(asOf) {
					asOf = d
				}
			}
		}
		asOf = asofday.Start(asOf)
		n := cmp.Or(in.Dates, len(ref))
		index := in.IndexFor(t.Lang)
		if in.Started != nil {
			in.Started(i, t, index, asOf, n)
		}
		tl, err := c.Timeline(ctx, workflows.TimelineInput{Index: index, Topic: t.Query, AsOf: asOf, Dates: n})
		if err != nil {
			return res, fmt.Errorf("timeline %s-%s: %w", t.Lang, t.Topic, err)
		}
		sys := map[time.Time]string{}
		leaked := 0
		for _, e := range tl.Entries {
			if !asofday.Allows(tl.AsOf, e.Day) {
				leaked++
			}
			for _, cit := range e.Citations {
				if !asofday.Allows(tl.AsOf, cit.PublishedAt) {
					leaked++
				}
			}
			sys[e.Day] = e.Text
		}
		s := eval.ScoreTimeline(sys, ref)
		scores = append(scores, s)
		langs[t.Lang] = append(langs[t.Lang], s)
		res.Leaked += leaked
		res.Topics = append(res.Topics, TimelineEvalTopic{Lang: t.Lang, Topic: t.Topic, Index: index, AsOf: tl.AsOf.Format(time.DateOnly),
			Reference: len(ref), Score: s, Leaked: leaked, RunID: tl.RunID, Entries: tl.Entries})
	}
	res.Macro = eval.MacroTimelines(scores)
	for l, ss := range langs {
		res.PerLang[l] = eval.MacroTimelines(ss)
	}
	return res, nil
}

// Langs are the languages of r's per-language averages, sorted.
func (r TimelineEvalResult) Langs() []string {
	ls := make([]string, 0, len(r.PerLang))
	for l := range r.PerLang {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}
