// Package summarize is the offline summarizer of docs/design.md §6: with no LLM configured it
// answers from the context blocks (package evidence) by picking sentences, never by writing
// any. It returns a schemas.Brief, the structured summary an LLM also returns (package brief),
// which package render turns into Markdown and HTML. Every claim of it is a sentence, a piece of
// one block, dated with that block's publication time and citing its number [N], and nothing
// else is dated or cited. It is a pure function of its inputs: no I/O, no clock, and the same
// input gives the same Brief.
//
// Candidates. Each block offers its title (when it has a letter and at least two words) and the
// sentences of its chunk text, Doc.Text, or of its Snippet when the text is empty (see
// Sentences: English and Russian rules, line breaks are boundaries). A sentence is kept when
// it has a letter and at least 20 runes. A chunk that starts with a lower-case letter starts
// mid-sentence (chunks overlap), so its first piece is dropped. Footnote marks such as "[12]"
// are removed so that no bracketed number other than a citation reaches the output, and a piece
// whose terms repeat an earlier piece of the same block (a title repeated as the first line) is
// dropped, and so is a title when 70% of its terms are in one of the block's sentences (the
// lead sentence says the same, with more).
//
// Terms. Text is split with textnorm.Tokens; stop-words (a small English and Russian list that
// includes temporal cue words such as "latest", "changed", "сейчас") are dropped; each
// remaining token is reduced by a light stemmer: Russian tokens are compared on their
// first 5 runes less trailing vowels ("ставка", "ставку" → "ставк"), other tokens after
// dropping plural and -ed/-ing endings and a final "e", on their first 6 runes ("rate",
// "rates" → "rat").
//
// Score. For the distinct terms Q of the query and S of a sentence,
//
//	coverage = |Q ∩ S| / min(|Q|, CoverageTerms)   (at most 1; 1 for every sentence when Q is empty)
//	score    = coverage + RankWeight · r
//
// CoverageTerms (8 by default; 0: |Q|) is how many of a long query's terms make a sentence
// cover it: a post pasted as the question has 30–60 terms, and no sentence of a follow-up holds
// a quarter of them.
//
// where r = (Doc.Score − min) / (max − min) over the blocks given, or 0 when all scores are
// equal or a score is not finite. A sentence is relevant when its coverage is positive and at
// least MinOverlap. When none is, the sentences with a positive coverage stand in and the
// Brief carries FallbackNote; when no sentence shares a term with the query, the result is
// NotEnough.
//
// Relevance floor. A sentence may be said as new (and on the evolution's "now" side) only
// when it is on topic: its coverage is at least MinOverlap (any positive coverage in a
// fallback) and its block's cosine to the query (evidence.Doc.Cosine, 0 unknown: no floor) is
// at least the best cosine of the blocks less CosineSlack (a block that is the query's own
// text, textnorm.IsCopy, does not count as the best: a post pasted as the question). A sentence of the "new" window
// below the floor is not said at all: a channel's weekly calendar post that names every word
// of the query never leads, nor shows up as news. Nor does a calendar above the floor: a block
// whose first piece names a schedule in its first words ("Calendar of releases for August",
// «Календарь публикаций ЦБ РФ на август»; see schedule) never leads, is never said as new and
// never on the "now" side; the topic's latest event leads instead.
//
// Selection. The lead comes first: the on-topic "new" sentence with the best coverage +
// LeadRankWeight · r (the most relevant fresh evidence; ties: the better scored); then, up to
// half of MaxSentences (rounded up), the other on-topic new sentences, freshest first, so the
// freshest facts are said; then the best of the rest by score (ties: newer date, then lower N,
// then earlier in the block, the title first) up to MaxSentences. When nothing on topic is new,
// the latest on-topic older sentence leads instead. A sentence is skipped when it is beyond
// MaxPerDoc from its block or repeats one already taken: a term Jaccard above NoveltyMax (the
// same news reposted by a second channel) or, unless NoveltyMax is 1, 70% of the terms of one
// in the other (a title and a repost's lead sentence that says it again, with more). Taken
// sentences are cut to MaxSentenceChars runes at a word boundary with "…". They are then split
// into "new" (published from 00:00 UTC NewDays−1 days before A's day, inclusive, to the end of
// A's day: with NewDays 7 and A = 2024-06-30, from 2024-06-24 00:00) and "earlier" (before
// that): the lead first in its section, the others freshest first; and listed again oldest
// first as the timeline (render shows each claim once). A Brief with nothing to say has the
// NothingSaidNote; an evolution whose "now" side is empty while "then" is not has the
// NothingRecentNote.
//
// Days are UTC calendar days, as in evidence. A block published after the end of A's day is a
// leak from upstream and is an error, not skipped.
package summarize

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Method is the Method of every Brief made here: outputs label offline answers with it.
const Method = "extractive"

