package textnorm

import (
	"strings"
	"unicode"
)

// Sentences splits text into sentences, in order. The text is first cleaned with Clean, and
// every line break is a boundary. Within a line, a sentence ends at a run of ".", "!", "?" or
// "…" (closing quotes and brackets after it included) that ends the line or is followed by a
// space and then, after any opening quotes or brackets, an upper-case letter, a digit or a
// symbol such as an emoji. A single "." does not end a sentence when
//   - it follows a one-letter word: initials ("J. Smith") and dotted abbreviations ("U.S.",
//     "e.g.", "т.е.", "г. Москва");
//   - it follows a known abbreviation ("Mr.", "Dr.", "Jan. 5", "ул.", "проф."), or "No." before
//     a number; "г." and "гг." after a number ("в 2024 г.") do end one;
//   - what precedes it on the line has no letter ("1. Rates rose" stays whole).
//
// Telegram posts whose line breaks were lost glue their items into one line, so two more
// boundaries need no punctuation:
//   - an emoji bullet: an emoji after a space, when the sentence so far has a letter and an
//     upper-case letter, a digit or an opening quote follows the emoji
//     ("…израильское ТВ 🇮🇱 Военные достижения…" is two sentences);
//   - a doubled capitalized word at a join: "W W" where W starts upper-case and is either an
//     acronym ("ЦБ ЦБ РФ прогнозирует", "SWIFT SWIFT объявил") or the end of an attribution
//     after a dash ("…важное достижение — Путин Путин назвал…" ends after the first
//     "Путин"); a doubled name that is neither ("ресторан Lou Lou") stays whole.
//
// A "." between digits ("3.5%") is never followed by a space, so decimals stay whole. Pieces
// are trimmed; none is empty. Nothing is dropped: the pieces hold every word of the text, in
// order.
func Sentences(text string) []string {
	var out []string
	for line := range strings.SplitSeq(Clean(text), "\n") {
		rs := []rune(line)
		start := 0
		lastLetter := -1 // index of the last letter before i
		emit := func(end int) {
			if s := strings.TrimSpace(string(rs[start:end])); s != "" {
				out = append(out, s)
			}
			start = end
		}
		for i := 0; i < len(rs); i++ {
			if i > start && rs[i-1] == ' ' && lastLetter >= start && (emojiBullet(rs, i) || doubledJoin(rs, start, i)) {
				emit(i)
			}
			if !isTerminal(rs[i]) {
				if unicode.IsLetter(rs[i]) {
					lastLetter = i
				}
				continue
			}
			j := i + 1
			for j < len(rs) && isTerminal(rs[j]) {
				j++
			}
			single := rs[i] == '.' && j == i+1
			for j < len(rs) && isCloser(rs[j]) {
				j++
			}
			switch {
			case j < len(rs) && !(rs[j] == ' ' && startsSentence(rs[j+1:])):
			case lastLetter < start:
			case single && abbreviation(rs, i, j):
			default:
				emit(j)
			}
			i = j - 1
		}
		emit(len(rs))
	}
	return out
}

// emojiBullet reports whether an emoji run starts at rs[i] and is followed, after optional
// spaces, by the start of a sentence: an item bullet of a post whose line breaks were lost.
func emojiBullet(rs []rune, i int) bool {
	if !IsEmoji(rs[i]) {
		return false
	}
	j := i
	for j < len(rs) && (IsEmoji(rs[j]) || emojiJoiner(rs[j])) {
		j++
	}
	for j < len(rs) && rs[j] == ' ' {
		j++
	}
	if j == len(rs) {
		return false
	}
	r := rs[j]
	return unicode.IsUpper(r) || unicode.IsDigit(r) || isOpener(r)
}

// doubledJoin reports whether the word starting at rs[i] (after a space) repeats the word
// before it, starts upper-case, and is an acronym or ends an attribution after a dash: two
// items glued at a join, "— Путин Путин назвал…". start is where the current sentence began.
func doubledJoin(rs []rune, start, i int) bool {
	if !unicode.IsUpper(rs[i]) {
		return false
	}
	end := i
	for end < len(rs) && isWordRune(rs[end]) {
		end++
	}
	w := string(rs[i:end])
	p := i - 1 // the space before the word
	q := p
	for q > start && isWordRune(rs[q-1]) {
		q--
	}
	if string(rs[q:p]) != w || (q > 0 && !unicode.IsSpace(rs[q-1]) && q != start) {
		return false
	}
	if acronym(w) {
		return true
	}
	// An attribution: a dash within the three words before the first W, none of them ending a
	// sentence.
	k := q
	for words := 0; words < 4 && k > start; words++ {
		for k > start && rs[k-1] == ' ' {
			k--
		}
		e := k
		for k > start && rs[k-1] != ' ' {
			k--
		}
		tok := string(rs[k:e])
		if tok == "—" || tok == "–" || tok == "-" {
			return true
		}
		if strings.ContainsAny(tok, ".!?…") {
			return false
		}
	}
	return false
}

