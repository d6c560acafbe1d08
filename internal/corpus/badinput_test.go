package corpus

import (
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

// TestYearsOutsideRangeAreBadDates: a DATE or TIMESTAMP published_at whose year is outside
// 1..9999 (which no document JSON or shard id can encode) is quarantined as bad_date, with or
// without the future check (--allow-future), and the counts reconcile.
func TestYearsOutsideRangeAreBadDates(t *testing.T) {
	day := func(y int) int32 { return int32(time.Date(y, 3, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400) }
	dateRows := []dates{{"ok", day(2024), "A row of 2024."}, {"bc", day(-768), "A row of 768 BC."}, {"far", day(10183), "A row of 10183."}, {"zero", day(0), "A row of year 0."}}
	stampRows := []timestamps{{"ok", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), "A row of 2024."}, {"far", time.Date(10183, 3, 1, 0, 0, 0, 0, time.UTC), "A row of 10183."}}
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		opts    Options
		rows    int
		wantBad []string
	}{
		{name: "DATE, --allow-future", opts: Options{}, rows: 4, wantBad: []string{"bc", "far", "zero"}},
		{name: "DATE, future check", opts: Options{Now: now}, rows: 4, wantBad: []string{"bc", "far", "zero"}},
		{name: "TIMESTAMP, --allow-future", opts: Options{}, rows: 2, wantBad: []string{"far"}},
		{name: "TIMESTAMP, future check", opts: Options{Now: now}, rows: 2, wantBad: []string{"far"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoader(tt.opts)
			r := writeParquet(t, dateRows)
			if strings.HasPrefix(tt.name, "TIMESTAMP") {
				r = writeParquet(t, stampRows)
			}
			res, err := load(t, l, r, "years.parquet")
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, q := range res.rejects {
				if q.Reason != schemas.ReasonBadDate || !strings.Contains(q.Detail, "outside 1..9999") {
					t.Errorf("row %d (%s) quarantined as %s (%s), want bad_date", q.RowNumber, q.DocID, q.Reason, q.Detail)
				}
				bad = append(bad, q.DocID)
			}
			if strings.Join(bad, ",") != strings.Join(tt.wantBad, ",") {
				t.Errorf("quarantined %v, want %v", bad, tt.wantBad)
			}
			if len(res.docs) != 1 || res.docs[0].DocID != "ok" {
				t.Errorf("documents %+v, want only ok", res.docs)
			}
			tot := l.Total()
			if tot.Read != int64(tt.rows) || tot.Quarantined[schemas.ReasonBadDate] != int64(len(tt.wantBad)) || !tot.Reconciles() {
				t.Errorf("counts %+v", tot)
			}
		})
	}
}

// TestDocIDEncodingBeforeEmptiness: a doc_id that is not valid UTF-8 is a bad_encoding row
// that says so (with the bytes escaped), not a missing_id; an empty one stays missing_id.
func TestDocIDEncodingBeforeEmptiness(t *testing.T) {
	rows := []stringDated{
		{"\xff\xfe", ptr("2024-03-01"), "", "An id of invalid bytes.", "ex.com"},
		{"  ", ptr("2024-03-01"), "", "A blank id.", "ex.com"},
		{"ok", ptr("2024-03-01"), "", "A good row.", "ex.com"},
	}
	l := NewLoader(Options{})
	res, err := load(t, l, writeParquet(t, rows), "ids.parquet")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason, detail string
	}{
		{name: "invalid UTF-8", reason: schemas.ReasonBadEncoding, detail: `doc_id "\xff\xfe"`},
		{name: "blank", reason: schemas.ReasonMissingID, detail: "doc_id is empty"},
	}
	if len(res.rejects) != len(tests) || len(res.docs) != 1 {
		t.Fatalf("rejects %+v, docs %d", res.rejects, len(res.docs))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := res.rejects[i]
			if q.Reason != tt.reason || !strings.Contains(q.Detail, tt.detail) {
				t.Errorf("quarantined as %s (%s), want %s (%s)", q.Reason, q.Detail, tt.reason, tt.detail)
			}
		})
	}
	if tot := l.Total(); !tot.Reconciles() || tot.Read != 3 {
		t.Errorf("counts %+v", tot)
	}
}
