package digest

import (
	"fmt"
	"strings"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// Markdown renders d for a terminal or a file (digest.md):
//
//	# Digest world — index news, as of 2024-06-30
//
//	Time zone Europe/Berlin · 2 topics · run digest-world-2024-06-30
//
//	## 1. ECB rates
//
//	Query: what did the ECB decide on interest rates
//	Read as: recency (no date in query)
//
//	### New in the last 7 days
//	- 2024-06-28 — The ECB kept its deposit rate at 3.75%. [1][3]
//
//	### Timeline
//	- 2024-06-06 — The ECB cut rates for the first time since 2019. [2]
//	- 2024-06-28 — The ECB kept its deposit rate at 3.75%. [1][3]
//
//	### Sources
//	- [1] 2024-06-28 · reuters, ft · ECB holds · https://example.com/ecb
//
//	Freshness: freshest evidence 2 days old, 60% within 7 days, 5 distinct days; …
//	Judge: llm:qwen — 24 judged, 9 kept, 15 dropped, 0 failed
//	Summary: extractive
//
// A topic's summary and sources are its Brief and Sources rendered by render.Markdown, the
// form `asof ask` prints too (note, not-enough line, sections, cited sources). A topic with an
// Error shows its query and the error only; a Message is shown under the reading. Text fields
// are put on one line each and escaped by render.MarkdownText (no raw HTML, no link but an
// http(s) one), as the brief's are. The output is the same for the same d.
func Markdown(d schemas.Digest) string {
	v := buildView(d)
	var b strings.Builder
	md := render.MarkdownText
	fmt.Fprintf(&b, "# %s — index %s, as of %s\n\n", md(v.Title), md(orDash(v.Index)), v.AsOf)
	var meta []string
	if v.TimeZone != "" {
		meta = append(meta, "Time zone "+md(v.TimeZone))
	}
	meta = append(meta, plural(len(v.Topics), "topic", "topics"))
	if v.RunID != "" {
		meta = append(meta, "run "+md(v.RunID))
	}
	b.WriteString(strings.Join(meta, " · ") + "\n")
	for _, t := range v.Topics {
		fmt.Fprintf(&b, "\n## %d. %s\n\n", t.Num, md(t.Name))
		fmt.Fprintf(&b, "Query: %s\n", md(t.Query))
		if t.Reading != "" {
			fmt.Fprintf(&b, "Read as: %s\n", md(t.Reading))
		}
		if t.Error != "" {
			fmt.Fprintf(&b, "\nError: %s\n", md(t.Error))
			continue
		}
		if t.Message != "" {
			fmt.Fprintf(&b, "\nMessage: %s\n", md(t.Message))
		}
		fmt.Fprintf(&b, "\n%s", t.Brief)
		writeHistory(&b, t)
		fmt.Fprintf(&b, "\nFreshness: %s\n", t.Freshness)
		fmt.Fprintf(&b, "Judge: %s\n", md(t.Judge))
		fmt.Fprintf(&b, "Summary: %s\n", md(t.Summary))
	}
	return b.String()
}

// writeHistory writes a topic's history (its timeline) as a list of days, each sentence with
// its source and publication day.
func writeHistory(b *strings.Builder, t topicView) {
	md := render.MarkdownText
	if t.HistoryError != "" {
		fmt.Fprintf(b, "\n### History\n\nThe history failed: %s\n", md(t.HistoryError))
		return
	}
	if len(t.History) == 0 {
		return
	}
	b.WriteString("\n### History\n\n")
	for _, h := range t.History {
		var parts []string
		for _, l := range h.Lines {
			src := l.Source
			if l.URL != "" {
				src = fmt.Sprintf("[%s](%s)", md(orDash(l.Source)), l.URL)
			} else {
				src = md(orDash(src))
			}
			parts = append(parts, fmt.Sprintf("%s (%s, %s)", md(l.Sentence), src, l.Posted))
		}
		fmt.Fprintf(b, "- %s — %s\n", h.Day, strings.Join(parts, " "))
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
