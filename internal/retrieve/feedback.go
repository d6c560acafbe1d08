package retrieve

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
)

// Pseudo-relevance feedback on the BM25 branch (RM3-style; Options.Expand, "rm3" in an eval
// system name): the words that best represent the top BM25 hits, weighted as a relevance model
// would weigh them, are added to the query and the branch is searched again. The feedback
// documents come from the masked search, so the feedback never sees a document the as-of mask
// refuses, and the added words are never shown or cited. (The LLM's query variants are another
// thing: internal/expand.)

// DefaultFeedbackDocs is how many top BM25 hits feed the feedback when Options.FeedbackDocs
// is 0.
const DefaultFeedbackDocs = 10

// feedbackDoc is one feedback document: its text and its weight (its BM25 score).
type feedbackDoc struct {
	text   string
	weight float64
}

// feedbackTerms returns up to m words to add to query: for each word w of the feedback
// documents, Σ_d P(d)·tf(w, d)/|d| with P(d) the document's score share (the relevance model
// RM1), over words that are not stop-words, not numbers, at least 3 letters long, not already
// in the query (compared as textnorm.TermKey) and found in at least two feedback documents
// (one document's idiosyncrasies do not speak for the set). Ties go to the word, so the
// result is deterministic. A word is returned in the surface form most frequent in the
// documents; the BM25 analyzer stems it like the text.
func feedbackTerms(query string, docs []feedbackDoc, m int) []string {
	if m <= 0 || len(docs) < 2 {
		return nil
	}
	inQuery := map[string]bool{}
	for _, t := range textnorm.Terms(query) {
		inQuery[t] = true
	}
	var total float64
	for _, d := range docs {
		total += max(d.weight, 0)
	}
	type stat struct {
		score float64
		docs  int
		forms map[string]int
	}
	stats := map[string]*stat{}
	for _, d := range docs {
		p := 1 / float64(len(docs))
		if total > 0 {
			p = max(d.weight, 0) / total
		}
		toks := textnorm.Tokens(d.text)
		if len(toks) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, tok := range toks {
			if !feedbackWord(tok) {
				continue
			}
			key := textnorm.TermKey(tok)
			if inQuery[key] {
				continue
			}
			s := stats[key]
			if s == nil {
				s = &stat{forms: map[string]int{}}
				stats[key] = s
			}
			s.score += p / float64(len(toks))
			s.forms[tok]++
			if !seen[key] {
				seen[key] = true
				s.docs++
			}
		}
	}
	type cand struct {
		word  string
		score float64
	}
	var cands []cand
	for _, s := range stats {
		if s.docs < 2 {
			continue
		}
		var best string
		for f, n := range s.forms {
			if best == "" || n > s.forms[best] || n == s.forms[best] && f < best {
				best = f
			}
		}
		cands = append(cands, cand{best, s.score})
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.word, b.word)) })
	out := make([]string, 0, min(m, len(cands)))
	for _, c := range cands[:min(m, len(cands))] {
		out = append(out, c.word)
	}
	return out
}

// feedbackWord reports a word worth adding: at least 3 letters, not a number, not a stop-word.
func feedbackWord(tok string) bool {
	letters := 0
	for _, r := range tok {
		if unicode.IsDigit(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3 && !textnorm.IsStopWord(tok) && !strings.ContainsAny(tok, "'")
}
