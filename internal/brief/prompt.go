package brief

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/evidence"
	"github.com/asofrag/asof/internal/fence"
	"github.com/asofrag/asof/internal/llm"
)

// BriefFormat is the reply format of a digest, as the prompt shows it.
const BriefFormat = `{"not_enough":false,"new":[{"text":"…","cites":[2]}],"timeline":[{"date":"YYYY-MM-DD","text":"…","cites":[1,4]}]}`

// EvolutionFormat is the reply format of an evolution, as the prompt shows it.
const EvolutionFormat = `{"not_enough":false,"then":[{"text":"…","cites":[5]}],"now":[{"text":"…","cites":[1]}]}`

// snippetChars bounds the text of a block whose Snippet is empty (evidence's default).
const snippetChars = 800

// blockText is the text of a block the prompt shows and the checks read: its Snippet, or
// its Doc.Text cut as evidence would when the snippet is empty.
func blockText(b evidence.Block) string {
	if strings.TrimSpace(b.Snippet) != "" {
		return b.Snippet
	}
	return evidence.Snippet(b.Doc.Text, snippetChars)
}

// Nonce is the fence nonce of a prompt: fence.New over the query and the texts of the blocks,
// in order.
func Nonce(query string, groups ...[]evidence.Block) string { return fences(query, groups...).Nonce() }

func fences(query string, groups ...[]evidence.Block) fence.Fence {
	parts := []string{query}
	for _, g := range groups {
		for _, b := range g {
			parts = append(parts, blockText(b))
		}
	}
	return fence.New(parts...)
}

// untrusted is the system prompt's paragraph on the fenced documents.
var untrusted = fence.Rule("a numbered document (NAME is DOC and its number N)") + "\n\n"

// closingRules end the rules of every brief prompt, before the reply format.
const closingRules = "- If the documents do not answer the question, set \"not_enough\" to true (not enough information) and keep only the claims the documents support, or none.\n" +
	"- Write the claims in the language of the question, one fact each.\n\n" +
	"Reply with ONLY this JSON object, no other text:\n"

// commonRules are the rules every summary keeps.
const commonRules = "- Answer only from the documents; add nothing from your own knowledge.\n" +
	"- Every claim cites by number in \"cites\" (N of [N]) the one to three documents that state it, and says only what they say. Do not write [N] marks in \"text\".\n" +
	"- Write no date that is not in the documents: a date in a claim's text must be the publication date of a document it cites or be written in one.\n"

// BriefPrompt is the conversation asking for a digest of blocks for query as of asOf's day,
// with the claims of the last newDays days in "new" (BriefFormat).
func BriefPrompt(query string, blocks []evidence.Block, asOf time.Time, newDays int) []llm.Message {
	f := fences(query, blocks)
	d := day(asOf).Format(evidence.DateLayout)
	from := newFrom(asOf, newDays).Format(evidence.DateLayout)

	var sys strings.Builder
	sys.WriteString("You write a dated, cited news digest that answers a question as of " + d +
		", using only the numbered documents in the user message. Nothing after " + d + " is known.\n\n")
	sys.WriteString(untrusted)
	sys.WriteString("Rules:\n" + commonRules)
	switch newDays {
	case 0:
		sys.WriteString("- \"new\" is always [].\n")
	default:
		fmt.Fprintf(&sys, "- \"new\" says what the documents published from %s to %s (the %s) add. Every \"new\" claim cites at least one of those documents. If none of them bears on the question, \"new\" is [].\n",
			from, d, lastDays(newDays))
	}
	sys.WriteString("- \"timeline\" lists the key events in ascending date order, the new ones included; the \"date\" (YYYY-MM-DD) of each entry is the publication date of one of the documents it cites. The timeline is empty only when \"not_enough\" is true.\n")
	sys.WriteString(closingRules + BriefFormat)

	var user strings.Builder
	user.WriteString("Question: " + f.Line(query) + "\nAs of: " + d + "\n")
	if newDays > 0 {
		user.WriteString("\"new\" window: " + from + " to " + d + "\n")
	}
	fmt.Fprintf(&user, "\nDocuments (%d), nonce %s:\n\n", len(blocks), f.Nonce())
	writeBlocks(&user, blocks, f)
	user.WriteString("Reply with ONLY the JSON object.")
	return []llm.Message{{Role: "system", Content: sys.String()}, {Role: "user", Content: user.String()}}
}

