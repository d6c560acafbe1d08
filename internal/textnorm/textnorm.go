// Package textnorm normalizes document text: Unicode NFC and tidy whitespace for the stored
// text; a language guess (English or Russian, the corpora asof serves); word tokens; and
// dedup keys that ignore what reposts change (URLs, @handles, case, punctuation, spacing).
package textnorm

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Clean returns text in NFC with runs of spaces and tabs collapsed, lines trimmed, at most one
// blank line between paragraphs, control characters removed, and no leading or trailing
// space. It is what asof stores and indexes.
func Clean(s string) string {
	// Drop invisible characters first: removing one later could let NFC compose across it.
	s = strings.Map(func(r rune) rune {
		if (unicode.IsControl(r) && !unicode.IsSpace(r)) || r == '\uFEFF' || r == '\u200B' {
			return -1
		}
		return r
	}, s)
	s = norm.NFC.String(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0     // consecutive newlines pending
	space := false // a space is pending
	started := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			blank++
			space = false
		case unicode.IsSpace(r):
			space = true
		default:
			if started {
				if blank >= 2 {
					b.WriteString("\n\n")
				} else if blank == 1 {
					b.WriteByte('\n')
				} else if space {
					b.WriteByte(' ')
				}
			}
			blank, space, started = 0, false, true
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ValidUTF8 reports whether s is well-formed UTF-8 (undecodable text is quarantined, not
// indexed with replacement characters).
func ValidUTF8(s string) bool { return utf8.ValidString(s) }

// Lang guesses "ru" or "en" from the share of Cyrillic among letters; "" when s has no
// letters. Mixed text with at least 30% Cyrillic letters counts as Russian.
func Lang(s string) string {
	var cyr, lat int
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
		case unicode.IsLetter(r):
			lat++
		}
	}
	switch {
	case cyr+lat == 0:
		return ""
	case cyr*10 >= (cyr+lat)*3:
		return "ru"
	default:
		return "en"
	}
}

// Tokens splits s into lower-case words: runs of letters and digits (with inner apostrophes
// and hyphens kept, so "don't" and "covid-19" stay whole). ё folds to е.
func Tokens(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		for len(cur) > 0 && (cur[len(cur)-1] == '\'' || cur[len(cur)-1] == '-') {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range norm.NFC.String(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			r = unicode.ToLower(r)
			if r == 'ё' {
				r = 'е'
			}
			cur = append(cur, r)
		case (r == '\'' || r == '’' || r == '-') && len(cur) > 0:
			if r == '’' {
				r = '\''
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

var (
	urlRe    = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
	handleRe = regexp.MustCompile(`@[\p{L}\p{N}_]{2,}`)
)

// StripLinks removes URLs and @handles, which reposts add or change.
func StripLinks(s string) string {
	return handleRe.ReplaceAllString(urlRe.ReplaceAllString(s, " "), " ")
}

// DedupKey is a hex hash of the text's tokens after StripLinks: two reposts that differ only in
// links, handles, case, punctuation or spacing share a key.
func DedupKey(s string) string {
	sum := sha256.Sum256([]byte(strings.Join(Tokens(StripLinks(s)), " ")))
	return hex.EncodeToString(sum[:16])
}
