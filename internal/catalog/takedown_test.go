package catalog

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/render"
	"github.com/asofrag/asof/schemas"
)

// TestRedactAnswer: a stored answer that quoted a document taken down since shows none of its
// text in any part (results, blocks, summary, brief, context), keeps what the other documents
// said, and says why.
func TestRedactAnswer(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	secret, kept := "The minister resigned over the bridge contract.", "The bridge opens in May."
	mk := func() schemas.Answer {
		brief := schemas.Brief{Method: "extractive", AsOf: day(20), NewDays: 7,
			New:     []schemas.Claim{{Date: day(18), Text: secret, Cites: []int{2}}},
			Earlier: []schemas.Claim{{Date: day(2), Text: kept, Cites: []int{1}}}}
		blocks := []schemas.ContextBlock{
			{N: 1, DocID: "ok", PublishedAt: day(2), Sources: []string{"a.com"}, Title: "Bridge", Snippet: kept},
			{N: 2, DocID: "gone", PublishedAt: day(18), Sources: []string{"b.com"}, Title: "Minister resigns", Snippet: secret, URL: "https://b.com/x", Folded: []string{"gone-copy"}},
		}
		ans := schemas.Answer{Index: "news", Query: "bridge", AsOf: day(20), Brief: &brief, Blocks: blocks, Context: "[1] " + kept + "\n[2] " + secret,
			Results: []schemas.AnswerResult{{Rank: 1, DocID: "gone", Title: "Minister resigns", Snippet: secret, URL: "https://b.com/x", Sources: []string{"b.com"}},
				{Rank: 2, DocID: "ok", Title: "Bridge", Snippet: kept}}}
		ans.Summary = render.Markdown(brief, blocks)
		return ans
	}
	gone := map[string]schemas.Takedown{"gone": {DocID: "gone", At: day(25), Reason: "court order 7/2026"}}

	tests := []struct {
		name     string
		gone     map[string]schemas.Takedown
		redacted bool
	}{
		{"nothing taken down", nil, false},
		{"another document taken down", map[string]schemas.Takedown{"other": gone["gone"]}, false},
		{"a cited document taken down", gone, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := mk()
			if got := RedactAnswer(&ans, tt.gone); got != tt.redacted {
				t.Fatalf("RedactAnswer = %v, want %v", got, tt.redacted)
			}
			data, _ := json.Marshal(ans)
			if !tt.redacted {
				if !strings.Contains(string(data), secret) {
					t.Fatal("an answer with nothing taken down lost its text")
				}
				return
			}
			if strings.Contains(string(data), secret) || strings.Contains(string(data), "b.com") || strings.Contains(string(data), "Minister") {
				t.Fatalf("the redacted answer still holds the removed document: %s", data)
			}
			if !strings.Contains(ans.Summary, kept) || ans.Results[1].Snippet != kept {
				t.Fatalf("the redacted answer lost what the other document said: %q", ans.Summary)
			}
			if ans.Results[0].Title != RemovedTitle || !strings.Contains(ans.Results[0].Snippet, "court order 7/2026") || !strings.Contains(ans.Results[0].Snippet, "2026-03-25") {
				t.Fatalf("removed result %+v: want it marked removed, with when and why", ans.Results[0])
			}
			if !strings.Contains(ans.Message, "taken down") || ans.Context != "" {
				t.Fatalf("message %q, context %q", ans.Message, ans.Context)
			}
			// A redacted answer, stored (a purge) and read back, is redacted again: unchanged.
			before, _ := json.Marshal(ans)
			if RedactAnswer(&ans, tt.gone) {
				t.Fatal("RedactAnswer of an answer redacted already reports a change")
			}
			if after, _ := json.Marshal(ans); string(after) != string(before) {
				t.Fatalf("redacting twice changed the answer:\n%s\n%s", before, after)
			}
		})
	}

	t.Run("digest", func(t *testing.T) {
		ans := mk()
		other := mk()
		other.Brief.New = nil // the second topic cites the kept document only
		d := schemas.Digest{Name: "daily", Index: "news", AsOf: day(20), Topics: []schemas.DigestTopic{
			{Name: "Bridge", Query: "bridge", Brief: *ans.Brief, Sources: ans.Blocks},
			{Name: "Kept", Query: "bridge", Brief: *other.Brief, Sources: other.Blocks[:1]},
			{Name: "Failed", Error: "ask failed"},
		}}
		if RedactDigest(&d, map[string]schemas.Takedown{"other": gone["gone"]}) {
			t.Fatal("a digest citing no document taken down reports a change")
		}
		if !RedactDigest(&d, gone) {
			t.Fatal("a digest citing a document taken down: no change")
		}
		data, _ := json.Marshal(d)
		if strings.Contains(string(data), secret) || strings.Contains(string(data), "Minister") {
			t.Fatalf("the redacted digest still holds the removed document: %s", data)
		}
		if !strings.Contains(string(data), kept) || d.Topics[0].Sources[1].Title != RemovedTitle || !strings.Contains(d.Topics[0].Message, "taken down") {
			t.Fatalf("redacted digest %s", data)
		}
		if d.Topics[1].Message != "" || d.Topics[2].Error != "ask failed" {
			t.Fatalf("topics without the document changed: %+v", d.Topics[1:])
		}
		if RedactDigest(&d, gone) {
			t.Fatal("redacting a digest twice reports a change")
		}
	})
}