// EvolutionPrompt is the conversation asking how the answer to query changed between the
// older blocks (then) and the newer ones (now), as of asOf's day (EvolutionFormat). Block
// numbers are unique across both groups.
func EvolutionPrompt(query string, then, now []evidence.Block, asOf time.Time) []llm.Message {
	f := fences(query, then, now)
	d := day(asOf).Format(evidence.DateLayout)

	var sys strings.Builder
	sys.WriteString("You explain how the answer to a question changed over time, as of " + d +
		", using only the numbered documents in the user message: the OLDER documents show how things were (\"then\"), the NEWER documents how they are now (\"now\"). Nothing after " + d + " is known.\n\n")
	sys.WriteString(untrusted)
	sys.WriteString("Rules:\n" + commonRules)
	sys.WriteString("- \"then\" claims cite only OLDER documents (" + numbers(then) + "); \"now\" claims cite only NEWER documents (" + numbers(now) + ").\n")
	sys.WriteString("- Speak to the same aspects in \"then\" and \"now\", so that the change shows; a side with no relevant document is [].\n")
	sys.WriteString(closingRules + EvolutionFormat)

	var user strings.Builder
	user.WriteString("Question: " + f.Line(query) + "\nAs of: " + d + "\n")
	fmt.Fprintf(&user, "\nOLDER documents, for \"then\" (%d), nonce %s:\n\n", len(then), f.Nonce())
	writeBlocks(&user, then, f)
	fmt.Fprintf(&user, "NEWER documents, for \"now\" (%d), nonce %s:\n\n", len(now), f.Nonce())
	writeBlocks(&user, now, f)
	user.WriteString("Reply with ONLY the JSON object.")
	return []llm.Message{{Role: "system", Content: sys.String()}, {Role: "user", Content: user.String()}}
}

// writeBlocks writes each block fenced (fence.Fence.Write), as
//
//	<<<DOC N n=X>>>
//	[N] date=YYYY-MM-DD sources=a, b
//	Title: title
//	snippet
//	<<<END n=X>>>
//
// followed by a blank line; the sources field is left out when there are none, the title line
// when the title is empty. The sources and the title are put on one line.
func writeBlocks(w *strings.Builder, blocks []evidence.Block, f fence.Fence) {
	for _, b := range blocks {
		var body strings.Builder
		fmt.Fprintf(&body, "[%d] date=%s", b.N, b.Doc.PublishedAt.UTC().Format(evidence.DateLayout))
		var src []string
		for _, s := range b.Doc.Sources {
			if s = f.Line(s); s != "" {
				src = append(src, s)
			}
		}
		if len(src) > 0 {
			body.WriteString(" sources=" + strings.Join(src, ", "))
		}
		if t := f.Line(b.Doc.Title); t != "" {
			body.WriteString("\nTitle: " + t)
		}
		if t := strings.TrimSpace(blockText(b)); t != "" {
			body.WriteString("\n" + t)
		}
		f.Write(w, "DOC "+strconv.Itoa(b.N), body.String())
		w.WriteString("\n")
	}
}

// numbers lists the block numbers as "[1], [3]", or "none".
func numbers(blocks []evidence.Block) string {
	if len(blocks) == 0 {
		return "none"
	}
	s := make([]string, len(blocks))
	for i, b := range blocks {
		s[i] = "[" + strconv.Itoa(b.N) + "]"
	}
	return strings.Join(s, ", ")
}

// lastDays is "last day" or "last N days".
func lastDays(n int) string {
	if n == 1 {
		return "last day"
	}
	return fmt.Sprintf("last %d days", n)
}
