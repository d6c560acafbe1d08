package eval

import "time"

// Freshness describes how recent the documents of one context are as of its anchor A; it
// needs no judgments (e.g. Telegram queries that only have an anchor date).
//
// A document's age is A's UTC calendar day minus its publication's, in whole days. A document
// published after the end of A's day is a leak: it is counted in Leaked, is never fresh nor
// "within" a window, and has no date counted in DistinctDates, but it stays in the
// denominator of Within7 and Within30, so leaking lowers them rather than being hidden.
type Freshness struct {
	// FreshestDays is the smallest age of a document not published after A's day; −1 when
	// there is none (HasFresh false).
	FreshestDays float64 `json:"freshest_days"`
	// HasFresh reports that FreshestDays is defined.
	HasFresh bool `json:"has_fresh"`
	// Within7 is the share of the documents aged 0 to 7 days (inclusive); 0 with none.
	Within7 float64 `json:"within7"`
	// Within30 is the share of the documents aged 0 to 30 days (inclusive); 0 with none.
	Within30 float64 `json:"within30"`
	// DistinctDates is how many different UTC calendar days the non-leaked documents were
	// published on.
	DistinctDates int `json:"distinct_dates"`
	// Docs is how many documents were given.
	Docs int `json:"docs"`
	// Leaked is how many documents were published after the end of A's day.
	Leaked int `json:"leaked"`
}

// ContextFreshness measures the freshness of a context's documents, given by their
// publication times, as of asOf (see Freshness). published is not modified.
func ContextFreshness(asOf time.Time, published []time.Time) Freshness {
	f := Freshness{FreshestDays: -1, Docs: len(published)}
	anchor := dayNumber(asOf)
	days := make(map[int64]bool, len(published))
	var in7, in30 int
	for _, t := range published {
		age := anchor - dayNumber(t)
		if age < 0 {
			f.Leaked++
			continue
		}
		days[age] = true
		if !f.HasFresh || float64(age) < f.FreshestDays {
			f.FreshestDays, f.HasFresh = float64(age), true
		}
		if age <= 7 {
			in7++
		}
		if age <= 30 {
			in30++
		}
	}
	f.DistinctDates = len(days)
	if n := float64(len(published)); n > 0 {
		f.Within7 = float64(in7) / n
		f.Within30 = float64(in30) / n
	}
	return f
}

// FreshnessSummary is a system's context freshness over a set of queries.
type FreshnessSummary struct {
	// System names the evaluated system.
	System string `json:"system"`
	// FreshestDaysMean is the mean FreshestDays over the queries with a fresh document
	// (Queries − Empty of them); 0 when there is none.
	FreshestDaysMean float64 `json:"freshest_days_mean"`
	// Within7Mean is the mean Within7 over all queries.
	Within7Mean float64 `json:"within7_mean"`
	// Within30Mean is the mean Within30 over all queries.
	Within30Mean float64 `json:"within30_mean"`
	// DistinctDatesMean is the mean DistinctDates over all queries.
	DistinctDatesMean float64 `json:"distinct_dates_mean"`
	// Queries is how many queries were summarized.
	Queries int `json:"queries"`
	// Empty is how many queries had no document that was not a leak, and so no freshest age.
	Empty int `json:"empty"`
	// LeakedQueries is how many queries had at least one leaked document; it must be 0.
	LeakedQueries int `json:"leaked_queries"`
}

// AggregateFreshness averages the per-query freshness fs of the system name (see
// FreshnessSummary for which queries each mean covers). fs is not modified.
func AggregateFreshness(name string, fs []Freshness) FreshnessSummary {
	s := FreshnessSummary{System: name, Queries: len(fs)}
	for _, f := range fs {
		s.Within7Mean += f.Within7
		s.Within30Mean += f.Within30
		s.DistinctDatesMean += float64(f.DistinctDates)
		if f.Leaked > 0 {
			s.LeakedQueries++
		}
		if f.HasFresh {
			s.FreshestDaysMean += f.FreshestDays
		} else {
			s.Empty++
		}
	}
	if n := float64(s.Queries); n > 0 {
		s.Within7Mean /= n
		s.Within30Mean /= n
		s.DistinctDatesMean /= n
	}
	if n := s.Queries - s.Empty; n > 0 {
		s.FreshestDaysMean /= float64(n)
	}
	return s
}
