package digest

import (
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

func TestFreshness(t *testing.T) {
	at := func(ts ...time.Time) []schemas.ContextBlock {
		bs := make([]schemas.ContextBlock, len(ts))
		for i, x := range ts {
			bs[i] = schemas.ContextBlock{N: i + 1, PublishedAt: x}
		}
		return bs
	}
	ago := func(days int) time.Time { return anchor.AddDate(0, 0, -days).Add(13 * time.Hour) }
	tests := []struct {
		name   string
		blocks []schemas.ContextBlock
		asOf   time.Time
		want   schemas.DigestFreshness
	}{
		{name: "no blocks", blocks: nil, asOf: anchor,
			want: schemas.DigestFreshness{FreshestDays: -1, MedianDays: -1}},
		{name: "one block today", blocks: at(ago(0)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 1, FreshestDays: 0, MedianDays: 0, Within7: 1, Within30: 1, DistinctDays: 1}},
		{name: "odd count", blocks: at(ago(40), ago(2), ago(7), ago(8), ago(30)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 5, FreshestDays: 2, MedianDays: 8, Within7: 0.4, Within30: 0.8, DistinctDays: 5}},
		{name: "even count and shared days", blocks: at(ago(3), ago(1), ago(3), ago(31)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 4, FreshestDays: 1, MedianDays: 3, Within7: 0.75, Within30: 0.75, DistinctDays: 3}},
		{name: "median between two days", blocks: at(ago(2), ago(5)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 2, FreshestDays: 2, MedianDays: 3.5, Within7: 1, Within30: 1, DistinctDays: 2}},
		// Whole UTC days: 23:59 the day before the anchor is 1 day old, 00:00 on the anchor 0.
		{name: "UTC day boundaries", blocks: at(anchor.Add(-time.Minute), anchor, anchor.Add(23*time.Hour+59*time.Minute)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 3, FreshestDays: 0, MedianDays: 0, Within7: 1, Within30: 1, DistinctDays: 2}},
		// The anchor's time of day and zone do not matter, only its UTC day.
		{name: "anchor late in the day", blocks: at(ago(1)), asOf: anchor.Add(22 * time.Hour),
			want: schemas.DigestFreshness{Blocks: 1, FreshestDays: 1, MedianDays: 1, Within7: 1, Within30: 1, DistinctDays: 1}},
		{name: "publication time in another zone", blocks: at(time.Date(2024, 6, 30, 1, 0, 0, 0, time.FixedZone("MSK", 3*3600))), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 1, FreshestDays: 1, MedianDays: 1, Within7: 1, Within30: 1, DistinctDays: 1}},
		{name: "future block counts as age 0", blocks: at(anchor.AddDate(0, 0, 2), ago(10)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 2, FreshestDays: 0, MedianDays: 5, Within7: 0.5, Within30: 1, DistinctDays: 2}},
		{name: "old blocks", blocks: at(ago(400), ago(365)), asOf: anchor,
			want: schemas.DigestFreshness{Blocks: 2, FreshestDays: 365, MedianDays: 382.5, DistinctDays: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Freshness(tt.blocks, tt.asOf); got != tt.want {
				t.Errorf("Freshness =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
