package render

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// Defect kinds: what a reader must never see in a written answer.
const (
	// DefectRepeated: a sentence shown twice (the same words, case, punctuation and spacing
	// aside).
	DefectRepeated = "repeated sentence"
	// DefectBoilerplate: a claim that holds a channel footer, a subscription call, a "read
	// more" or link-only line or a hashtag tail (textnorm.Tidy's rules would remove it).
	DefectBoilerplate = "boilerplate"
	// DefectBareID: a source named by a bare document id instead of a title.
	DefectBareID = "source shown by a bare id"
	// DefectGlued: two sentences glued at a join ("цикла.Нордавия") or a word doubled
	// there ("the the").
	DefectGlued = "glued sentences"
)

// Defect is one fault of a written answer.
type Defect struct {
	Kind string
	// Text is the claim or source title at fault.
	Text string
}

func (d Defect) String() string { return fmt.Sprintf("%s: %q", d.Kind, d.Text) }

var (
	// glued is a sentence end followed at once by the capitalised start of the next: a
	// lower-case letter, a digit, % or a closing bracket or quote, one of .!? and an
	// upper-case letter then a lower-case one.
	glued = regexp.MustCompile(`[\p{Ll}\p{N}%)»”"][.!?]\p{Lu}\p{Ll}`)
	// hexID is a document id as the corpus loader makes them.
	hexID = regexp.MustCompile(`^[0-9a-f]{12,64}$`)
)

// Defects lists what a reader of b would see wrong, in the order shown: every claim of its view
// (ViewOf) and the title of every source the claims cite (blocks are the answer's context
// blocks). A clean answer has none; tests of the written answers on real channel text and on
// the demo hold them to that.
func Defects(b schemas.Brief, blocks []schemas.ContextBlock) []Defect {
	var out []Defect
	seen := map[string]bool{}
	for _, c := range ViewOf(b).Claims() {
		text := OneLine(c.Text)
		key := strings.Join(textnorm.Tokens(text), " ")
		if key != "" && seen[key] {
			out = append(out, Defect{DefectRepeated, text})
		}
		seen[key] = true
		if _, removed := textnorm.Tidy(text, "", nil); len(removed) > 0 {
			out = append(out, Defect{DefectBoilerplate, text})
		}
		if gluedAt(textnorm.StripLinks(text)) {
			out = append(out, Defect{DefectGlued, text})
		}
	}
	for _, bl := range Cited(b, blocks) {
		if t := SourceTitle(bl); t == bl.DocID || hexID.MatchString(t) {
			out = append(out, Defect{DefectBareID, t})
		}
	}
	return out
}

// gluedAt reports two sentences glued without a space, or a word said twice in a row.
func gluedAt(text string) bool {
	if glued.MatchString(text) {
		return true
	}
	words := strings.Fields(text)
	for i := 1; i < len(words); i++ {
		w := strings.TrimRightFunc(words[i], unicode.IsPunct)
		if len([]rune(w)) > 2 && strings.EqualFold(w, words[i-1]) && unicode.IsLetter([]rune(w)[0]) {
			return true
		}
	}
	return false
}
