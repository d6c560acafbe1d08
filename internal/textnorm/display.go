package textnorm

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DisplayTitleRunes is the default length of a display title, "…" included.
const DisplayTitleRunes = 90

// DisplayTitle is how a source is named to a reader: its title when it has a letter or a
// digit, else the first sentence of its text (Sentences) cut to maxRunes runes at a word
// boundary with "…" (maxRunes ≤ 0: DisplayTitleRunes), on one line. It is "" only when
// neither has a letter or digit: a renderer then says "untitled", never shows an id.
func DisplayTitle(title, text string, maxRunes int) string {
	if maxRunes <= 0 {
		maxRunes = DisplayTitleRunes
	}
	if t := oneLine(title); hasWord(t) {
		return t
	}
	for _, s := range Sentences(text) {
		if hasWord(s) {
			return shorten(s, maxRunes)
		}
	}
	return ""
}

// hasWord reports whether s has a letter or a digit.
func hasWord(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// oneLine collapses s's whitespace, line breaks included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most n runes, "…" included, at the last space that keeps at least half
// of them (else mid-word), with trailing punctuation before the "…" dropped.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)[:max(n-1, 1)]
	if k := lastSpace(rs); k >= len(rs)/2 {
		rs = rs[:k]
	}
	cut := strings.TrimRightFunc(string(rs), func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) && !isCloser(r)) || r == '—' || r == '–'
	})
	return cut + "…"
}

func lastSpace(rs []rune) int {
	for i := len(rs) - 1; i > 0; i-- {
		if rs[i] == ' ' {
			return i
		}
	}
	return -1
}

// ChannelKey is how channel names are compared: NFKC, lower case, ё as е, spaces collapsed
// («Риа Новости» and «РИА  Новости» are one channel).
func ChannelKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(oneLine(norm.NFKC.String(name))), "ё", "е")
}

// Channels returns the distinct channel names of sources for display, in order of first
// appearance: each source may list several, separated by ";" (tg-finance-ru's «Раньше всех.
// Ну почти; Риа Новости»), names equal under ChannelKey are one (the first spelling is kept),
// and blank ones are dropped. Join the result with ", " to show it.
func Channels(sources ...string) []string {
	var out, keys []string
	for _, src := range sources {
		for name := range strings.SplitSeq(src, ";") {
			name = oneLine(name)
			k := ChannelKey(name)
			if k == "" || slices.Contains(keys, k) {
				continue
			}
			keys = append(keys, k)
			out = append(out, name)
		}
	}
	return out
}

// titleShare is the share of a title's terms a sentence must hold to repeat it: the rule the
// extractive summarizer uses to drop a title its body says again.
const titleShare = 0.7

// RepeatsTitle reports whether sentence says title again: it starts with title (a display
// title, "…" aside), or holds at least 70% of title's terms (Terms: case, punctuation, emoji,
// word endings aside), so «СРОЧНО: ЦБ повысил ставку до 16%» and «⚡ ЦБ повысил ставку до 16%
// годовых.» are one sentence shown twice.
func RepeatsTitle(title, sentence string) bool {
	t := strings.TrimSuffix(oneLine(title), "…")
	if t == "" || !hasWord(t) {
		return false
	}
	if strings.HasPrefix(oneLine(sentence), t) {
		return true
	}
	tt := Terms(t)
	return len(tt) > 0 && float64(Overlap(tt, Terms(sentence))) >= titleShare*float64(len(tt))
}

// AfterTitle returns text without its first sentence when that sentence repeats title
// (RepeatsTitle), its sentences joined by spaces; else text unchanged. A renderer that shows a
// source's title (or DisplayTitle) and then its text calls it, so the lead is not shown twice.
func AfterTitle(title, text string) string {
	ss := Sentences(text)
	if len(ss) == 0 || !RepeatsTitle(title, ss[0]) {
		return text
	}
	return strings.Join(ss[1:], " ")
}
