package digest

import (
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

func TestCheck(t *testing.T) {
	topics := []Topic{{Name: "rates", Query: "key rate"}}
	tests := []struct {
		name, digest, tz string
		topics           []Topic
		wantName, wantTZ string
		want             string // in the error
	}{
		{name: "defaults", topics: topics, wantName: "digest", wantTZ: "UTC"},
		{name: "named, in a zone", digest: "morning", tz: "Europe/Moscow", topics: topics, wantName: "morning", wantTZ: "Europe/Moscow"},
		{name: "bad name", digest: "../x", topics: topics, want: "../x"},
		{name: "no topics", want: "no topics"},
		{name: "bad zone", topics: topics, tz: "Mars/Olympus", want: `time zone "Mars/Olympus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, tz, loc, err := Check(tt.digest, tt.topics, tt.tz)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want it to say %q", err, tt.want)
				}
				return
			}
			if err != nil || name != tt.wantName || tz != tt.wantTZ || loc == nil || loc.String() != tt.wantTZ {
				t.Fatalf("Check = %q %q %v %v; want %q %q", name, tz, loc, err, tt.wantName, tt.wantTZ)
			}
		})
	}
}

func TestAnchor(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	m := schemas.Manifest{Index: "news", Shards: []schemas.ShardMeta{{Docs: 3, MaxDate: day("2024-05-10").Add(13 * time.Hour)}}}
	moscow, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	tests := []struct {
		name      string
		mode      string
		asOf, now time.Time
		want      time.Time
		wantErr   string
	}{
		{name: "today by default", now: day("2025-01-01").Add(22 * time.Hour), want: day("2025-01-02")}, // 01:00 next day in Moscow
		{name: "today, as of a day", mode: "today", asOf: day("2024-03-01").Add(5 * time.Hour), now: day("2025-01-01"), want: day("2024-03-01")},
		{name: "latest", mode: AsOfLatest, now: day("2025-01-01"), want: day("2024-05-10")},
		{name: "latest with a day", mode: AsOfLatest, asOf: day("2024-03-01"), wantErr: "as_of_mode latest takes no as_of day"},
		{name: "unknown mode", mode: "yesterday", wantErr: `as_of_mode "yesterday": use today or latest`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Anchor(tt.mode, tt.asOf, tt.now, moscow, m)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Fatalf("Anchor = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
