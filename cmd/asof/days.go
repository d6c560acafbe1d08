package main

import (
	"time"

	"github.com/asofrag/asof/internal/apispec"
)

// parseDay reads the day a person gave to flag (YYYY-MM-DD, YYYY/MM/DD or RFC 3339, as UTC)
// with apispec.ParseDay, the parser the HTTP API uses too: an unreadable day, and a year
// outside asofday.MinYear..MaxYear (0001-01-01 among them, Go's zero time), are refused with
// the flag's name and the range.
func parseDay(flag, s string) (time.Time, error) { return apispec.ParseDay("--"+flag, s) }
