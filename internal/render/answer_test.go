package render

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/schemas"
)

// TestAnswerMarkdownUsesTheSummarysNumbering: the summary and its sources are numbered 1..n in
// the order shown (the context's blocks 2, 1 and 9 read [1], [2], [3]); the results table marks
// a result the summary cites with that [n] and one outside the context with "–"; the summary
// is the answer's own, its note shown once.
func TestAnswerMarkdownUsesTheSummarysNumbering(t *testing.T) {
	two := 2
	ans := schemas.Answer{
		Query: "key rate", Index: "news", AsOf: at("2026-04-01"), To: at("2026-04-01"), Interpretation: "recency",
		Results: []schemas.AnswerResult{
			{Rank: 1, DocID: "rate-up", PublishedAt: at("2026-03-20"), Sources: []string{"bank", "wire"}, Title: "Bank raises rate", Relevance: &two},
			{Rank: 2, DocID: "rate-old", PublishedAt: at("2026-01-10"), Sources: []string{"wire"}, Title: "Bank holds rate"},
			{Rank: 3, DocID: "bridge", PublishedAt: at("2026-03-01"), Sources: []string{"city"}, Title: "Bridge | delayed"},
		},
		Blocks: []schemas.ContextBlock{
			{N: 1, DocID: "rate-old", PublishedAt: at("2026-01-10"), Sources: []string{"wire"}, Title: "Bank holds rate"},
			{N: 2, DocID: "rate-up", PublishedAt: at("2026-03-20"), Sources: []string{"bank", "wire"}, Title: "Bank raises rate", URL: "https://bank.example/rate", Hot: true},
			{N: 9, DocID: "drought", PublishedAt: at("2026-02-02"), Sources: []string{"farm"}, Snippet: "The drought cut the harvest forecast"},
		},
		SummaryMethod: "extractive",
		Brief: &schemas.Brief{Method: "extractive", AsOf: at("2026-04-01"), NewDays: 7, Note: "Weak match.",
			New: []schemas.Claim{{Date: at("2026-03-20"), Text: "The bank raised the rate.", Cites: []int{2}}},
			Timeline: []schemas.Claim{{Date: at("2026-01-10"), Text: "It held.", Cites: []int{1, 2}}, {Date: at("2026-02-02"), Text: "A drought.", Cites: []int{9}},
				{Date: at("2026-03-20"), Text: "The bank raised the rate.", Cites: []int{2}}}},
	}
	ans.Summary = Markdown(*ans.Brief, ans.Blocks) // as the Ask workflow writes it
	out := AnswerMarkdown(ans, time.Second)
	tests := []struct {
		name, want string
	}{
		{"a result the summary cites has its [n], the number it is shown by", "| [1] | 2026-03-20 | bank, wire | Bank raises rate | 0.0000 | – | – | – | 0 | 2 |\n"},
		{"so does a lower one", "| [2] | 2026-01-10 | wire | Bank holds rate |"},
		{"one outside the context has none", "| – | 2026-03-01 | city | Bridge \\| delayed |"},
		{"the summary is the answer's, note first, numbered from 1", "## Summary (extractive)\n\n_Weak match._\n\n### New in the last 7 days\n- 2026-03-20 — The bank raised the rate. [1]\n\n" +
			"### Timeline\n- 2026-01-10 — It held. [1][2]\n- 2026-02-02 — A drought. [3]\n"},
		{"the sources resolve every cited number, 1..n in the order shown", "### Sources\n" +
			"- [1] 2026-03-20 · bank, wire · Bank raises rate · https://bank.example/rate\n" +
			"- [2] 2026-01-10 · wire · Bank holds rate\n" +
			"- [3] 2026-02-02 · farm · The drought cut the harvest forecast\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
	if strings.Contains(out, "| 1 |") || strings.Contains(out, "| 3 |") {
		t.Errorf("the table still numbers rows by rank:\n%s", out)
	}
	if strings.Count(out, "Weak match.") != 1 {
		t.Errorf("the note is not shown exactly once:\n%s", out)
	}
}

// TestAnswerMarkdownEscapes: the query, the reading, the message, result titles and
// sources printed by `asof ask` and `asof answers get` hold no raw HTML and no non-http(s) link (the summary is
// escaped by render.Markdown); a "|" in a source cannot break the table.
// TestMarkShown: the blocks carry the numbers the summary shows them by (for the page at /,
// which lists the context beside the summary), 0 for a block it does not cite.
// TestAnswerMarkdownSaysWhyJudgingFailed: failed judge batches are reported with the policy
// that applied and the first failure's reason, which may be a server's text (escaped).
func TestAnswerMarkdownSaysWhyJudgingFailed(t *testing.T) {
	ans := schemas.Answer{Query: "key rate", Index: "news", AsOf: at("2026-04-01"), To: at("2026-04-01"),
		Judge: &schemas.JudgeReport{Method: "llm (every batch failed)", Policy: "keep", Batches: 1, FailedBatches: 1, Failed: 3, Kept: 3,
			Reason: "candidates 1..3: judge: llm: chat qwen at http://127.0.0.1:8080/v1: status 503: <b>Loading</b>\nmodel"}}
	out := AnswerMarkdown(ans, time.Second)
	want := "_Judge: llm (every batch failed) — 0 judged in 1 batches, 3 kept, 0 dropped, 3 in 1 failed batches (policy keep); " +
		"first failure: candidates 1..3: judge: llm: chat qwen at http://127.0.0.1:8080/v1: status 503: \\<b>Loading\\</b> model_\n"
	if !strings.Contains(out, want) {
		t.Errorf("the judge line is not\n%s\nin\n%s", want, out)
	}
}

func TestMarkShown(t *testing.T) {
	b := schemas.Brief{Method: "extractive",
		New:      []schemas.Claim{{Text: "Raised.", Cites: []int{2}}},
		Timeline: []schemas.Claim{{Text: "Held.", Cites: []int{1, 2}}, {Text: "A drought.", Cites: []int{9}}}}
	blocks := []schemas.ContextBlock{{N: 1}, {N: 2}, {N: 5, Shown: 4}, {N: 9}}
	MarkShown(b, blocks)
	got := []int{}
	for _, bl := range blocks {
		got = append(got, bl.Shown)
	}
	if want := []int{2, 1, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("shown %v, want %v", got, want)
	}
}

func TestAnswerMarkdownEscapes(t *testing.T) {
	const evil = "<script>alert(1)</script> [x](javascript:alert(1))"
	ans := schemas.Answer{
		Query: evil, Index: "news", AsOf: at("2026-04-01"), To: at("2026-04-01"), Interpretation: evil, Message: evil,
		Results: []schemas.AnswerResult{{Rank: 1, DocID: "a", PublishedAt: at("2026-03-20"), Sources: []string{"<b>wire</b> | x"}, Title: evil}},
	}
	out := AnswerMarkdown(ans, time.Second)
	for i := strings.Index(out, "<script"); i >= 0; {
		if i == 0 || out[i-1] != '\\' {
			t.Fatalf("raw <script in the output:\n%s", out)
		}
		j := strings.Index(out[i+1:], "<script")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if strings.Contains(out, "](javascript") {
		t.Errorf("a javascript: link in the output:\n%s", out)
	}
	if !strings.Contains(out, "| \\<b>wire\\</b> \\| x |") {
		t.Errorf("the source cell is not escaped:\n%s", out)
	}
}

// TestAnswerMarkdownStripsControls: an answer whose stored query (and reading, message, title
// and source) holds terminal escape sequences prints without them: `asof ask` and `asof
// answers get` print this Markdown to a terminal.
func TestAnswerMarkdownStripsControls(t *testing.T) {
	const evil = "key rate \x1b[2J\x1b]0;API-TITLE\x07 via api \u009b31m\u202e"
	ans := schemas.Answer{
		Query: evil, Index: "news", AsOf: at("2026-04-01"), To: at("2026-04-01"), Interpretation: evil, Message: evil,
		Results: []schemas.AnswerResult{{Rank: 1, DocID: "a", PublishedAt: at("2026-03-20"), Sources: []string{"wire\x1b[31m"}, Title: evil}},
	}
	out := AnswerMarkdown(ans, time.Second)
	if i := strings.IndexFunc(out, func(r rune) bool { return (r < ' ' && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == '\u202e' }); i >= 0 {
		t.Fatalf("a control character %q at byte %d of the output:\n%q", out[i:i+1], i, out)
	}
	if !strings.HasPrefix(out, "# key rate [2J]0;API-TITLE via api 31m\n") {
		t.Errorf("the heading is not the query as plain text:\n%s", out)
	}
}

// TestAnswerMarkdownTrailer: a just-asked answer says its total time; a stored one (took 0)
// does not, and both name the run's folder.
func TestAnswerMarkdownTrailer(t *testing.T) {
	ans := schemas.Answer{RunID: "asof-ask-news-1", Query: "q", AsOf: at("2026-04-01"), To: at("2026-04-01"),
		Counts: schemas.AnswerCounts{Candidates: 7, Clusters: 5, RetrieveMS: 12}}
	tests := []struct {
		name string
		took time.Duration
		want string
	}{
		{name: "just asked", took: 1500 * time.Millisecond, want: "_7 candidates, 5 after folding duplicates; retrieval 12 ms, total 1.5s; stored under runs/asof-ask-news-1/_\n"},
		{name: "stored", want: "_7 candidates, 5 after folding duplicates; retrieval 12 ms; stored under runs/asof-ask-news-1/_\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := AnswerMarkdown(ans, tc.took); !strings.HasSuffix(got, tc.want) {
				t.Errorf("ends\n%q\nwant\n%q", got[max(0, len(got)-len(tc.want)-20):], tc.want)
			}
		})
	}
}
