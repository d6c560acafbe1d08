// Package timeline builds the dated events of a topic as of a day from the passages found
// about it: which days to show, and one or two sentences for each, with the passages they
// come from.
//
// A day is chosen by how many documents report it: a document reports the days its sentences
// mention (internal/eventtime: "ayer", "le 15 février", "lunedì scorso", 2011年2月17日) and,
// more weakly, the day it was published. Most events of a crisis are reported the day after
// (publication days alone find at most a third of a reference timeline's days on CL-TLS), and
// the days many sources name are the events. Nothing after the anchor is ever shown: passages
// published after it are dropped, and so are mentioned days after it ("the vote on Sunday" in
// a text published before the anchor, about a Sunday after it).
//
// The sentences of a day are those that mention it (for a day chosen by publication, the
// first sentences of the documents published that day), ranked by how much of their words the
// day's other sentences share: the sentence most sources agree with comes first.
package timeline

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/eventtime"
	"github.com/asofrag/asof/internal/textnorm"
)

// Passage is a piece of a document found about the topic.
type Passage struct {
	DocID, Title, Text, Source, URL, Lang string
	// Published is the document's publication time.
	Published time.Time
}

// Options shape a timeline.
type Options struct {
	// AsOf is the anchor: nothing published or dated after its day (UTC) is used.
	AsOf time.Time
	// From, when set, is the first day a timeline may show.
	From time.Time
	// Dates is how many days to show; 0 chooses from the span (DefaultDates).
	Dates int
	// Sentences is how many sentences each day shows (default 1, at most 3).
	Sentences int
}

// Entry is one day of a timeline.
type Entry struct {
	Day time.Time
	// Sentences are the day's sentences, best first.
	Sentences []Sentence
	// Documents is how many documents report the day (mention it or were published on it).
	Documents int
	// Score is the day's weight (documents mentioning it, publications counted at
	// PublishedWeight).
	Score float64
}

// Sentence is a sentence of a passage, with where it comes from.
type Sentence struct {
	Text                      string
	DocID, Title, Source, URL string
	Published                 time.Time
	// Mentioned is set when the sentence names the day (else it leads a document published
	// that day).
	Mentioned bool
}

// Timeline is the result.
type Timeline struct {
	Entries []Entry // in day order
	// Candidates is how many days were reported at all; Passages how many passages were read
	// (published by the anchor), Documents how many documents they came from.
	Candidates, Passages, Documents int
}

// Weights. A document that mentions a day counts 1 for it, at most once; one published on a
// day counts PublishedWeight for it (most events are reported the day after, and a day with
// many articles is busy); a mention after the document's publication day (a plan: "the vote
// on Sunday") counts FutureWeight; a day next to one already chosen counts NeighbourWeight of
// its weight, so that two days do not both stand for one event reported a day late. Chosen on
// the CL-TLS dev topics (BENCHMARKS.md): the figures are flat around these values.
const (
	PublishedWeight = 0.5
	FutureWeight    = 0.5
	NeighbourWeight = 0.75
)

// LeadSentences is how many first sentences of a document stand for its publication day.
const LeadSentences = 2

// DefaultDates is the number of days a timeline of candidates spanning span shows when asked
// for none: one a week, at least 10, at most 40, never more than the candidates.
func DefaultDates(span time.Duration, candidates int) int {
	n := int(span.Hours()/24/7) + 1
	return min(max(n, 10), 40, candidates)
}

type vote struct {
	score float64
	docs  map[string]bool
	sents []Sentence
}