// FallbackNote is the Note of a Brief whose sentences all fell short of MinOverlap: the
// closest ones were taken.
const FallbackNote = "Weak match: no sentence covers enough of the query's terms; the closest ones are shown."

// Options shape a summary.
type Options struct {
	// MaxSentences is the most sentences selected in all (Evolve: per group, half of it
	// rounded up).
	MaxSentences int `json:"MaxSentences"`
	// NewDays is the "new" window: sentences from blocks published on A's day or the
	// NewDays−1 days before it (0: none is new).
	NewDays int `json:"NewDays"`
	// MaxPerDoc is the most sentences taken from one block.
	MaxPerDoc int `json:"MaxPerDoc"`
	// MinOverlap is the least query-term coverage, in [0, 1], of a relevant sentence.
	MinOverlap float64 `json:"MinOverlap"`
	// CoverageTerms caps the query terms coverage counts against: a sentence holding this many
	// of a longer query's terms covers it (0: no cap, every term counts).
	CoverageTerms int `json:"CoverageTerms,omitempty"`
	// NoveltyMax, in [0, 1], is the largest term Jaccard a sentence may have with one
	// already taken; above it, the sentence is redundant.
	NoveltyMax float64 `json:"NoveltyMax"`
	// MaxSentenceChars is the most runes of a sentence, the "…" of a cut one included.
	MaxSentenceChars int `json:"MaxSentenceChars"`
	// RankWeight weighs the block's normalized retrieval score against query coverage.
	RankWeight float64 `json:"RankWeight"`
	// LeadRankWeight weighs the block's normalized retrieval score against query coverage
	// when the lead is chosen: the claim a reader sees first.
	LeadRankWeight float64 `json:"LeadRankWeight"`
	// CosineSlack is the relevance floor of a "new" claim and of the evolution's "now" side:
	// its block's cosine to the query (evidence.Doc.Cosine) must be at least the best cosine
	// of the blocks given minus CosineSlack. Blocks of unknown cosine (0) pass; 1 lets
	// every block pass.
	CosineSlack float64 `json:"CosineSlack"`
}

// DefaultOptions are 8 sentences, a 7-day "new" window, 2 sentences per block, 25% query
// coverage (2 of 8 query terms: one common word alone, "new" or "union", is not enough) counted
// against at most 8 query terms, 0.6 novelty, 300-rune sentences and a 0.1 rank weight.
func DefaultOptions() Options {
	return Options{
		MaxSentences: 8, NewDays: 7, MaxPerDoc: 2, MinOverlap: 0.25, CoverageTerms: 8, NoveltyMax: 0.6,
		MaxSentenceChars: 300, RankWeight: 0.1, LeadRankWeight: 1, CosineSlack: 0.06,
	}
}

// Validate reports options that cannot summarize.
func (o Options) Validate() error {
	unit := func(x float64) bool { return x >= 0 && x <= 1 } // false for NaN
	switch {
	case o.MaxSentences < 1:
		return fmt.Errorf("summarize: max sentences %d must be positive", o.MaxSentences)
	case o.NewDays < 0:
		return fmt.Errorf("summarize: new days %d must not be negative", o.NewDays)
	case o.MaxPerDoc < 1:
		return fmt.Errorf("summarize: max per doc %d must be positive", o.MaxPerDoc)
	case !unit(o.MinOverlap):
		return fmt.Errorf("summarize: min overlap %v must be in [0, 1]", o.MinOverlap)
	case o.CoverageTerms < 0:
		return fmt.Errorf("summarize: coverage terms %d must not be negative", o.CoverageTerms)
	case !unit(o.NoveltyMax):
		return fmt.Errorf("summarize: novelty max %v must be in [0, 1]", o.NoveltyMax)
	case o.MaxSentenceChars < 1:
		return fmt.Errorf("summarize: max sentence chars %d must be positive", o.MaxSentenceChars)
	case !(o.RankWeight >= 0) || math.IsInf(o.RankWeight, 1):
		return fmt.Errorf("summarize: rank weight %v must be finite and not negative", o.RankWeight)
	case !(o.LeadRankWeight >= 0) || math.IsInf(o.LeadRankWeight, 1):
		return fmt.Errorf("summarize: lead rank weight %v must be finite and not negative", o.LeadRankWeight)
	case !unit(o.CosineSlack):
		return fmt.Errorf("summarize: cosine slack %v must be in [0, 1]", o.CosineSlack)
	}
	return nil
}

