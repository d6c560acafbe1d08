package summarize

import (
	"strings"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
)

// Sentences splits text into sentences, in order. The text is first cleaned with
// textnorm.Clean, and every line break is a boundary. Within a line, a sentence ends at a run
// of ".", "!", "?" or "…" (closing quotes and brackets after it included) that ends the line or
// is followed by a space and then, after any opening quotes or brackets, an upper-case letter,
// a digit or a symbol such as an emoji. A single "." does not end a sentence when
//   - it follows a one-letter word: initials ("J. Smith") and dotted abbreviations ("U.S.",
//     "e.g.", "т.е.", "г. Москва");
//   - it follows a known abbreviation ("Mr.", "Dr.", "Jan. 5", "ул.", "проф."), or "No." before
//     a number; "г." and "гг." after a number ("в 2024 г.") do end one;
//   - what precedes it on the line has no letter ("1. Rates rose" stays whole).
//
// A "." between digits ("3.5%") is never followed by a space, so decimals stay whole. Pieces
// are trimmed; none is empty. Nothing is dropped: the pieces hold every word of the text, in
// order.
func Sentences(text string) []string {
	var out []string
	for line := range strings.SplitSeq(textnorm.Clean(text), "\n") {
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
