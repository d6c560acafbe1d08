// Package asofday is the one rule of asof's time mask: what "as of day A" allows.
//
// Days are UTC calendar days. An anchor A names the UTC day of its instant (an anchor written
// with another offset is converted first: 2023-06-30T23:30-05:00 is 2023-07-01). A document
// published at t is allowed as of A when t is before the first instant after A's day, so the
// whole of A's day is allowed, to the nanosecond, and nothing after it. Every searcher, context
// builder, summarizer, evaluator and digest asks this package instead of writing the boundary
// out again.
package asofday

import (
	"errors"
	"fmt"
	"time"
)

// Start is midnight (UTC) of a's UTC calendar day.
func Start(a time.Time) time.Time {
	y, m, d := a.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// End is the first instant after a's UTC calendar day: the exclusive end of what is allowed.
func End(a time.Time) time.Time { return Start(a).AddDate(0, 0, 1) }

// Last is the last instant of a's UTC calendar day (End minus a nanosecond): the inclusive end
// for range queries (bleve's date ranges count nanoseconds).
func Last(a time.Time) time.Time { return End(a).Add(-time.Nanosecond) }

// Allows reports whether something published at t may be used as of a: t is not after a's
// UTC calendar day.
func Allows(a, t time.Time) bool { return t.Before(End(a)) }

// Age is a's UTC calendar day minus t's, in whole days: 0 on the anchor's day, 1 the day
// before, negative for t after a's day (a leak).
func Age(a, t time.Time) int {
	return int(Start(a).Sub(Start(t)).Hours()) / 24
}

// Number is t's UTC calendar day counted from 1970-01-01 (day 0), negative before it.
func Number(t time.Time) int64 { return Start(t).Unix() / 86400 }

// InZone is the anchor for the calendar day t falls on in loc (a scheduled digest's "today" in
// its time zone), as midnight UTC of that date.
func InZone(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// MinYear and MaxYear bound the years an anchor or a date a person gives may name. Go's zero
// time (year 1) means "not given" throughout asof, and years past 9999 have no RFC 3339 form,
// so a day outside this range is a typo, never a day to answer as of.
const (
	MinYear = 1000
	MaxYear = 9999
)

// ErrOutOfRange matches (errors.Is) a day whose year is outside MinYear..MaxYear.
var ErrOutOfRange = errors.New("asofday: year out of range")

// Check refuses a day whose UTC year is outside MinYear..MaxYear (the zero time included).
func Check(t time.Time) error {
	if y := t.UTC().Year(); y < MinYear || y > MaxYear {
		return fmt.Errorf("%w: %s is not between %d-01-01 and %d-12-31", ErrOutOfRange, t.UTC().Format(time.DateOnly), MinYear, MaxYear)
	}
	return nil
}
