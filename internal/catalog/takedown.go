package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/layout"
	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// RemovedTitle is the title a stored answer shows for a document taken down after it was
// written; its snippet says when and why.
const RemovedTitle = "(removed)"

// takedownsOf is the documents taken down from index's live manifest, by doc_id (nil: none,
// or no index).
func takedownsOf(ctx context.Context, b blob.Bucket, index string) (map[string]schemas.Takedown, error) {
	m, err := layout.ReadLive(ctx, b, index)
	if errors.Is(err, layout.ErrIndexNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(m.Takedowns) == 0 {
		return nil, nil
	}
	out := make(map[string]schemas.Takedown, len(m.Takedowns))
	for _, t := range m.Takedowns {
		out[t.DocID] = t
	}
	return out, nil
}

// RedactAnswer removes from a stored answer what it quoted of documents taken down since
// (gone, by doc_id): each such result and context block keeps its place but shows
// RemovedTitle, no address or sources, and a snippet saying when and why it was removed; the
// summary's claims that cite one are left out and the summary written again from what is left
// (render.Markdown); the context text handed to the summarizer is withheld; the message says so.
// A result or block shown as removed already is left as it is, so an answer redacted and stored
// (asof docs delete --purge) reads back unchanged. It reports whether anything was removed.
func RedactAnswer(ans *schemas.Answer, gone map[string]schemas.Takedown) bool {
	if len(gone) == 0 {
		return false
	}
	note := func(t schemas.Takedown) string {
		return fmt.Sprintf("Taken down on %s: %s", t.At.UTC().Format(time.DateOnly), t.Reason)
	}
	removed := 0
	for i := range ans.Results {
		r := &ans.Results[i]
		if t, ok := gone[r.DocID]; ok && (r.Title != RemovedTitle || r.Snippet != note(t)) {
			r.Title, r.URL, r.Sources, r.Source, r.Snippet = RemovedTitle, "", nil, "", note(t)
			removed++
		}
	}
	blocks := map[int]bool{}
	for i := range ans.Blocks {
		bl := &ans.Blocks[i]
		bl.Folded = slices.DeleteFunc(bl.Folded, func(id string) bool { _, ok := gone[id]; return ok })
		if t, ok := gone[bl.DocID]; ok && (bl.Title != RemovedTitle || bl.Snippet != note(t)) {
			bl.Title, bl.URL, bl.Sources, bl.Snippet = RemovedTitle, "", nil, note(t)
			blocks[bl.N] = true
			removed++
		}
	}
	if removed == 0 {
		return false
	}
	if ans.Brief != nil {
		b := *ans.Brief
		keep := func(cs []schemas.Claim) []schemas.Claim {
			return slices.DeleteFunc(slices.Clone(cs), func(c schemas.Claim) bool {
				return slices.ContainsFunc(c.Cites, func(n int) bool { return blocks[n] })
			})
		}
		b.New, b.Earlier, b.Timeline, b.Then, b.Now = keep(b.New), keep(b.Earlier), keep(b.Timeline), keep(b.Then), keep(b.Now)
		ans.Brief = &b
		num, cites := render.NumberingOf(b), render.Cites(b)
		for i := range ans.Blocks {
			ans.Blocks[i].Shown = 0
			if slices.Contains(cites, ans.Blocks[i].N) {
				ans.Blocks[i].Shown = num.Of(ans.Blocks[i].N)
			}
		}
		ans.Summary = render.Markdown(b, ans.Blocks)
	} else if len(blocks) > 0 {
		ans.Summary = "_The summary is withheld: a document it cited was taken down._\n"
	}
	if len(blocks) > 0 {
		ans.Context = ""
	}
	msg := fmt.Sprintf("%d cited %s taken down after this answer was written: removed.", removed, map[bool]string{true: "text was", false: "texts were"}[removed == 1])
	if ans.Message != "" {
		msg = ans.Message + " " + msg
	}
	ans.Message = msg
	return true
}

// RedactDigest removes from a stored digest what it quoted of documents taken down since (gone,
// by doc_id), topic by topic as RedactAnswer does for an answer: each such source keeps its
// place as RemovedTitle with a note of when and why, the brief's claims that cite one are left
// out, and the topic's message says so. It reports whether anything was removed.
func RedactDigest(d *schemas.Digest, gone map[string]schemas.Takedown) bool {
	changed := false
	for i := range d.Topics {
		t := &d.Topics[i]
		brief := t.Brief
		ans := schemas.Answer{Blocks: t.Sources, Brief: &brief, Message: t.Message}
		if RedactAnswer(&ans, gone) {
			t.Sources, t.Brief, t.Message = ans.Blocks, *ans.Brief, ans.Message
			changed = true
		}
	}
	return changed
}
