package textnorm

import (
	"slices"
	"strings"
	"unicode"
)

// Terms, stop-words and a light stemmer: how the offline summarizer (internal/summarize) and the
// offline judge (internal/judge) decide that a query and a text speak of the same things.

// Terms returns the sorted distinct keys of s's words that are not
// stop-words. Hyphenated words count as their parts too, so "rate-setting"
// meets "rate" and "covid-19" meets "covid".
func Terms(s string) []string {
	var out []string
	add := func(t string) {
		t = strings.Trim(t, "'-")
		if t != "" && !stopWords[t] {
			out = append(out, TermKey(t))
		}
	}
	for _, t := range Tokens(s) {
		add(t)
		if strings.Contains(t, "-") {
			for p := range strings.SplitSeq(t, "-") {
				add(p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TermKey reduces a lower-case word to the form words are compared in:
//   - a word with a digit is kept whole ("2024");
//   - a Cyrillic word is cut to its first 5 runes, then loses trailing
//     vowels, "й" and "ь" while more than 3 runes remain: "ставка",
//     "ставки" → "ставк"; "цены", "цена" → "цен";
//   - any other word loses "'s", then a plural ("ies" → "y"; "s" unless
//     "ss", "us", "is"), then "ing" or "ed" when 3 runes remain, then a
//     final "e", and is cut to its first 6 runes: "rate", "rates", "rated" →
//     "rat"; "inflation", "inflationary" → "inflat".
func TermKey(tok string) string {
	rs := []rune(tok)
	if slices.ContainsFunc(rs, unicode.IsDigit) {
		return tok
	}
	if slices.ContainsFunc(rs, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
		rs = rs[:min(len(rs), 5)]
		for len(rs) > 3 && strings.ContainsRune("аеиоуыэюяйь", rs[len(rs)-1]) {
			rs = rs[:len(rs)-1]
		}
		return string(rs)
	}
	s := strings.TrimSuffix(tok, "'s")
	switch n := len(s); {
	case n > 4 && strings.HasSuffix(s, "ies"):
		s = s[:n-3] + "y"
	case n > 3 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") &&
		!strings.HasSuffix(s, "us") && !strings.HasSuffix(s, "is"):
		s = s[:n-1]
	}
	for _, suf := range []string{"ing", "ed"} {
		if strings.HasSuffix(s, suf) && len([]rune(s))-len(suf) >= 3 {
			s = strings.TrimSuffix(s, suf)
			break
		}
	}
	if len(s) > 3 {
		s = strings.TrimSuffix(s, "e")
	}
	rs = []rune(s)
	return string(rs[:min(len(rs), 6)])
}

// stopWords are dropped before matching: English and Russian function words,
// question words, and the temporal cue words of queries ("latest", "changed",
// "сейчас"), which say when, not what.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the and or but of in on at to for from by with without as is are was were be been
		being it its it's this that these those what what's which who whom whose how why when
		where do does did has have had having about into over under than then there their they
		them he she we you i me my his her our your not no yes will would can could should may
		might must shall so if up down out also just any all some more most very s
		latest recent recently current currently today now nowadays news update updates new
		change changes changed changing since until till before after ago happening happened
		и в во на с со по к ко о об от до за из у для при про не ни что чем как это так а но
		или же ли бы был была было были быть есть его ее её их он она оно они мы вы я ты то
		этот эта эти где когда почему зачем какой какая какое какие каков какова сколько
		уже еще ещё сейчас сегодня теперь новости последние последний последняя свежие
		изменился изменилась изменилось изменились изменения изменение менялся менялась
		после раньше происходит произошло новое нового новая новый новые новых`) {
		m[w] = true
	}
	return m
}()

// Overlap returns |a ∩ b| for sorted distinct a and b.
func Overlap(a, b []string) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Jaccard returns |a ∩ b| / |a ∪ b| for sorted distinct a and b: 1 when both are empty.
func Jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	n := Overlap(a, b)
	return float64(n) / float64(len(a)+len(b)-n)
}

// A text is a copy of a query (IsCopy) when the query has at least CopyMinTerms terms and the
// two share at least CopyJaccard of their terms.
const (
	CopyMinTerms = 5
	CopyJaccard  = 0.8
)

// IsCopy reports whether a text of terms d is the query of terms q itself (both sorted
// distinct): a post pasted as the question, found again in the corpus with a footer or an edit
// at most. A short query is never a copy: a title that equals it is its best answer.
func IsCopy(q, d []string) bool { return len(q) >= CopyMinTerms && Jaccard(q, d) >= CopyJaccard }

// IsStopWord reports whether the lower-case token t is dropped by Terms.
func IsStopWord(t string) bool { return stopWords[t] }