// ErrFuture is returned (wrapped, naming the block) when a block was published after the end
// of the as-of day: retrieval leaked it (evidence.CheckBlocks).
var ErrFuture = evidence.ErrFuture

// ErrNoAsOf is returned when the as-of time is zero.
var ErrNoAsOf = errors.New("summarize: as-of time is zero")

// ErrBlockNumber is returned (wrapped) when a block's citation number is not positive or is
// used by two blocks, so that a citation would be ambiguous (evidence.CheckBlocks).
var ErrBlockNumber = evidence.ErrBlockNumber

// NothingSaidNote is the Note of a Brief that found nothing to say: no sentence of the blocks
// shares a term with the query.
const NothingSaidNote = "No sentence of the documents found mentions the query's terms."

// NothingRecentNote is the Note of an evolution Brief whose "now" side is empty while its
// "then" side is not: nothing recent passed the relevance floor.
const NothingRecentNote = "Nothing recent is on topic: the newest documents found do not pass the relevance floor."

// Brief summarizes blocks for query as of asOf's UTC day: New are the sentences of the "new"
// window, the lead first, then freshest first; Earlier the older ones (freshest first; when
// nothing is new, the latest on-topic one, which leads, first); and Timeline all of them,
// oldest first. AsOf is the start of
// asOf's UTC day and NewDays the window.
func Brief(query string, blocks []evidence.Block, asOf time.Time, o Options) (schemas.Brief, error) {
	day, err := check(asOf, o, blocks)
	if err != nil {
		return schemas.Brief{}, err
	}
	s := schemas.Brief{Method: Method, AsOf: day, NewDays: o.NewDays, New: []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{}}
	newFrom := day.AddDate(0, 0, 1-o.NewDays) // first new instant (NewDays 0: the day after A)
	isNew := func(c candidate) bool { return !c.block.Doc.PublishedAt.Before(newFrom) }
	pool, fallback, notEnough := score(textnorm.Terms(query), candidates(blocks, rankNorm(blocks), o.MaxSentenceChars), o)
	s.NotEnough = notEnough
	switch {
	case notEnough && len(blocks) > 0:
		s.Note = NothingSaidNote
	case fallback:
		s.Note = FallbackNote
	}
	floor := cosineFloor(o, textnorm.Terms(query), blocks)
	onTopic := func(c candidate) bool { return (fallback || c.coverage >= o.MinOverlap) && aboveFloor(c, floor) }
	var fresh, older []candidate
	for _, c := range pool {
		switch {
		case !isNew(c):
			older = append(older, c)
		case onTopic(c) && !schedule(c.block):
			fresh = append(fresh, c) // a new sentence below the floor, or of a calendar, is never said
		}
	}
	var p picker
	p.o = o
	if len(fresh) > 0 {
		// The lead is the most relevant fresh sentence; the others of the "new" half follow
		// freshest first, so the freshest on-topic facts are said.
		p.take(o.MaxSentences, lead(fresh, o))
		p.take((o.MaxSentences+1)/2, slices.SortedStableFunc(slices.Values(fresh), freshestFirst)...)
	} else if top := slices.DeleteFunc(slices.Clone(older), func(c candidate) bool { return !onTopic(c) || schedule(c.block) }); len(top) > 0 {
		// Nothing new: the latest on-topic sentence leads (ties: the best scored).
		p.take(o.MaxSentences, slices.SortedStableFunc(slices.Values(top), func(a, b candidate) int {
			return b.block.Doc.PublishedAt.Compare(a.block.Doc.PublishedAt)
		})[0])
	}
	p.take(o.MaxSentences, slices.Concat(fresh, older)...) // pool order: best score first
	slices.SortStableFunc(p.chosen[min(1, len(p.chosen)):], freshestFirst)
	for _, c := range p.chosen {
		if isNew(c) {
			s.New = append(s.New, c.claim(o))
		} else {
			s.Earlier = append(s.Earlier, c.claim(o))
		}
	}
	for _, c := range slices.SortedStableFunc(slices.Values(p.chosen), oldestFirst) {
		s.Timeline = append(s.Timeline, c.claim(o))
	}
	return s, nil
}

