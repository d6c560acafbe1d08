package digest

import (
	"strings"
	"testing"
)

// TestMarkdownEscapes: what a digest's Markdown takes from its configuration, its documents
// and its model (name, index, queries, messages, errors, claims, titles, sources, URLs) holds
// no raw HTML and no link but an http(s) one; the HTML page escapes the same strings
// (TestWriteHTMLEscapes).
func TestMarkdownEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script> [x](javascript:alert(1))`
	d := fixture()
	d.Name, d.Index, d.TimeZone, d.RunID = evil, evil, evil, evil
	tp := &d.Topics[0]
	tp.Name, tp.Query, tp.Interpretation, tp.Message = evil, evil, evil, evil
	tp.Brief.New[0].Text = evil + " [ok](https://example.com/ok)"
	tp.Brief.Note = evil
	tp.Sources[0].Title, tp.Sources[0].Sources = evil, []string{evil}
	tp.Sources[0].URL = `<javascript:alert(1)>`
	d.Topics[2].Error = evil
	out := Markdown(d)
	for _, bad := range []string{"<script", "</script", "<javascript", "](javascript"} {
		for i := strings.Index(out, bad); i >= 0; i = next(out, bad, i) {
			if i == 0 || out[i-1] != '\\' {
				t.Fatalf("Markdown keeps %q unescaped:\n%s", bad, out)
			}
		}
	}
	if !strings.Contains(out, "[ok](https://example.com/ok)") {
		t.Errorf("Markdown lost the https link:\n%s", out)
	}
	if n := strings.Count(out, `\<script>alert(1)\</script> [x]\(javascript:alert(1))`); n < 8 {
		t.Errorf("the escaped string shows %d times, want every field (8 or more):\n%s", n, out)
	}
}

// next is the index of the next sub in s after i, or -1.
func next(s, sub string, i int) int {
	j := strings.Index(s[i+1:], sub)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
