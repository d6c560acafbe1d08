// Package evidence builds the context an answer is written from: the ranked, deduplicated
// documents as of an anchor date A, split between recent ("hot") and older ("history")
// documents, cut to snippets and numbered for citation as [N].
//
// Days are UTC calendar days. A document published after the end of A's day is a leak from
// upstream (retrieval must mask it) and Build refuses it rather than hiding it. Build is a pure
// function: it knows nothing of retrieval, models or Temporal.
package evidence

import (
	"errors"
	"fmt"
	"github.com/asofrag/asof/internal/textnorm"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/asofrag/asof/internal/asofday"
)

// Doc is one ranked, deduplicated document.
type Doc struct {
	// DocID and ChunkID identify the kept chunk; Title, Text and URL are what it says and
	// where it lives.
	DocID, ChunkID, Title, Text, URL string
	// Sources are the sources of its duplicate cluster, the kept one first.
	Sources []string
	// PublishedAt is when the kept one was published.
	PublishedAt time.Time
	// Score is its ranking score; higher is better.
	Score float64
	// Grade is the judge's relevance (1 related, 2 on the question), 0 when it was not judged.
	Grade int
	// Cosine is its dense similarity to the query, 0 when unknown.
	Cosine float64
	// Folded are the documents folded into it as near-duplicates.
	Folded []string
	// Standing is set for a standing text (in force until superseded; schemas.KindStanding).
	Standing bool
}

// Options shape the context.
type Options struct {
	// KDocs is the most documents the context holds.
	KDocs int `json:"KDocs"`
	// HotDays is the hot window: documents published on A's day or the HotDays−1 days before
	// it (0: no document is hot).
	HotDays int `json:"HotDays"`
	// HotRatio is the share of KDocs reserved for hot documents, rounded to the nearest
	// count; the rest is for history. A pool that runs short gives its slots to the other.
	HotRatio float64 `json:"HotRatio"`
	// SnippetChars is the most runes of a snippet, the "…" of a cut one included.
	SnippetChars int `json:"SnippetChars"`
}

// DefaultOptions are 30 documents, 75% of them from the last 30 days, 800-rune snippets
// (docs/design.md §5).
func DefaultOptions() Options {
	return Options{KDocs: 30, HotDays: 30, HotRatio: 0.75, SnippetChars: 800}
}

// Validate reports options that cannot build a context.
func (o Options) Validate() error {
	switch {
	case o.KDocs < 1:
		return fmt.Errorf("evidence: k docs %d must be positive", o.KDocs)
	case o.HotDays < 0:
		return fmt.Errorf("evidence: hot days %d must not be negative", o.HotDays)
	case math.IsNaN(o.HotRatio) || o.HotRatio < 0 || o.HotRatio > 1:
		return fmt.Errorf("evidence: hot ratio %v must be in [0, 1]", o.HotRatio)
	case o.SnippetChars < 1:
		return fmt.Errorf("evidence: snippet chars %d must be positive", o.SnippetChars)
	}
	return nil
}

// ErrFuture is returned (wrapped, naming the document) when a ranked document was published
// after the end of the as-of day: retrieval leaked it.
var ErrFuture = errors.New("evidence: document published after the as-of day")

// ErrBlockNumber is returned (wrapped, naming the block) when a block's citation number is
// not positive or is used twice.
var ErrBlockNumber = errors.New("evidence: bad block number")

// CheckBlocks reports blocks that a summary cannot be written from or checked against as of
// asOf: a citation number that is not positive or is used twice across the groups
// (ErrBlockNumber), or a document published after the as-of day (ErrFuture). The extractive
// summarizer and the LLM brief both call it.
func CheckBlocks(asOf time.Time, groups ...[]Block) error {
	seen := map[int]bool{}
	for _, g := range groups {
		for _, b := range g {
			switch {
			case b.N < 1 || seen[b.N]:
				return fmt.Errorf("%w: [%d] (doc %q) is not positive or is used twice", ErrBlockNumber, b.N, b.Doc.DocID)
			case !asofday.Allows(asOf, b.Doc.PublishedAt):
				return fmt.Errorf("%w: [%d] doc %q published %s, as of %s", ErrFuture,
					b.N, b.Doc.DocID, b.Doc.PublishedAt.UTC().Format(time.RFC3339), asofday.Start(asOf).Format(DateLayout))
			}
			seen[b.N] = true
		}
	}
	return nil
}

// ErrNoAsOf is returned when the as-of time is zero.
var ErrNoAsOf = errors.New("evidence: as-of time is zero")

// Block is one numbered document of the context.
type Block struct {
	// N is the 1-based citation number, [N] in the prompt.
	N int
	// Doc is the document.
	Doc Doc
	// Snippet is its text, whitespace collapsed and cut to SnippetChars runes.
	Snippet string
	// Hot is true when it was published within the hot window.
	Hot bool
}

