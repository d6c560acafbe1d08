package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// AnswerMarkdown renders a whole answer as Markdown, as `asof ask` prints it and `asof
// answers get` prints a stored one: the query, the as-of day and how the query was read, the
// documents allowed, the ranked results, the summary (the answer's own, rendered from its
// brief by Markdown), the judge and the counts. It uses one numbering, the summary's: the
// summary cites [n] (1..n, Numbering), and the results table marks each result the summary
// cites with its [n] and one in the context it does not cite with "·". took is the answer's wall time when it was just asked (0 for a stored answer: not
// shown). Every text from a document, a model or a person goes through MarkdownText, and a
// "|" cannot break the table.
func AnswerMarkdown(ans schemas.Answer, took time.Duration) string {
	var w strings.Builder
	printf := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	day := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	md := MarkdownText // what a person, a document or a model wrote: no raw HTML, no link but http(s)
	printf("# %s\n\n", md(ans.Query))
	printf("As of **%s** · index `%s` (manifest %d) · read as: %s\n", day(ans.AsOf), ans.Index, ans.ManifestSeq, md(ans.Interpretation))
	from := "the beginning"
	if !ans.From.IsZero() {
		from = day(ans.From)
	}
	printf("Documents allowed: published %s … %s (%d chunks in %d shards; %d shards outside the dates not loaded)\n\n",
		from, day(ans.To), ans.Counts.Allowed, ans.Counts.ShardsSearched, ans.Counts.ShardsSkipped)
	if ans.Standing != "" {
		printf("%s\n\n", md(ans.Standing))
	}
	if ans.Message != "" {
		printf("**%s**\n\n", md(ans.Message))
	}
	inContext := map[string]int{} // doc id → context block number
	for _, b := range ans.Blocks {
		if _, ok := inContext[b.DocID]; !ok {
			inContext[b.DocID] = b.N
		}
	}
	// A brief's summary numbers what it cites 1..n (Numbering); the table marks a result by
	// that number, and one in the context that the summary does not cite with "·". An answer
	// stored without a brief keeps the context's numbers, as its summary does.
	var num Numbering
	citedAs := map[string]int{} // doc id → the number the summary cites it by
	legend := "[n] is the result's number in the context, which the summary cites (–: not in the context)"
	if ans.Brief != nil {
		num = NumberingOf(*ans.Brief)
		for _, b := range ans.Blocks { // a document cited by several of its blocks: the first shown
			if shown, cited := num[b.N]; cited && (citedAs[b.DocID] == 0 || shown < citedAs[b.DocID]) {
				citedAs[b.DocID] = shown
			}
		}
		legend = "[n] is the number the summary cites the result by (·: in the context, not cited; –: not in the context)"
	}
	if len(ans.Results) > 0 {
		printf("## Results\n\nIn ranked order; %s.\n\n", legend)
		printf("| # | date | source | title | score | dense | bm25 | time | dups | judge |\n|---|---|---|---|---|---|---|---|---|---|\n")
		rank := func(n int) string {
			if n == 0 {
				return "–"
			}
			return fmt.Sprint(n)
		}
		for _, r := range ans.Results {
			title := textnorm.DisplayTitle(r.Title, r.Snippet, 90)
			if title == "" {
				title = "untitled"
			}
			title = strings.ReplaceAll(md(title), "|", "\\|")
			label := "–"
			if n, ok := inContext[r.DocID]; ok {
				label = fmt.Sprintf("[%d]", n)
				if num != nil {
					label = "·"
					if shown, cited := citedAs[r.DocID]; cited {
						label = fmt.Sprintf("[%d]", shown)
					}
				}
			}
			switch {
			case r.Period != "":
				label += " " + r.Period
			case r.Group != "":
				label += " " + r.Group
			}
			switch {
			case r.Superseded != nil && r.Superseded.Soft:
				title += fmt.Sprintf(" _(restated by %s on %s)_", md(r.Superseded.By), day(r.Superseded.On))
			case r.Superseded != nil:
				title += fmt.Sprintf(" _(superseded by %s on %s)_", md(r.Superseded.By), day(r.Superseded.On))
			case r.Version > 1:
				title += fmt.Sprintf(" _(version %d, edited on %s)_", r.Version, day(r.PublishedAt))
			case r.EffectiveAt != nil && r.EffectiveAt.After(r.PublishedAt):
				title += fmt.Sprintf(" _(in force from %s)_", day(*r.EffectiveAt))
			}
			grade := "–"
			if r.Relevance != nil {
				grade = fmt.Sprint(*r.Relevance)
			}
			printf("| %s | %s | %s | %s | %.4f | %s | %s | %s | %d | %s |\n", label, day(r.PublishedAt), strings.ReplaceAll(md(Truncate(strings.Join(textnorm.Channels(r.Sources...), ", "), 40)), "|", "\\|"), title,
				r.Score, rank(r.RankDense), rank(r.RankBM25), rank(r.RankTime), r.Duplicates, grade)
		}
		printf("\n")
	}
	if ans.Summary != "" {
		printf("## Summary (%s)\n\n%s\n\n", ans.SummaryMethod, strings.TrimSpace(ans.Summary))
	}
	if j := ans.Judge; j != nil {
		printf("_Judge: %s — %d judged in %d batches, %d kept, %d dropped", j.Method, j.Judged, j.Batches, j.Kept, j.Dropped)
		if j.FailedBatches > 0 {
			printf(", %d in %d failed batches (policy %s)", j.Failed, j.FailedBatches, j.Policy)
			if j.Reason != "" {
				printf("; first failure: %s", md(OneLine(j.Reason)))
			}
		}
		printf("_\n")
	}
	total := ""
	if took > 0 {
		total = ", total " + took.Round(time.Millisecond).String()
	}
	printf("_%d candidates, %d after folding duplicates; retrieval %d ms%s; stored under runs/%s/_\n",
		ans.Counts.Candidates, ans.Counts.Clusters, ans.Counts.RetrieveMS, total, ans.RunID)
	return w.String()
}
