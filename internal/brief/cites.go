package brief

import (
	"slices"
	"time"
	"unicode"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/textnorm"
)

// MaxCites is the most blocks one claim keeps. A small model asked to cite tends to cite the
// whole context in one claim (a 1.5B model's only "new" claim once cited all 25 blocks), which
// says nothing about where the fact is and makes every cited block look like support.
const MaxCites = 3

// trimCites keeps at most MaxCites of a claim's cited blocks, the ones that best support its
// text, in the model's order when they tie. Chosen first: the best block that prefer marks
// (when prefer is not nil and one does: a "new" claim's block in the new window, a timeline
// entry's block of its date), then for each date the text writes the best block that holds
// it, so that trimming alone never makes a claim fail its checks; the rest are filled by
// support. Support is the share of the text's terms (textnorm.Terms; for Chinese, Japanese
// and Korean, pairs of adjacent characters) found in the block's title and text. A claim with
// MaxCites cites or fewer keeps them all.
func (k *checker) trimCites(text string, cited []evidence.Block, prefer func(evidence.Block) bool) []evidence.Block {
	if len(cited) <= MaxCites {
		return cited
	}
	claim := supportTerms(text)
	score := make([]int, len(cited))
	for i, b := range cited {
		score[i] = textnorm.Overlap(claim, supportTerms(b.Doc.Title+"\n"+blockText(b)))
	}
	picked := make([]bool, len(cited))
	n := 0
	// best picks the best-scoring unpicked block that ok accepts (the first of a tie).
	best := func(ok func(evidence.Block) bool) {
		at := -1
		for i, b := range cited {
			if !picked[i] && (ok == nil || ok(b)) && (at < 0 || score[i] > score[at]) {
				at = i
			}
		}
		if at >= 0 {
			picked[at] = true
			n++
		}
	}
	has := func(ok func(evidence.Block) bool) bool {
		for i, b := range cited {
			if picked[i] && ok(b) {
				return true
			}
		}
		return false
	}
	if prefer != nil {
		best(prefer)
	}
	for _, dt := range findDates(text) {
		holds := func(b evidence.Block) bool { return civilOf(b.Doc.PublishedAt) == dt.civil || k.dates[b.N][dt.civil] }
		if !has(holds) {
			best(holds)
		}
	}
	for n < MaxCites && n < len(cited) {
		best(nil)
	}
	var out []evidence.Block
	for i, b := range cited {
		if picked[i] {
			out = append(out, b)
		}
	}
	return out
}

// supportTerms are the terms of s as trimCites compares them, sorted and distinct: its
// textnorm.Terms, with every run of CJK characters replaced by its pairs of adjacent
// characters (a lone character stays itself).
func supportTerms(s string) []string {
	var out []string
	for _, t := range textnorm.Terms(s) {
		rs := []rune(t)
		if !slices.ContainsFunc(rs, isCJK) {
			out = append(out, t)
			continue
		}
		if len(rs) == 1 {
			out = append(out, t)
		}
		for i := 0; i+1 < len(rs); i++ {
			out = append(out, string(rs[i:i+2]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// supportedDate is the publication time (UTC) of the block among blocks that ok accepts whose
// title and text share the most terms with text (supportTerms), the earliest of a tie; the zero
// time when ok accepts none. A "new" claim is dated so: by the block that states it, and by the
// first report when several do — not by a later commentary (latest) or by a cited block that
// says something else (earliest).
func supportedDate(text string, blocks []evidence.Block, ok func(evidence.Block) bool) time.Time {
	claim := supportTerms(text)
	var t time.Time
	best := -1
	for _, b := range blocks {
		if !ok(b) {
			continue
		}
		n := textnorm.Overlap(claim, supportTerms(b.Doc.Title+"\n"+blockText(b)))
		if n > best || n == best && b.Doc.PublishedAt.Before(t) {
			best, t = n, b.Doc.PublishedAt.UTC()
		}
	}
	return t
}
