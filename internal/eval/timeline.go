package eval

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/parquet-go/parquet-go"
)

// Timeline scoring, as CL-TLS scores a system timeline against a reference one
// (../shared/data/cl-tls-dev/score_timeline.py computes the same figures):
//
//   - DateP, DateR, DateF1: date selection, exact day: |S ∩ R| / |S|, / |R|, harmonic mean.
//   - Date1P, Date1R, Date1F1: the same with a ±1 day tolerance: the largest one-to-one
//     matching of system and reference days at most a day apart, and among those the one with
//     the most exact-day pairs.
//   - AlignP, AlignR, AlignF1 (alignment ROUGE-1): the clipped unigram overlap of each matched
//     pair's texts, summed, over all system tokens (P) and all reference tokens (R); an
//     unmatched day adds only to the denominators.
//   - ConcatF1: ROUGE-1 F of the whole system timeline against the whole reference.
//
// Tokens are lower-cased runs of letters and digits; no stemming, stop words kept.

// TimelineScore is one timeline's figures.
type TimelineScore struct {
	System, Reference       int
	DateP, DateR, DateF1    float64
	Date1P, Date1R, Date1F1 float64
	AlignP, AlignR, AlignF1 float64
	ConcatF1                float64
}

// ScoreTimeline scores a system timeline against a reference one, each a text per day
// (days at 00:00 UTC).
func ScoreTimeline(system, reference map[time.Time]string) TimelineScore {
	sc := TimelineScore{System: len(system), Reference: len(reference)}
	sdays, rdays := sortedDays(system), sortedDays(reference)
	hit := 0
	for _, d := range sdays {
		if _, ok := reference[d]; ok {
			hit++
		}
	}
	sc.DateP, sc.DateR = ratio(hit, len(sdays)), ratio(hit, len(rdays))
	sc.DateF1 = f1(sc.DateP, sc.DateR)
	pairs := MatchDays(sdays, rdays)
	sc.Date1P, sc.Date1R = ratio(len(pairs), len(sdays)), ratio(len(pairs), len(rdays))
	sc.Date1F1 = f1(sc.Date1P, sc.Date1R)
	stok, rtok := map[time.Time]map[string]int{}, map[time.Time]map[string]int{}
	sall, rall := 0, 0
	scat, rcat := map[string]int{}, map[string]int{}
	for _, d := range sdays {
		stok[d] = rougeTokens(system[d])
		for t, n := range stok[d] {
			sall += n
			scat[t] += n
		}
	}
	for _, d := range rdays {
		rtok[d] = rougeTokens(reference[d])
		for t, n := range rtok[d] {
			rall += n
			rcat[t] += n
		}
	}
	ov := 0
	for _, p := range pairs {
		ov += overlapCount(stok[p[0]], rtok[p[1]])
	}
	sc.AlignP, sc.AlignR = ratio(ov, sall), ratio(ov, rall)
	sc.AlignF1 = f1(sc.AlignP, sc.AlignR)
	co := overlapCount(scat, rcat)
	sc.ConcatF1 = f1(ratio(co, sall), ratio(co, rall))
	return sc
}

