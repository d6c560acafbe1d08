package eval

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestContextFreshness(t *testing.T) {
	utc := func(m time.Month, d, h, min int) time.Time { return time.Date(2023, m, d, h, min, 0, 0, time.UTC) }
	tests := []struct {
		name      string
		published []time.Time
		want      Freshness
	}{
		{"no documents", nil, Freshness{FreshestDays: -1}},
		{
			"ages 0, 7, 8, 30, 31 and a leak",
			[]time.Time{
				utc(3, 10, 0, 0),  // A's day at midnight: 0
				utc(3, 3, 23, 59), // 7 days: within 7
				utc(3, 2, 0, 0),   // 8 days: within 30 only
				utc(2, 8, 12, 0),  // 30 days: within 30
				utc(2, 7, 12, 0),  // 31 days: neither
				utc(3, 11, 0, 0),  // next day: a leak
			},
			Freshness{FreshestDays: 0, HasFresh: true, Within7: 2.0 / 6, Within30: 4.0 / 6, DistinctDates: 5, Docs: 6, Leaked: 1},
		},
		{
			"end of A's day is not a leak",
			[]time.Time{time.Date(2023, 3, 10, 23, 59, 59, 999_000_000, time.UTC)},
			Freshness{FreshestDays: 0, HasFresh: true, Within7: 1, Within30: 1, DistinctDates: 1, Docs: 1},
		},
		{
			"same day twice is one date",
			[]time.Time{utc(3, 5, 1, 0), utc(3, 5, 22, 0), utc(3, 1, 9, 0)},
			Freshness{FreshestDays: 5, HasFresh: true, Within7: 2.0 / 3, Within30: 1, DistinctDates: 2, Docs: 3},
		},
		{
			"only old documents",
			[]time.Time{utc(1, 29, 12, 0)},
			Freshness{FreshestDays: 40, HasFresh: true, DistinctDates: 1, Docs: 1},
		},
		{
			"only leaks",
			[]time.Time{utc(3, 11, 0, 0), utc(4, 1, 0, 0)},
			Freshness{FreshestDays: -1, Docs: 2, Leaked: 2},
		},
		{
			"order does not matter",
			[]time.Time{utc(1, 29, 12, 0), utc(3, 9, 12, 0), utc(2, 20, 12, 0)},
			Freshness{FreshestDays: 1, HasFresh: true, Within7: 1.0 / 3, Within30: 2.0 / 3, DistinctDates: 3, Docs: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.published)
			got := ContextFreshness(anchor, tt.published)
			if math.Abs(got.Within7-tt.want.Within7) > eps || math.Abs(got.Within30-tt.want.Within30) > eps {
				t.Errorf("within7, within30 = %v, %v, want %v, %v", got.Within7, got.Within30, tt.want.Within7, tt.want.Within30)
			}
			got.Within7, got.Within30 = tt.want.Within7, tt.want.Within30
			if got != tt.want {
				t.Errorf("ContextFreshness =\n %+v, want\n %+v", got, tt.want)
			}
			if !reflect.DeepEqual(before, tt.published) {
				t.Error("ContextFreshness modified its input")
			}
		})
	}
}

func TestAggregateFreshness(t *testing.T) {
	tests := []struct {
		name string
		fs   []Freshness
		want FreshnessSummary
	}{
		{"no queries", nil, FreshnessSummary{System: "sys"}},
		{
			"freshest over queries with a fresh document, shares over all",
			[]Freshness{
				{FreshestDays: 2, HasFresh: true, Within7: 0.5, Within30: 1, DistinctDates: 3},
				{FreshestDays: -1, Leaked: 1},
				{FreshestDays: 10, HasFresh: true, Within30: 0.5, DistinctDates: 1},
			},
			FreshnessSummary{
				System: "sys", FreshestDaysMean: 6, Within7Mean: 0.5 / 3, Within30Mean: 0.5,
				DistinctDatesMean: 4.0 / 3, Queries: 3, Empty: 1, LeakedQueries: 1,
			},
		},
		{
			"all empty",
			[]Freshness{{FreshestDays: -1}, {FreshestDays: -1}},
			FreshnessSummary{System: "sys", Queries: 2, Empty: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AggregateFreshness("sys", tt.fs)
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"FreshestDaysMean", got.FreshestDaysMean, tt.want.FreshestDaysMean},
				{"Within7Mean", got.Within7Mean, tt.want.Within7Mean},
				{"Within30Mean", got.Within30Mean, tt.want.Within30Mean},
				{"DistinctDatesMean", got.DistinctDatesMean, tt.want.DistinctDatesMean},
			} {
				if math.Abs(f.got-f.want) > eps {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			got.FreshestDaysMean, got.Within7Mean, got.Within30Mean, got.DistinctDatesMean =
				tt.want.FreshestDaysMean, tt.want.Within7Mean, tt.want.Within30Mean, tt.want.DistinctDatesMean
			if got != tt.want {
				t.Errorf("AggregateFreshness =\n %+v, want\n %+v", got, tt.want)
			}
		})
	}
}