// Evolve summarizes two groups of blocks, the oldest and the newest evidence of one context, as
// "then" vs "now". Each group gets half of MaxSentences, rounded up; novelty and MaxPerDoc
// apply within a group. The "now" side is chosen as Brief chooses its new sentences: the lead,
// the freshest up to half the side, then the best. Block numbers must be distinct across both groups. An empty group, or
// one with nothing relevant, gives an empty side; the "now" side takes only sentences above
// the relevance floor (MinOverlap, CosineSlack), and when it is empty while "then" is not, the
// Brief's Note says that nothing recent is on topic. In the Brief, Then is oldest first and Now
// freshest first; New, Earlier and Timeline are empty; NotEnough is set when neither side has
// anything relevant.
func Evolve(query string, then, now []evidence.Block, asOf time.Time, o Options) (schemas.Brief, error) {
	day, err := check(asOf, o, then, now)
	if err != nil {
		return schemas.Brief{}, err
	}
	all := slices.Concat(then, now)
	rank := rankNorm(all)
	q := textnorm.Terms(query)
	budget := (o.MaxSentences + 1) / 2
	thenPool, thenFB, thenNE := score(q, candidates(then, rank[:len(then)], o.MaxSentenceChars), o)
	nowPool, _, _ := score(q, candidates(now, rank[len(then):], o.MaxSentenceChars), o)
	floor := cosineFloor(o, q, all)
	nowPool = slices.DeleteFunc(nowPool, func(c candidate) bool {
		return c.coverage < o.MinOverlap || !aboveFloor(c, floor) || schedule(c.block)
	})
	var tp, np picker
	tp.o, np.o = o, o
	tp.take(budget, thenPool...)
	np.said = tp.chosen // a sentence said "then" is not said again "now" (a repost on both sides)
	if len(nowPool) > 0 {
		// As in Brief: the lead, then the freshest on-topic sentences up to half the side, so
		// the side's freshest fact is said; then the best by score.
		np.take(budget, lead(nowPool, o))
		np.take((budget+1)/2, slices.SortedStableFunc(slices.Values(nowPool), freshestFirst)...)
		np.take(budget, nowPool...)
	}
	e := schemas.Brief{Method: Method, AsOf: day, New: []schemas.Claim{}, Earlier: []schemas.Claim{}, Timeline: []schemas.Claim{},
		Then: []schemas.Claim{}, Now: []schemas.Claim{}, NotEnough: thenNE && len(nowPool) == 0}
	switch {
	case e.NotEnough && len(all) > 0:
		e.Note = NothingSaidNote
	case len(nowPool) == 0 && len(tp.chosen) > 0:
		e.Note = NothingRecentNote
	case thenFB:
		e.Note = FallbackNote
	}
	for _, c := range slices.SortedStableFunc(slices.Values(tp.chosen), oldestFirst) {
		e.Then = append(e.Then, c.claim(o))
	}
	for _, c := range slices.SortedStableFunc(slices.Values(np.chosen), freshestFirst) {
		e.Now = append(e.Now, c.claim(o))
	}
	return e, nil
}

// check validates the inputs and returns the start of asOf's UTC day.
func check(asOf time.Time, o Options, groups ...[]evidence.Block) (time.Time, error) {
	if err := o.Validate(); err != nil {
		return time.Time{}, err
	}
	if asOf.IsZero() {
		return time.Time{}, ErrNoAsOf
	}
	if err := evidence.CheckBlocks(asOf, groups...); err != nil {
		return time.Time{}, err
	}
	day := asofday.Start(asOf)
	return day, nil
}