// acronym reports whether w has at least two letters, all upper-case ("ЦБ", "SWIFT").
func acronym(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			n++
		}
	}
	return n >= 2
}

// isWordRune reports whether r belongs to a word: a letter, a digit or an inner hyphen.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' }

// IsEmoji reports whether r is a pictograph: the emoji and symbol blocks Telegram posts use
// as bullets and signatures (🔵, 📸, ⚓, ✅, ➡, regional indicators of flags), not the
// symbols of ordinary text (°, ©, №, ₽, arrows in formulas).
func IsEmoji(r rune) bool {
	switch {
	case r < 0x2139: // letters and punctuation of every script asof reads
		return false
	case r >= 0x1F000 && r <= 0x1FAFF: // mahjong … symbols and pictographs extended-A
		return true
	case r >= 0x2600 && r <= 0x27BF: // miscellaneous symbols, dingbats
		return true
	case r >= 0x2B00 && r <= 0x2BFF: // ⬆ ⬇ ⭐ ⭕
		return true
	case r >= 0x23E9 && r <= 0x23FA: // ⏩ … ⏺
		return true
	case r == 0x231A || r == 0x231B || r == 0x2328 || r == 0x23CF: // ⌚ ⌛ ⌨ ⏏
		return true
	case r == 0x2139 || r == 0x2194 || r == 0x2195 || (r >= 0x2196 && r <= 0x2199) || r == 0x21A9 || r == 0x21AA:
		return true
	case r == 0x25AA || r == 0x25AB || r == 0x25B6 || r == 0x25C0 || (r >= 0x25FB && r <= 0x25FE):
		return true
	case r == 0x3030 || r == 0x303D || r == 0x3297 || r == 0x3299:
		return true
	}
	return false
}

// emojiJoiner reports whether r continues an emoji sequence: variation selectors, the zero
// width joiner, skin tones are in IsEmoji's range, keycap.
func emojiJoiner(r rune) bool { return r == 0xFE0F || r == 0xFE0E || r == 0x200D || r == 0x20E3 }

// isTerminal reports whether r can end a sentence.
func isTerminal(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// isCloser reports whether r closes a quote or bracket after a sentence's end.
func isCloser(r rune) bool { return strings.ContainsRune(`"'”’»)]`, r) }

// isOpener reports whether r opens a quote or bracket before a sentence's start.
func isOpener(r rune) bool { return strings.ContainsRune(`"'“‘„«([`, r) }

// startsSentence reports whether rs, after any openers, begins with an upper-case letter, a
// digit or a symbol (an emoji, a bullet).
func startsSentence(rs []rune) bool {
	for _, r := range rs {
		if isOpener(r) {
			continue
		}
		return unicode.IsUpper(r) || unicode.IsDigit(r) || unicode.Is(unicode.So, r)
	}
	return false
}

// abbreviations end in a "." that does not end a sentence, lower-case and without the dot.
var abbreviations = map[string]bool{
	// English titles, ranks and short forms.
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "mt": true, "ft": true, "vs": true, "gen": true, "gov": true, "sen": true,
	"rep": true, "rev": true, "lt": true, "col": true, "capt": true, "sgt": true, "adm": true,
	"hon": true, "pres": true, "approx": true, "dept": true, "fig": true, "vol": true,
	"pp": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	// Russian.
	"ул": true, "им": true, "проф": true, "акад": true, "ген": true, "стр": true, "рис": true,
	"см": true, "ср": true, "ст": true, "тел": true, "напр": true, "просп": true, "пер": true,
	"гл": true, "англ": true, "тов": true, "зам": true, "корр": true, "гр": true,
}

// abbreviation reports whether the single "." at rs[i] belongs to an abbreviation; rs[j:] is
// the rest of the line after it and any closers.
func abbreviation(rs []rune, i, j int) bool {
	k := i
	for k > 0 && unicode.IsLetter(rs[k-1]) {
		k--
	}
	word := strings.ToLower(string(rs[k:i]))
	switch {
	case word == "":
		return false
	case word == "г" || word == "гг": // "г. Москва", but "в 2024 г. Цены…" ends a sentence
		return !afterNumber(rs[:k])
	case len([]rune(word)) == 1:
		return true
	case word == "no" || word == "nos": // "No. 5", but "He said no. Then…"
		return j+1 < len(rs) && unicode.IsDigit(rs[j+1])
	}
	return abbreviations[word]
}

// afterNumber reports whether rs ends with a number and optional spaces.
func afterNumber(rs []rune) bool {
	k := len(rs)
	for k > 0 && rs[k-1] == ' ' {
		k--
	}
	return k > 0 && unicode.IsDigit(rs[k-1])
}
