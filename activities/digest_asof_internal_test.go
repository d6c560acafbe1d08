package activities

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/indexplan"
	"github.com/asofrag/asof/schemas"
)

// TestPlanDigestAsOfMode: a digest (a schedule's run) answers as of the workflow's day by
// default and with "today", as of the index's newest document's day with "latest"; "latest"
// with a day, or an unknown mode, is refused.
func TestPlanDigestAsOfMode(t *testing.T) {
	ctx := context.Background()
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Deps: Deps{Bucket: b, Model: schemas.ModelRef{ID: "toy", Dim: 3}}}
	at := func(s string) time.Time { d, _ := time.Parse(time.RFC3339, s); return d }
	shards := []schemas.ShardMeta{
		{ID: "a", Period: "2025-10", MinDate: at("2025-10-01T08:00:00Z"), MaxDate: at("2025-10-30T23:10:00Z"), Docs: 3},
		{ID: "b", Period: "2025-11", MinDate: at("2025-11-02T08:00:00Z"), MaxDate: at("2025-11-20T17:45:00Z"), Docs: 2},
	}
	if _, err := a.PublishManifest(ctx, PublishManifestInput{Build: indexplan.Build{Index: "news", Period: "month", Model: a.Model, Shards: shards}}); err != nil {
		t.Fatal(err)
	}
	now := at("2026-11-25T03:00:00Z") // the workflow's time: 2026-11-25 in UTC, 2026-11-24 22:00 in New York
	topics := []digest.Topic{{Name: "Rate", Query: "key rate"}}
	tests := []struct {
		name, mode, tz string
		asOf           time.Time
		want, wantErr  string
	}{
		{name: "default is the run's day", want: "2026-11-25"},
		{name: "today", mode: "today", want: "2026-11-25"},
		{name: "today in the time zone", mode: "today", tz: "America/New_York", want: "2026-11-24"},
		{name: "latest is the newest document's day", mode: "latest", want: "2025-11-20"},
		{name: "latest with a day", mode: "latest", asOf: at("2025-01-01T00:00:00Z"), wantErr: "latest takes no as_of day"},
		{name: "unknown mode", mode: "yesterday", wantErr: `as_of_mode "yesterday": use today or latest`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := a.PlanDigest(ctx, PlanDigestInput{Name: "m", Index: "news", Topics: topics, AsOf: tt.asOf, Now: now, TimeZone: tt.tz, AsOfMode: tt.mode})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || res.AsOf.Format(time.DateOnly) != tt.want {
				t.Fatalf("as of %s (%v), want %s", res.AsOf.Format(time.DateOnly), err, tt.want)
			}
		})
	}
}