// rankNorm returns each block's Doc.Score scaled to [0, 1] over the blocks.
func rankNorm(blocks []evidence.Block) []float64 {
	out := make([]float64, len(blocks))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range blocks {
		s := b.Doc.Score
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return out
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi > lo {
		for i, b := range blocks {
			out[i] = (b.Doc.Score - lo) / (hi - lo)
		}
	}
	return out
}

// candidate is a sentence that may be selected.
type candidate struct {
	block    evidence.Block
	pos      int // 0 for the title, then 1, 2, … in the text
	text     string
	terms    []string
	rank     float64 // normalized block score
	coverage float64
	score    float64
}

// claim is the candidate as a claim: its text cut to MaxSentenceChars runes, dated with its
// block's publication time and citing the block.
func (c candidate) claim(o Options) schemas.Claim {
	return schemas.Claim{Date: c.block.Doc.PublishedAt, Text: evidence.Snippet(c.text, o.MaxSentenceChars), Cites: []int{c.block.N}}
}

// footnote matches footnote marks, which would read as citations.
var footnote = regexp.MustCompile(`\[\s*\d+\s*\]`)

// minSentenceRunes is the shortest sentence of a text kept as a candidate.
const minSentenceRunes = 20

// candidates returns the candidate sentences of blocks; rank[i] is block i's normalized score.
// A sentence that opens on a word pointing back (dangling: «Она считает…», "He also said…")
// stands with the sentences before it back to one that does not, when they fit in maxChars
// runes, and is left out otherwise, as is a chunk's first sentence that does (what it points
// to is in another chunk).
func candidates(blocks []evidence.Block, rank []float64, maxChars int) []candidate {
	var out []candidate
	for i, b := range blocks {
		seen := map[string]bool{} // terms of the block's pieces so far
		add := func(pos int, s string, title bool) {
			s = strings.Join(strings.Fields(footnote.ReplaceAllString(s, " ")), " ")
			s = strings.TrimLeft(s, "-–—•·> ") // list bullets
			if !strings.ContainsFunc(s, unicode.IsLetter) {
				return
			}
			if (title && len(textnorm.Tokens(s)) < 2) || (!title && utf8.RuneCountInString(s) < minSentenceRunes) {
				return
			}
			t := textnorm.Terms(s)
			k := strings.Join(t, " ")
			if seen[k] {
				return
			}
			seen[k] = true
			out = append(out, candidate{block: b, pos: pos, text: s, terms: t, rank: rank[i]})
		}
		add(0, b.Doc.Title, true)
		text := b.Doc.Text
		if strings.TrimSpace(text) == "" {
			text = b.Snippet
		}
		first := len(out)
		sents := Sentences(text)
		for k, s := range sents {
			if k == 0 {
				if r, _ := utf8.DecodeRuneInString(s); unicode.IsLower(r) || dangling(s) {
					continue // a chunk that starts mid-sentence, or on a word pointing back
				}
			}
			if k > 0 && dangling(s) {
				j := k - 1 // back to the sentence that names what s points to
				for j > 0 && dangling(sents[j]) {
					j--
				}
				if s = strings.Join(sents[j:k+1], " "); dangling(s) || utf8.RuneCountInString(s) > maxChars {
					continue
				}
			}
			add(k+1, s, false)
		}
		// A title that one of the block's sentences says again, with more, gives way to it.
		if first > 0 && out[first-1].block.N == b.N && out[first-1].pos == 0 {
			title := out[first-1]
			if slices.ContainsFunc(out[first:], func(c candidate) bool {
				return float64(textnorm.Overlap(title.terms, c.terms)) >= titleInSentence*float64(len(title.terms))
			}) {
				out = slices.Delete(out, first-1, first)
			}
		}
	}
	return out
}

// leadIns are words that may open a sentence before the word that points back: «Также он
// сообщил», «По его словам», "According to her", "But they".
var leadIns = map[string]bool{
	"также": true, "тоже": true, "однако": true, "но": true, "и": true, "а": true, "впрочем": true,
	"кроме": true, "того": true, "вместе": true, "с": true, "тем": true, "по": true, "при": true, "этом": true,
	"also": true, "however": true, "but": true, "and": true, "meanwhile": true, "according": true, "to": true,
}

// pointsBack are the words whose referent a sentence taken alone would not name: personal and
// demonstrative pronouns (ё is folded to е by textnorm.Tokens).
var pointsBack = map[string]bool{
	"он": true, "она": true, "оно": true, "они": true, "его": true, "ее": true, "их": true, "ему": true,
	"ей": true, "им": true, "него": true, "нее": true, "них": true, "нему": true, "ней": true, "ним": true,
	"это": true, "этот": true, "эта": true, "эти": true, "этого": true, "этой": true, "этим": true, "этих": true,
	"he": true, "she": true, "it": true, "they": true, "his": true, "her": true, "its": true, "their": true,
	"him": true, "them": true, "these": true, "those": true,
}

// dangling reports whether sentence s opens, after at most three lead-in words, on a word that
// points back to an earlier sentence.
func dangling(s string) bool {
	toks := textnorm.Tokens(s)
	for i, t := range toks {
		switch {
		case pointsBack[t]:
			return true
		case i >= 3 || !leadIns[t]:
			return false
		}
	}
	return false
}

// score scores cands against the query terms q and returns the relevant ones, best first
// (ties: newer date, then lower N, then earlier in the block). fallback reports that none
// reached MinOverlap and the ones with a positive coverage stand in; notEnough that none shares
// a term with q.
func score(q []string, cands []candidate, o Options) (pool []candidate, fallback, notEnough bool) {
	var weak []candidate
	for _, c := range cands {
		c.coverage = 1
		if len(q) > 0 {
			c.coverage = min(1, float64(textnorm.Overlap(q, c.terms))/float64(coverageTerms(len(q), o)))
		}
		c.score = c.coverage + o.RankWeight*c.rank
		switch {
		case c.coverage <= 0:
		case c.coverage >= o.MinOverlap:
			pool = append(pool, c)
		default:
			weak = append(weak, c)
		}
	}
	if len(pool) == 0 {
		if len(weak) == 0 {
			return nil, false, true
		}
		pool, fallback = weak, true
	}
	slices.SortStableFunc(pool, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(b.score, a.score),
			b.block.Doc.PublishedAt.Compare(a.block.Doc.PublishedAt),
			cmp.Compare(a.block.N, b.block.N),
			cmp.Compare(a.pos, b.pos),
		)
	})
	return pool, fallback, false
}

