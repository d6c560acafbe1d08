package digest

import (
	"slices"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

// NewDays is the "new" window of a digest: Brief.New holds the claims of the anchor's day and
// the NewDays−1 days before it (summarize.DefaultOptions().NewDays).
const NewDays = 7

// ageDays is the age in whole days at asOf of something published at t (asofday.Age). It is
// negative for t after asOf's day.
func ageDays(t, asOf time.Time) int { return asofday.Age(asOf, t) }

// Freshness computes a topic's freshness from its context blocks at the anchor day asOf.
// Ages are whole UTC calendar days (asOf's day minus the publication day); a block dated
// after asOf's day, which a correct context never holds, counts as age 0. Without blocks
// FreshestDays and MedianDays are −1 and the shares 0.
func Freshness(blocks []schemas.ContextBlock, asOf time.Time) schemas.DigestFreshness {
	f := schemas.DigestFreshness{Blocks: len(blocks), FreshestDays: -1, MedianDays: -1}
	if len(blocks) == 0 {
		return f
	}
	ages := make([]int, len(blocks))
	days := make(map[time.Time]bool, len(blocks))
	within7, within30 := 0, 0
	for i, b := range blocks {
		ages[i] = max(ageDays(b.PublishedAt, asOf), 0)
		days[asofday.Start(b.PublishedAt)] = true
		if ages[i] <= 7 {
			within7++
		}
		if ages[i] <= 30 {
			within30++
		}
	}
	slices.Sort(ages)
	n := len(ages)
	f.FreshestDays = ages[0]
	if n%2 == 1 {
		f.MedianDays = float64(ages[n/2])
	} else {
		f.MedianDays = float64(ages[n/2-1]+ages[n/2]) / 2
	}
	f.Within7 = float64(within7) / float64(n)
	f.Within30 = float64(within30) / float64(n)
	f.DistinctDays = len(days)
	return f
}