// Build makes the timeline of passages as of opts.AsOf.
func Build(passages []Passage, opts Options) Timeline {
	asOf := eventtime.Day(opts.AsOf)
	from := time.Time{}
	if !opts.From.IsZero() {
		from = eventtime.Day(opts.From)
	}
	votes := map[time.Time]*vote{}
	credit := map[string]float64{} // docID+day → the weight already given
	add := func(day time.Time, docID string, w float64, s Sentence) {
		if day.After(asOf) || !from.IsZero() && day.Before(from) {
			return
		}
		v := votes[day]
		if v == nil {
			v = &vote{docs: map[string]bool{}}
			votes[day] = v
		}
		key := docID + "\x00" + day.Format(time.DateOnly)
		if w > credit[key] {
			v.score += w - credit[key]
			credit[key] = w
		}
		v.docs[docID] = true
		v.sents = append(v.sents, s)
	}
	var tl Timeline
	var first, last time.Time
	seenLead := map[string]int{}
	docs := map[string]bool{}
	for _, p := range passages {
		if p.Published.After(asofday.Last(opts.AsOf)) {
			continue
		}
		tl.Passages++
		docs[p.DocID] = true
		pub := eventtime.Day(p.Published)
		lang := p.Lang
		if lang == "" {
			lang = textnorm.Lang(p.Text)
		}
		for _, st := range textnorm.Sentences(p.Text) {
			s := Sentence{Text: st, DocID: p.DocID, Title: p.Title, Source: p.Source, URL: p.URL, Published: p.Published}
			if seenLead[p.DocID] < LeadSentences && words(st) >= 5 {
				seenLead[p.DocID]++
				add(pub, p.DocID, PublishedWeight, s)
			}
			for _, m := range eventtime.Mentions(st, p.Published, lang) {
				w := 1.0
				if m.Future(p.Published) {
					w = FutureWeight
				}
				ms := s
				ms.Mentioned = true
				add(m.Day, p.DocID, w, ms)
			}
		}
		if first.IsZero() || pub.Before(first) {
			first = pub
		}
		if pub.After(last) {
			last = pub
		}
	}
	tl.Candidates, tl.Documents = len(votes), len(docs)
	days := make([]time.Time, 0, len(votes))
	for d := range votes {
		days = append(days, d)
	}
	slices.SortFunc(days, func(a, b time.Time) int {
		va, vb := votes[a], votes[b]
		return cmp.Or(cmp.Compare(vb.score, va.score), cmp.Compare(len(vb.docs), len(va.docs)), b.Compare(a))
	})
	n := opts.Dates
	if n <= 0 {
		n = DefaultDates(last.Sub(first), len(days))
	}
	days = choose(days, votes, n)
	// Sentences are picked for the best days first, and a sentence shown for one day is not
	// shown again for another ("la nuit de mardi à mercredi" names two) while the day has others.
	k := min(max(opts.Sentences, 1), 3)
	shown := map[string]bool{}
	for _, d := range days {
		v := votes[d]
		fresh := slices.DeleteFunc(slices.Clone(v.sents), func(s Sentence) bool { return shown[s.Text] })
		if len(fresh) == 0 {
			fresh = v.sents
		}
		e := Entry{Day: d, Sentences: pick(fresh, k), Documents: len(v.docs), Score: v.score}
		for _, s := range e.Sentences {
			shown[s.Text] = true
		}
		tl.Entries = append(tl.Entries, e)
	}
	slices.SortFunc(tl.Entries, func(a, b Entry) int { return a.Day.Compare(b.Day) })
	return tl
}

// choose takes n days greedily by score, a day next to one taken counting NeighbourWeight of
// its score.
func choose(ranked []time.Time, votes map[time.Time]*vote, n int) []time.Time {
	taken := map[time.Time]bool{}
	var out []time.Time
	for len(out) < n && len(out) < len(ranked) {
		var best time.Time
		bs := -1.0
		for _, d := range ranked {
			if taken[d] {
				continue
			}
			sc := votes[d].score
			if taken[d.AddDate(0, 0, -1)] || taken[d.AddDate(0, 0, 1)] {
				sc *= NeighbourWeight
			}
			if sc > bs {
				best, bs = d, sc
			}
		}
		taken[best] = true
		out = append(out, best)
	}
	return out
}

// words counts the words of s.
func words(s string) int { return len(textnorm.Tokens(s)) }

// pick returns the k sentences of a day that its other sentences agree with most, one per
// document and no near copies, preferring sentences that name the day.
func pick(sents []Sentence, k int) []Sentence {
	terms := make([][]string, len(sents))
	for i, s := range sents {
		terms[i] = textnorm.Terms(s.Text)
	}
	score := make([]float64, len(sents))
	for i := range sents {
		for j := range sents {
			if i != j && sents[i].DocID != sents[j].DocID {
				score[i] += textnorm.Jaccard(terms[i], terms[j])
			}
		}
		if sents[i].Mentioned {
			score[i] += 0.5
		}
		// Very short or very long sentences read badly as an event.
		if n := len(terms[i]); n < 4 || n > 60 {
			score[i] *= 0.5
		}
		score[i] -= 1e-3 * math.Abs(float64(len(terms[i])-20))
	}
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	var out []Sentence
	used := map[string]bool{}
	for _, i := range order {
		if len(out) == k {
			break
		}
		if used[sents[i].DocID] || slices.ContainsFunc(out, func(o Sentence) bool {
			return textnorm.Jaccard(textnorm.Terms(o.Text), terms[i]) >= 0.5
		}) {
			continue
		}
		used[sents[i].DocID] = true
		out = append(out, sents[i])
	}
	return out
}

// Text is the sentences of e joined by a space.
func (e Entry) Text() string {
	parts := make([]string, len(e.Sentences))
	for i, s := range e.Sentences {
		parts[i] = strings.TrimSpace(s.Text)
	}
	return strings.Join(parts, " ")
}