// coverageTerms is what the coverage of a query of n terms is counted against: n, or
// CoverageTerms when that is smaller and set.
func coverageTerms(n int, o Options) int {
	if o.CoverageTerms > 0 {
		return min(n, o.CoverageTerms)
	}
	return n
}

// lead is the candidate a summary leads with: the best by coverage + LeadRankWeight · rank
// (ties: the earlier in cands).
func lead(cands []candidate, o Options) candidate {
	best := cands[0]
	for _, c := range cands[1:] {
		if c.coverage+o.LeadRankWeight*c.rank > best.coverage+o.LeadRankWeight*best.rank {
			best = c
		}
	}
	return best
}

// cosineFloor is the least block cosine of a claim that must be on topic: the best known
// cosine of the blocks less CosineSlack, or 0 when no cosine is known. A block that is the
// query's own text (q its terms; textnorm.IsCopy: a post pasted as the question) does not set
// it, or nothing but the post itself could be said as new.
func cosineFloor(o Options, q []string, blocks []evidence.Block) float64 {
	best := 0.0
	for _, b := range blocks {
		c := b.Doc.Cosine
		if c <= best || math.IsInf(c, 1) || textnorm.IsCopy(q, textnorm.Terms(b.Doc.Title+"\n"+b.Doc.Text)) {
			continue
		}
		best = c
	}
	if best == 0 {
		return 0
	}
	return best - o.CosineSlack
}

// aboveFloor reports whether c's block reaches floor (a block of unknown cosine does).
func aboveFloor(c candidate, floor float64) bool {
	cos := c.block.Doc.Cosine
	return cos == 0 || math.IsNaN(cos) || cos >= floor
}

// scheduleWords are the nouns that name a schedule: a post that opens on one ("Calendar of
// releases for August", "Schedule of upcoming meetings", «Календарь публикаций ЦБ РФ на
// август», «Анонс недели», «Расписание заседаний») says when things will happen, not what
// happened. Whole tokens (lower case, ё as е), so a verb ("анонсировал", "scheduled") is not one.
var scheduleWords = map[string]bool{
	"calendar": true, "calendars": true, "schedule": true, "schedules": true, "agenda": true, "timetable": true,
	"календарь": true, "календаря": true, "календаре": true, "расписание": true, "расписания": true, "анонс": true, "анонсы": true,
	"日程": true, "日历": true, "时间表": true, "日程表": true,
}

