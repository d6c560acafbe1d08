package main

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/corpus"
)

// parseDay reads the day a person gave to flag (YYYY-MM-DD, YYYY/MM/DD or RFC 3339, as UTC).
// It is the one parser of days on the command line: an unreadable day, and a year outside
// asofday.MinYear..MaxYear (0001-01-01 among them, Go's zero time, which would otherwise mean
// "not given" and quietly become today), are refused with the flag's name and the range.
func parseDay(flag, s string) (time.Time, error) {
	accepted := fmt.Sprintf("give a day from %d-01-01 to %d-12-31 as YYYY-MM-DD", asofday.MinYear, asofday.MaxYear)
	t, err := corpus.ParseDate(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not a date: %s", flag, s, accepted)
	}
	if asofday.Check(t) != nil {
		return time.Time{}, fmt.Errorf("--%s %q is out of range: %s", flag, s, accepted)
	}
	return t, nil
}