// Context is the selected documents, hot ones first, each part in ranked order, and how many
// of them are hot or history.
type Context struct {
	// Blocks are numbered 1..len(Blocks) in order.
	Blocks []Block
	// HotCount and HistoryCount split len(Blocks) by Block.Hot.
	HotCount, HistoryCount int
}

// DateLayout is how a block's publication date is rendered.
const DateLayout = "2006-01-02"

// Build selects up to KDocs of ranked (best first) for a context as of asOf's UTC day.
//
// The first round(KDocs·HotRatio) hot documents and the first KDocs minus that many history
// documents are taken, each in ranked order; when one pool is short, the other fills the
// free slots, still in ranked order. The selection is then ordered so that the most relevant
// fresh evidence is [1]: the hot documents in ranked order, then the history documents in
// ranked order, and numbered from 1. Any ranked document published
// after the end of asOf's day is an error wrapping ErrFuture, even one that would not be
// selected.
func Build(ranked []Doc, asOf time.Time, o Options) (Context, error) {
	if err := o.Validate(); err != nil {
		return Context{}, err
	}
	if asOf.IsZero() {
		return Context{}, ErrNoAsOf
	}
	end := asofday.End(asOf)                 // first instant after A
	hotFrom := end.AddDate(0, 0, -o.HotDays) // first hot instant (HotDays 0: none)
	var hot, history []int
	for i, doc := range ranked {
		switch {
		case !asofday.Allows(asOf, doc.PublishedAt):
			return Context{}, fmt.Errorf("%w: ranked #%d doc %q chunk %q published %s, as of %s",
				ErrFuture, i+1, doc.DocID, doc.ChunkID, doc.PublishedAt.UTC().Format(time.RFC3339), end.AddDate(0, 0, -1).Format(DateLayout))
		case !doc.PublishedAt.Before(hotFrom):
			hot = append(hot, i)
		default:
			history = append(history, i)
		}
	}

	wantHot := int(math.Round(float64(o.KDocs) * o.HotRatio))
	wantHistory := o.KDocs - wantHot
	nHot := min(len(hot), wantHot+max(0, wantHistory-len(history)))
	nHistory := min(len(history), o.KDocs-nHot)

	sel := slices.Concat(hot[:nHot], history[:nHistory])
	slices.Sort(sel) // ranked order, which the stable sort below keeps for full ties
	c := Context{HotCount: nHot, HistoryCount: nHistory, Blocks: make([]Block, len(sel))}
	for k, i := range sel {
		c.Blocks[k] = Block{Doc: ranked[i], Hot: !ranked[i].PublishedAt.Before(hotFrom)}
	}
	// The most relevant fresh evidence first: hot documents in ranked order, then history
	// documents in ranked order (sel is in ranked order).
	slices.SortStableFunc(c.Blocks, func(a, b Block) int {
		switch {
		case a.Hot && !b.Hot:
			return -1
		case b.Hot && !a.Hot:
			return 1
		}
		return 0
	})
	for k := range c.Blocks {
		c.Blocks[k].N = k + 1
		c.Blocks[k].Snippet = Snippet(c.Blocks[k].Doc.Text, o.SnippetChars)
	}
	return c, nil
}

// Text renders the blocks for a prompt, separated by blank lines, each as
//
//	[N] date=YYYY-MM-DD sources=a, b
//	Title
//	snippet
//
// The title line is left out when the title is empty and the sources field when there are
// none; a single source is written "source=a". There is no trailing newline.
func (c Context) Text() string {
	var b strings.Builder
	for k, bl := range c.Blocks {
		if k > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%d] date=%s", bl.N, bl.Doc.PublishedAt.UTC().Format(DateLayout))
		switch names := textnorm.Channels(bl.Doc.Sources...); len(names) {
		case 0:
		case 1:
			b.WriteString(" source=" + names[0])
		default:
			b.WriteString(" sources=" + strings.Join(names, ", "))
		}
		if t := collapse(bl.Doc.Title); t != "" {
			b.WriteString("\n" + t)
		}
		if bl.Snippet != "" {
			b.WriteString("\n" + bl.Snippet)
		}
	}
	return b.String()
}

// Snippet collapses runs of whitespace in text to single spaces and trims it; if the result is
// longer than limit runes, it is cut after the last whole word that fits with a "…" appended,
// so that the snippet including "…" is at most limit runes. A first word longer than that is
// cut mid-word.
func Snippet(text string, limit int) string {
	s := collapse(text)
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	keep := max(limit-1, 0) // runes of text before "…"
	cut := 0                // byte offset of the cut
	lastSpace := -1         // byte offset of the last space at or before the cut
	for n := range keep + 1 {
		if s[cut] == ' ' {
			lastSpace = cut
		}
		if n == keep {
			break
		}
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	if lastSpace > 0 {
		cut = lastSpace // a space right at the cut means the word before it is whole
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}

// collapse replaces runs of whitespace with one space and trims the ends.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
