package summarize

import (
	"slices"
	"strings"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
)

// stopWords are dropped before matching: function words, question words, and the temporal
// cue words of queries ("latest", "changed", "сейчас"), which say when, not what.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the and or but of in on at to for from by with without as is are was were be been
		being it its it's this that these those what which who whom whose how why when where
		do does did has have had having about into over under than then there their they them
		he she we you i me my his her our your not no yes will would can could should may might
		must shall so if up down out also just any all some more most very
		latest recent recently current currently today now nowadays news update updates new
		change changes changed changing since until till before after ago
		и в во на с со по к ко о об от до за из у для при про не ни что чем как это так а но
		или же ли бы был была было были быть есть его ее её их он она оно они мы вы я ты то
		этот эта эти где когда почему зачем какой какая какое какие каков какова сколько
		уже еще ещё сейчас сегодня теперь новости последние последний последняя свежие
		изменился изменилась изменилось изменились изменения изменение менялся менялась
		после раньше`) {
		m[w] = true
	}
	return m
}()

// key reduces a lower-case token to the form tokens are compared in, light enough that
// inflected forms meet:
//   - a token with a digit is kept whole ("2024", "covid-19");
//   - a Cyrillic token is cut to its first 5 runes, then loses trailing vowels, "й" and "ь"
//     while more than 3 runes remain: "ставка", "ставку" → "ставк"; "цены", "цена" → "цен";
//     "рубль", "рублей" → "рубл";
//   - any other token loses "'s", then a plural ("ies" → "y"; "s" unless "ss", "us", "is"),
//     then "ing" or "ed" when 3 runes remain, then a final "e", and is cut to its first 6
//     runes: "rate", "rates", "rated" → "rat"; "inflation", "inflationary" → "inflat".
func key(tok string) string {
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

// terms returns the sorted distinct keys of s's tokens that are not stop-words.
func terms(s string) []string {
	var out []string
	for _, t := range textnorm.Tokens(s) {
		if !stopWords[t] {
			out = append(out, key(t))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// overlap returns |a ∩ b| for sorted distinct a and b.
func overlap(a, b []string) int {
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

// jaccard returns |a ∩ b| / |a ∪ b| for sorted distinct a and b: 1 when both are empty.
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	n := overlap(a, b)
	return float64(n) / float64(len(a)+len(b)-n)
}