// scheduleLead is how many words of a block's first piece may come before the schedule word.
const scheduleLead = 3

// schedule reports whether block b is a calendar or an announcement of what is to come: its
// first piece (the title, or else the first line of its text) names a schedule within its
// first words. Such a block never leads a summary and is never said as new, or on the "now"
// side of an evolution, however many of the query's words it lists: the topic's event is what
// leads, not the list of days it may happen on. It may still be said among the earlier claims.
func schedule(b evidence.Block) bool {
	first := b.Doc.Title
	if strings.TrimSpace(first) == "" {
		text := b.Doc.Text
		if strings.TrimSpace(text) == "" {
			text = b.Snippet
		}
		if s := Sentences(text); len(s) > 0 {
			first = s[0]
		}
	}
	toks := textnorm.Tokens(first)
	return slices.ContainsFunc(toks[:min(len(toks), scheduleLead+1)], func(t string) bool { return scheduleWords[t] })
}

// picker collects the selected candidates.
type picker struct {
	o      Options
	chosen []candidate
	// said are sentences another part of the same answer already says (Evolve: the "then"
	// side for the "now" side): a candidate that repeats one is skipped as if chosen.
	said []candidate
}

// take adds cands in order while fewer than limit are chosen, skipping one already chosen, one
// beyond MaxPerDoc from its block, and one that repeats a chosen one: a term Jaccard above
// NoveltyMax (the same news reposted by a second channel), or, unless NoveltyMax is 1 (novelty
// off), most of the terms of one in the other (a title and the lead sentence of a repost that
// says it again, with more).
func (p *picker) take(limit int, cands ...candidate) {
	for _, c := range cands {
		if len(p.chosen) >= limit {
			return
		}
		perDoc := 0
		repeats := func(d candidate) bool {
			return sameSentence(c, d) || textnorm.Jaccard(c.terms, d.terms) > p.o.NoveltyMax ||
				(p.o.NoveltyMax < 1 && (contains(c.terms, d.terms) || contains(d.terms, c.terms)))
		}
		if slices.ContainsFunc(p.chosen, func(d candidate) bool {
			if d.block.N == c.block.N {
				perDoc++
				if d.pos == c.pos {
					return true
				}
			}
			return repeats(d)
		}) || perDoc >= p.o.MaxPerDoc || slices.ContainsFunc(p.said, repeats) {
			continue
		}
		p.chosen = append(p.chosen, c)
	}
}

// sameSentence reports whether two candidates say the same sentence once normalized: the same
// terms in the same order, or the same dedup key (textnorm.DedupKey: case, punctuation, emoji,
// links and a repost's "BREAKING:" aside). Whatever NoveltyMax is, an answer never
// says one sentence twice.
func sameSentence(a, b candidate) bool {
	return (len(a.terms) > 0 && slices.Equal(a.terms, b.terms)) || textnorm.DedupKey(a.text) == textnorm.DedupKey(b.text)
}

// contains reports whether b holds at least titleInSentence of a's terms (a non-empty).
func contains(a, b []string) bool {
	return len(a) > 0 && float64(textnorm.Overlap(a, b)) >= titleInSentence*float64(len(a))
}

// titleInSentence is the share of a title's terms found in one of its block's sentences above
// which the title is dropped: the sentence says the same, with more.
const titleInSentence = 0.7

// freshestFirst orders by date descending, then citation number, then place in the block.
func freshestFirst(a, b candidate) int {
	return cmp.Or(
		b.block.Doc.PublishedAt.Compare(a.block.Doc.PublishedAt),
		cmp.Compare(a.block.N, b.block.N),
		cmp.Compare(a.pos, b.pos),
	)
}

// oldestFirst orders by date ascending, then citation number, then place in the block.
func oldestFirst(a, b candidate) int {
	return cmp.Or(
		a.block.Doc.PublishedAt.Compare(b.block.Doc.PublishedAt),
		cmp.Compare(a.block.N, b.block.N),
		cmp.Compare(a.pos, b.pos),
	)
}
