package digest

import (
	"errors"
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/schemas"
)

// Check checks a digest request before it runs: its name ("digest" when empty; the rule is
// layout.ValidateDigestName), its topics (CheckTopics) and its time zone (Zone). It returns
// the name, the zone's name and the zone; the error is the first problem.
func Check(name string, topics []Topic, tz string) (string, string, *time.Location, error) {
	if name == "" {
		name = "digest"
	}
	if err := layout.ValidateDigestName(name); err != nil {
		return "", "", nil, err
	}
	if err := CheckTopics(topics); err != nil {
		return "", "", nil, err
	}
	tz, loc, err := Zone(tz)
	if err != nil {
		return "", "", nil, err
	}
	return name, tz, loc, nil
}

// Anchor is the digest's anchor day (midnight UTC) in as-of mode mode: "" or "today",
// AnchorDay(asOf, now, loc); AsOfLatest (with a zero asOf), the last day of the index m
// describes (LatestDay).
func Anchor(mode string, asOf, now time.Time, loc *time.Location, m schemas.Manifest) (time.Time, error) {
	switch mode {
	case "", "today":
		return AnchorDay(asOf, now, loc)
	case AsOfLatest:
		if !asOf.IsZero() {
			return time.Time{}, errors.New("as_of_mode latest takes no as_of day")
		}
		return LatestDay(m)
	}
	return time.Time{}, fmt.Errorf("as_of_mode %q: use today or latest", mode)
}
