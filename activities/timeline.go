package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/storeio"
	"github.com/asofrag/asof/internal/timeline"
	"github.com/asofrag/asof/schemas"
)

// TimelineInput is one topic's timeline to build as of a day.
type TimelineInput struct {
	RunID string    `json:"run_id"`
	Index string    `json:"index"`
	Topic string    `json:"topic"`
	AsOf  time.Time `json:"as_of"`
	// From, when set, is the first day the timeline may show and search.
	From time.Time `json:"from,omitzero"`
	// Dates is how many days to show (0: timeline.DefaultDates of the span); Sentences how
	// many sentences a day shows (0: 1); Pool how many passages to read (0: timeline.DefaultPool).
	Dates     int `json:"dates,omitempty"`
	Sentences int `json:"sentences,omitempty"`
	Pool      int `json:"pool,omitempty"`
	// Vector and Model are EmbedQuery's result for the topic; no vector searches BM25 only.
	Vector []float32        `json:"vector,omitempty"`
	Model  schemas.ModelRef `json:"model"`
}

// Timeline finds the passages about the topic as of the anchor (a hybrid search over the
// shards up to it, internal/timeline.Find), chooses the days they report and a sentence or two
// for each (timeline.Build), writes runs/<run-id>/timeline.json and returns the timeline.
func (a *Activities) Timeline(ctx context.Context, in TimelineInput) (schemas.Timeline, error) {
	if in.Dates < 0 || in.Sentences < 0 || in.Pool < 0 || in.Pool > timeline.MaxPool {
		return schemas.Timeline{}, invalid(fmt.Errorf("dates %d, sentences %d and pool %d must not be negative, and the pool at most %d", in.Dates, in.Sentences, in.Pool, timeline.MaxPool))
	}
	var model *schemas.ModelRef
	if in.Vector != nil {
		model = &in.Model
	}
	b := retrieve.Bounds{Hi: asofday.Last(in.AsOf)}
	if !in.From.IsZero() {
		b.Lo, b.HardLo = asofday.Start(in.From), asofday.Start(in.From)
	}
	loaded, seq, err := a.loadShards(ctx, in.Index, model, b)
	if err != nil {
		return schemas.Timeline{}, err
	}
	defer loaded.Release()
	ps, err := timeline.Find(loaded.Shards, in.Topic, in.Vector, in.AsOf, in.From, in.Pool)
	if err != nil {
		return schemas.Timeline{}, invalid(err)
	}
	tl := timeline.Build(ps, timeline.Options{AsOf: in.AsOf, From: in.From, Dates: in.Dates, Sentences: in.Sentences})
	out := tl.Result(in.Topic, in.AsOf, in.From, in.Dates)
	out.RunID, out.Index, out.ManifestSeq = in.RunID, in.Index, seq
	if in.RunID != "" {
		if err := storeio.PutIndentedJSON(ctx, a.Bucket, layout.TimelineKey(in.RunID), out); err != nil {
			return out, fmt.Errorf("save timeline: %w", err)
		}
	}
	return out, nil
}