func sortedDays(m map[time.Time]string) []time.Time {
	out := make([]time.Time, 0, len(m))
	for d := range m {
		out = append(out, d)
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// rougeTokens counts the lower-cased runs of letters and digits of s.
func rougeTokens(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		out[w]++
	}
	return out
}

// overlapCount is the clipped overlap of two token counts.
func overlapCount(a, b map[string]int) int {
	n := 0
	for t, x := range a {
		n += min(x, b[t])
	}
	return n
}

// MatchDays is a largest one-to-one matching of system and reference days at most one day
// apart, and among those one with the most exact-day pairs, as [system day, reference day]
// pairs in order. It is a dynamic programme over the days in order whose state is whether the
// previous day's system and reference days are still unmatched; ties resolve as the CL-TLS
// scorer resolves them, so the alignment scores agree.
func MatchDays(system, reference []time.Time) [][2]time.Time {
	S, R := map[time.Time]bool{}, map[time.Time]bool{}
	for _, d := range system {
		S[d] = true
	}
	for _, d := range reference {
		R[d] = true
	}
	var days []time.Time
	for d := range S {
		days = append(days, d)
	}
	for d := range R {
		if !S[d] {
			days = append(days, d)
		}
	}
	slices.SortFunc(days, time.Time.Compare)

	// A table is the states reached after a day, in the order first reached (the order the
	// scorer iterates them in), each with its value and its back-pointer.
	type state struct{ s, r bool }
	type val struct{ pairs, exact int }
	type entry struct {
		st    state
		v     val
		prev  state
		pairs [][2]time.Time
	}
	better := func(a, b val) bool { return a.pairs > b.pairs || a.pairs == b.pairs && a.exact > b.exact }
	// best picks the entry with the highest value; ties go to the first (withState false) or
	// the highest state (withState true), as the scorer's max over values or over keys does.
	best := func(tab []entry, withState bool) entry {
		b := tab[0]
		for _, e := range tab[1:] {
			switch {
			case better(e.v, b.v):
				b = e
			case withState && e.v == b.v && stateLess(b.st.s, b.st.r, e.st.s, e.st.r):
				b = e
			}
		}
		return b
	}
	cur := []entry{{st: state{}, v: val{}}}
	var trail [][]entry
	var prev time.Time
	day := 24 * time.Hour
	for i, t := range days {
		if i > 0 && t.Sub(prev) > day {
			cur = []entry{{st: state{}, v: best(cur, false).v}}
		}
		hasS, hasR := S[t], R[t]
		var nxt []entry
		put := func(e entry) {
			for k := range nxt {
				if nxt[k].st == e.st {
					if better(e.v, nxt[k].v) {
						nxt[k] = e
					}
					return
				}
			}
			nxt = append(nxt, e)
		}
		for _, e := range cur {
			sOpts := []string{"none"}
			if hasS {
				if e.st.r {
					sOpts = append(sOpts, "prev_r")
				}
				if hasR {
					sOpts = append(sOpts, "same")
				}
			}
			for _, sc := range sOpts {
				rOpts := []string{"none"}
				if hasR {
					if e.st.s {
						rOpts = append(rOpts, "prev_s")
					}
					if sc == "same" {
						rOpts = []string{"same"}
					}
				}
				for _, rc := range rOpts {
					var ps [][2]time.Time
					if sc == "prev_r" {
						ps = append(ps, [2]time.Time{t, t.Add(-day)})
					}
					if sc == "same" {
						ps = append(ps, [2]time.Time{t, t})
					}
					if rc == "prev_s" {
						ps = append(ps, [2]time.Time{t.Add(-day), t})
					}
					ex := 0
					if sc == "same" {
						ex = 1
					}
					put(entry{st: state{hasS && sc == "none", hasR && rc == "none"}, v: val{e.v.pairs + len(ps), e.v.exact + ex}, prev: e.st, pairs: ps})
				}
			}
		}
		trail = append(trail, nxt)
		cur, prev = nxt, t
	}
	if len(trail) == 0 {
		return nil
	}
	var out [][2]time.Time
	st := best(cur, true).st
	for i := len(trail) - 1; i >= 0; i-- {
		var e entry
		for _, x := range trail[i] {
			if x.st == st {
				e = x
			}
		}
		out = append(out, e.pairs...)
		st = e.prev
		if i > 0 && days[i].Sub(days[i-1]) > day {
			st = best(trail[i-1], true).st
		}
	}
	slices.SortFunc(out, func(a, b [2]time.Time) int { return cmp.Or(a[0].Compare(b[0]), a[1].Compare(b[1])) })
	return out
}

// stateLess orders states as Python orders (bool, bool) tuples.
func stateLess(as, ar, bs, br bool) bool {
	if as != bs {
		return !as
	}
	return !ar && br
}

// TimelineKey names a reference timeline: a language and a topic.
type TimelineKey struct{ Lang, Topic string }

// timelineRow is a row of a timelines file (CL-TLS's shape: lang, topic, date, text).
type timelineRow struct {
	Lang  string    `parquet:"lang"`
	Topic string    `parquet:"topic"`
	Date  time.Time `parquet:"date,timestamp(millisecond)"`
	Text  string    `parquet:"text"`
}

// ReadTimelines reads reference timelines from a Parquet file with columns lang, topic, date
// (a timestamp; its UTC day counts) and text. A day repeated within a timeline has its texts
// joined.
func ReadTimelines(path string) (map[TimelineKey]map[time.Time]string, error) {
	rows, err := parquet.ReadFile[timelineRow](path)
	if err != nil {
		return nil, fmt.Errorf("timelines %s: %w", path, err)
	}
	out := map[TimelineKey]map[time.Time]string{}
	for _, r := range rows {
		k := TimelineKey{r.Lang, r.Topic}
		if out[k] == nil {
			out[k] = map[time.Time]string{}
		}
		d := r.Date.UTC()
		d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
		if prev, ok := out[k][d]; ok {
			out[k][d] = prev + "\n" + r.Text
		} else {
			out[k][d] = r.Text
		}
	}
	return out, nil
}

// TimelineTopic is a topic to build a timeline of, as a topics file names it (CL-TLS's
// topics.parquet: lang, topic, query; last_article, when present, the day of its last article).
type TimelineTopic struct {
	Lang        string    `parquet:"lang"`
	Topic       string    `parquet:"topic"`
	Query       string    `parquet:"query"`
	LastArticle time.Time `parquet:"last_article,optional,timestamp(millisecond)"`
}

// Key is the topic's timeline key.
func (t TimelineTopic) Key() TimelineKey { return TimelineKey{t.Lang, t.Topic} }

// ReadTimelineTopics reads a topics file: Parquet with columns lang, topic and query (required)
// and last_article (optional).
func ReadTimelineTopics(path string) ([]TimelineTopic, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("topics %s: %w", path, err)
	}
	for _, col := range []string{"lang", "topic", "query"} {
		if _, ok := pf.Schema().Lookup(col); !ok {
			return nil, fmt.Errorf("topics %s: no %q column (want lang, topic, query)", path, col)
		}
	}
	rows, err := parquet.Read[TimelineTopic](f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("topics %s: %w", path, err)
	}
	for i, r := range rows {
		if strings.TrimSpace(r.Query) == "" || r.Lang == "" || r.Topic == "" {
			return nil, fmt.Errorf("topics %s: row %d has an empty lang, topic or query", path, i+1)
		}
	}
	return rows, nil
}

// TimelineMacro is the mean of each figure over timelines, and their number.
type TimelineMacro struct {
	N                       int
	DateP, DateR, DateF1    float64
	Date1P, Date1R, Date1F1 float64
	AlignP, AlignR, AlignF1 float64
	ConcatF1                float64
}

// MacroTimelines averages scores over timelines (each counts once).
func MacroTimelines(scores []TimelineScore) TimelineMacro {
	m := TimelineMacro{N: len(scores)}
	if len(scores) == 0 {
		return m
	}
	for _, s := range scores {
		m.DateP += s.DateP
		m.DateR += s.DateR
		m.DateF1 += s.DateF1
		m.Date1P += s.Date1P
		m.Date1R += s.Date1R
		m.Date1F1 += s.Date1F1
		m.AlignP += s.AlignP
		m.AlignR += s.AlignR
		m.AlignF1 += s.AlignF1
		m.ConcatF1 += s.ConcatF1
	}
	n := float64(len(scores))
	for _, p := range []*float64{&m.DateP, &m.DateR, &m.DateF1, &m.Date1P, &m.Date1R, &m.Date1F1, &m.AlignP, &m.AlignR, &m.AlignF1, &m.ConcatF1} {
		*p /= n
	}
	return m
}
