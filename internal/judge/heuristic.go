package judge

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
)

// Thresholds of the [Heuristic] rule; see the package documentation.
const (
	// CoverageDirect is the share of query terms a document must contain
	// for grade 2.
	CoverageDirect = 0.6
	// CoverageRelated is the share of query terms that is enough for
	// grade 1.
	CoverageRelated = 0.3
	// CosineDirect is the least known cosine that allows grade 2: a
	// document that matches the words but not the meaning stays at 1.
	CosineDirect = 0.80
	// CosineRelated is the cosine that is enough on its own for grade 1.
	CosineRelated = 0.83
	// CosineStrong is the cosine that lifts a document with coverage of at
	// least CoverageRelated to grade 2: a paraphrase that shares only some
	// of the query's words ("ECB cuts its key rate" for "ECB interest rate
	// decision").
	CosineStrong = 0.88
	// MinPrefixRunes is the least length, in runes, of a term key that may
	// match a longer key by prefix.
	MinPrefixRunes = 5
)

// Heuristic is the offline judge ([MethodHeuristic]): it grades each doc by
// the share of the query's content terms found in its title and text and by
// its cosine, with the rule in the package documentation. Verdicts are sorted
// by ID. It is deterministic and does no I/O.
func Heuristic(query string, docs []Doc) []Verdict {
	if len(docs) == 0 {
		return nil
	}
	q := terms(query)
	out := make([]Verdict, len(docs))
	for i, d := range docs {
		cos := d.Cosine
		if math.IsNaN(cos) || math.IsInf(cos, 0) {
			cos = 0
		}
		rel := 0
		if len(q) == 0 {
			if cos >= CosineRelated {
				rel = 1
			}
		} else {
			cov := coverage(q, terms(d.Title+"\n"+d.Text))
			switch {
			case cov >= CoverageDirect && (cos == 0 || cos >= CosineDirect),
				cov >= CoverageRelated && cos >= CosineStrong:
				rel = 2
			case cov >= CoverageRelated || cos >= CosineRelated:
				rel = 1
			}
		}
		out[i] = Verdict{ID: d.ID, Relevance: rel}
	}
	slices.SortStableFunc(out, func(a, b Verdict) int { return a.ID - b.ID })
	return out
}

// coverage returns the share of q (sorted distinct keys, not empty) that
// matches a key of doc (sorted distinct keys).
func coverage(q, doc []string) float64 {
	n := 0
	for _, k := range q {
		if matches(k, doc) {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

// matches reports whether key k equals a key of doc or, when the shorter of
// the two has at least MinPrefixRunes runes, is a prefix of one or has one as
// a prefix.
func matches(k string, doc []string) bool {
	i, found := slices.BinarySearch(doc, k)
	if found {
		return true
	}
	rs := []rune(k)
	if len(rs) < MinPrefixRunes {
		return false
	}
	// A longer doc key with prefix k sorts right after k.
	if i < len(doc) && strings.HasPrefix(doc[i], k) {
		return true
	}
	// A shorter doc key that is a prefix of k.
	for n := MinPrefixRunes; n < len(rs); n++ {
		if _, ok := slices.BinarySearch(doc, string(rs[:n])); ok {
			return true
		}
	}
	return false
}

// terms returns the sorted distinct keys of s's words that are not
// stop-words. Hyphenated words count as their parts too, so "rate-setting"
// meets "rate" and "covid-19" meets "covid".
func terms(s string) []string {
	var out []string
	add := func(t string) {
		t = strings.Trim(t, "'-")
		if t != "" && !stopWords[t] {
			out = append(out, key(t))
		}
	}
	for _, t := range textnorm.Tokens(s) {
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

// key reduces a lower-case word to the form words are compared in:
//   - a word with a digit is kept whole ("2024");
//   - a Cyrillic word is cut to its first 5 runes, then loses trailing
//     vowels, "й" and "ь" while more than 3 runes remain: "ставка",
//     "ставки" → "ставк"; "цены", "цена" → "цен";
//   - any other word loses "'s", then a plural ("ies" → "y"; "s" unless
//     "ss", "us", "is"), then "ing" or "ed" when 3 runes remain, then a
//     final "e", and is cut to its first 6 runes: "rate", "rates", "rated" →
//     "rat"; "inflation", "inflationary" → "inflat".
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
