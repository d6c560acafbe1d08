package corpus

import (
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

// TestFutureRowsAreQuarantined: with Now set, a row published after the day after Now's day is
// quarantined as future_date (one day of grace for time zones) and the counts reconcile;
// without Now (allowed, or an old history) it is indexed.
func TestFutureRowsAreQuarantined(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 30, 0, 0, time.UTC)
	rows := []stringDated{
		{"today", ptr("2026-11-24T23:59:59Z"), "", "Published today.", "ex.com"},
		{"tomorrow", ptr("2026-11-25T23:59:59Z"), "", "Tomorrow, in a time zone east of UTC.", "ex.com"},
		{"after", ptr("2026-11-26"), "", "The day after tomorrow.", "ex.com"},
		{"typo", ptr("2099-01-10"), "", "A 2099 typo.", "ex.com"},
		{"old", ptr("2024-01-10"), "", "An old row.", "ex.com"},
	}
	tests := []struct {
		name       string
		opts       Options
		wantFuture []string
		wantDocs   int64
		wantSkip   int64
	}{
		{name: "build start set", opts: Options{Now: now}, wantFuture: []string{"after", "typo"}, wantDocs: 3},
		{name: "no check (--allow-future, or an old history)", opts: Options{}, wantDocs: 5},
		{name: "future before skipped by --to", opts: Options{Now: now, To: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}, wantFuture: []string{"after", "typo"}, wantDocs: 1, wantSkip: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoader(tt.opts)
			res, err := load(t, l, writeParquet(t, rows), "f.parquet")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range res.rejects {
				if q.Reason != schemas.ReasonFutureDate || q.Detail == "" {
					t.Errorf("reject %+v", q)
				}
				got = append(got, q.DocID)
			}
			if len(got) != len(tt.wantFuture) || (len(got) > 0 && (got[0] != tt.wantFuture[0] || got[1] != tt.wantFuture[1])) {
				t.Errorf("quarantined %v, want %v", got, tt.wantFuture)
			}
			tot := l.Total()
			if tot.Read != 5 || tot.Documents != tt.wantDocs || tot.Skipped != tt.wantSkip ||
				tot.Quarantined[schemas.ReasonFutureDate] != int64(len(tt.wantFuture)) || !tot.Reconciles() {
				t.Errorf("counts %+v", tot)
			}
		})
	}
}
