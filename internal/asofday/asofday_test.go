package asofday

import (
	"errors"
	"testing"
	"time"
)

func TestAllows(t *testing.T) {
	a := time.Date(2023, 6, 30, 0, 0, 0, 0, time.UTC)
	nyc := time.FixedZone("UTC-5", -5*3600)
	msk := time.FixedZone("UTC+3", 3*3600)
	tests := []struct {
		name   string
		asOf   time.Time
		t      time.Time
		allows bool
	}{
		{"start of the day", a, a, true},
		{"the day before", a, a.Add(-time.Nanosecond), true},
		{"last millisecond", a, time.Date(2023, 6, 30, 23, 59, 59, 999_000_000, time.UTC), true},
		{"last nanosecond", a, time.Date(2023, 6, 30, 23, 59, 59, 999_999_999, time.UTC), true},
		{"next midnight", a, time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), false},
		{"next day noon", a, time.Date(2023, 7, 1, 12, 0, 0, 0, time.UTC), false},
		{"anchor with a time of day", a.Add(15 * time.Hour), time.Date(2023, 6, 30, 23, 0, 0, 0, time.UTC), true},
		{"anchor with a time of day, next day", a.Add(15 * time.Hour), time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), false},
		// 2023-06-30 23:30 at UTC-5 is 2023-07-01 04:30 UTC: A's day is 1 July.
		{"anchor west of UTC names the UTC day", time.Date(2023, 6, 30, 23, 30, 0, 0, nyc), time.Date(2023, 7, 1, 20, 0, 0, 0, time.UTC), true},
		// 2023-07-01 01:00 at UTC+3 is 2023-06-30 22:00 UTC: A's day is 30 June.
		{"anchor east of UTC names the UTC day", time.Date(2023, 7, 1, 1, 0, 0, 0, msk), time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), false},
		{"document time in another zone", a, time.Date(2023, 7, 1, 2, 59, 0, 0, msk), true},
		{"document time in another zone, after", a, time.Date(2023, 7, 1, 3, 0, 0, 0, msk), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Allows(tt.asOf, tt.t); got != tt.allows {
				t.Errorf("Allows(%s, %s) = %v, want %v", tt.asOf, tt.t, got, tt.allows)
			}
			// Last is the inclusive form of the same rule.
			if got := !tt.t.After(Last(tt.asOf)); got != tt.allows {
				t.Errorf("t ≤ Last: %v, want %v", got, tt.allows)
			}
		})
	}
}

func TestAgeAndBounds(t *testing.T) {
	a := time.Date(2023, 6, 30, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		t    time.Time
		age  int
	}{
		{"same day, later hour", time.Date(2023, 6, 30, 23, 59, 59, 0, time.UTC), 0},
		{"same day, midnight", time.Date(2023, 6, 30, 0, 0, 0, 0, time.UTC), 0},
		{"previous day's last instant", time.Date(2023, 6, 29, 23, 59, 59, 999_000_000, time.UTC), 1},
		{"a year before", time.Date(2022, 6, 30, 0, 0, 0, 0, time.UTC), 365},
		{"next day", time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Age(a, tt.t); got != tt.age {
				t.Errorf("Age = %d, want %d", got, tt.age)
			}
			if got := Number(a) - Number(tt.t); got != int64(tt.age) {
				t.Errorf("Number difference = %d, want %d", got, tt.age)
			}
		})
	}
	if got, want := Start(a), time.Date(2023, 6, 30, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Start = %s, want %s", got, want)
	}
	if got, want := End(a), time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("End = %s, want %s", got, want)
	}
	if Number(time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC)) != -1 {
		t.Error("Number before 1970 must be negative")
	}
}

func TestInZone(t *testing.T) {
	now := time.Date(2026, 3, 31, 22, 30, 0, 0, time.UTC)
	msk := time.FixedZone("MSK", 3*3600)
	tests := []struct {
		name string
		loc  *time.Location
		want string
	}{
		{"UTC", time.UTC, "2026-03-31"},
		{"east of UTC is already tomorrow", msk, "2026-04-01"},
		{"west of UTC", time.FixedZone("UTC-8", -8*3600), "2026-03-31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InZone(now, tt.loc); got.Format(time.RFC3339) != tt.want+"T00:00:00Z" {
				t.Errorf("InZone = %s, want %s at midnight UTC", got.Format(time.RFC3339), tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		ok   bool
	}{
		{"zero time", time.Time{}, false},
		{"year 0", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 999", time.Date(999, 12, 31, 23, 59, 0, 0, time.UTC), false},
		{"first day", time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"ordinary", time.Date(2025, 9, 4, 0, 0, 0, 0, time.UTC), true},
		{"last day", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"east of UTC names the UTC day", time.Date(1000, 1, 1, 1, 0, 0, 0, time.FixedZone("UTC+3", 3*3600)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.t)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%s) = %v, want ok=%v", tt.t, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrOutOfRange) {
				t.Errorf("Check(%s) = %v, want ErrOutOfRange", tt.t, err)
			}
		})
	}
}
