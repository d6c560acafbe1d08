// Package chunk splits document text into overlapping pieces for embedding and BM25.
//
// The splitter is a recursive-character splitter measured in runes: a piece ends at the
// strongest boundary that fits (paragraph, line, sentence, word, in that order; a hard cut only
// when a piece has none), the next piece starts Overlap runes earlier on a word boundary, and a
// tail shorter than Min joins the piece before it. A text no longer than Size is one piece, so a
// short message stays whole. The planner knows nothing of documents or storage.
package chunk

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Options configure the splitter.
type Options struct {
	// Size is the largest piece in runes (a last piece may exceed it by less than Min).
	Size int
	// Overlap is how many runes a piece shares with the one before it (at most).
	Overlap int
	// Min is the smallest piece: a shorter tail is merged into the previous piece.
	Min int
	// MaxPieces caps pieces per document (0: no cap); the rest of a longer text is dropped
	// and reported by Split's truncated result.
	MaxPieces int
}

// DefaultMaxPieces caps pieces per document by default. A piece advances about Size−Overlap
// = 1,400 runes, so 100 pieces keep the first ~140k characters (~25k words, a long
// parliamentary record) whole: every document of the three bundled datasets is one piece
// (realtimeqa articles ≤ 1,200 characters, Telegram posts ≤ 800), and one 2 MB row, which made
// 2,010 chunks and 7.5 minutes of embedding without a cap, costs ~20 s.
const DefaultMaxPieces = 100

// DefaultOptions are 1600 / 200 / 100 runes, at most DefaultMaxPieces pieces per document
// (docs/design.md).
func DefaultOptions() Options {
	return Options{Size: 1600, Overlap: 200, Min: 100, MaxPieces: DefaultMaxPieces}
}

// Validate reports options that cannot split.
func (o Options) Validate() error {
	switch {
	case o.Size < 1:
		return errors.New("chunk: size must be positive")
	case o.Overlap < 0 || o.Overlap >= o.Size:
		return fmt.Errorf("chunk: overlap %d must be in [0, size %d)", o.Overlap, o.Size)
	case o.Min < 0 || o.Min > o.Size:
		return fmt.Errorf("chunk: min %d must be in [0, size %d]", o.Min, o.Size)
	case o.MaxPieces < 0:
		return errors.New("chunk: max pieces must not be negative")
	}
	return nil
}

// Piece is one chunk: its text and its rune offsets [Start, End) in the input.
type Piece struct {
	Text       string
	Start, End int
}

// boundaries in order of preference; each is matched at the end of a candidate piece.
var boundaries = []func(r []rune, i int) bool{
	func(r []rune, i int) bool { return i >= 2 && r[i-1] == '\n' && r[i-2] == '\n' }, // paragraph
	func(r []rune, i int) bool { return i >= 1 && r[i-1] == '\n' },                   // line
	func(r []rune, i int) bool { // sentence: ".", "!", "?", "…" followed by a space
		return i >= 2 && unicode.IsSpace(r[i-1]) && strings.ContainsRune(".!?…", r[i-2])
	},
	func(r []rune, i int) bool { return i >= 1 && unicode.IsSpace(r[i-1]) }, // word
}

// Split cuts text into pieces. truncated is true when MaxPieces dropped the rest.
func Split(text string, o Options) (pieces []Piece, truncated bool) {
	r := []rune(text)
	n := len(r)
	if n == 0 {
		return nil, false
	}
	if n <= o.Size {
		return []Piece{{Text: text, Start: 0, End: n}}, false
	}
	start := 0
	for start < n {
		if o.MaxPieces > 0 && len(pieces) == o.MaxPieces {
			return pieces, true
		}
		end := start + o.Size
		if end >= n {
			pieces = append(pieces, Piece{Text: string(r[start:n]), Start: start, End: n})
			break
		}
		end = cut(r, start, end, o)
		if n-end < o.Min { // a short tail joins this piece
			end = n
		}
		pieces = append(pieces, Piece{Text: string(r[start:end]), Start: start, End: end})
		if end == n {
			break
		}
		start = nextStart(r, start, end, o.Overlap)
	}
	return pieces, false
}

// cut returns the best end in (start+Min, limit]: the latest position after the strongest
// boundary, or limit itself when none fits.
func cut(r []rune, start, limit int, o Options) int {
	lo := start + max(o.Min, 1)
	for _, isBoundary := range boundaries {
		for i := limit; i > lo; i-- {
			if isBoundary(r, i) {
				return i
			}
		}
	}
	return limit
}

// nextStart backs up Overlap runes from end and moves forward to the start of a word, always
// making progress.
func nextStart(r []rune, start, end, overlap int) int {
	s := end - overlap
	if s <= start {
		return end
	}
	for i := s; i < end; i++ {
		if i == 0 || unicode.IsSpace(r[i-1]) && !unicode.IsSpace(r[i]) {
			return i
		}
	}
	return end
}
