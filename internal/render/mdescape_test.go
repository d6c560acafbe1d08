package render

import (
	"strings"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestMarkdownText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "The ECB held rates.", "The ECB held rates."},
		{"script tag", "a <script>alert(1)</script> b", `a \<script>alert(1)\</script> b`},
		{"img tag", `<img src=x onerror=alert(1)>`, `\<img src=x onerror=alert(1)>`},
		{"comment", "<!-- x -->", `\<!-- x -->`},
		{"processing instruction", "<?php ?>", `\<?php ?>`},
		{"autolink to javascript", "<javascript:alert(1)>", `\<javascript:alert(1)>`},
		{"less than a number stays", "3 < 5 and x<2", "3 < 5 and x<2"},
		{"javascript link", "[x](javascript:alert(1))", `[x]\(javascript:alert(1))`},
		{"javascript link in brackets", "[x](<javascript:alert(1)>)", `[x]\(\<javascript:alert(1)>)`},
		{"javascript link, entity", "[x](&#106;avascript:alert(1))", `[x]\(&#106;avascript:alert(1))`},
		{"data image", "![p](data:image/png;base64,AAAA)", `![p]\(data:image/png;base64,AAAA)`},
		{"mailto link", "[m](mailto:a@b.c)", `[m]\(mailto:a@b.c)`},
		{"https link kept", "[ECB](https://ecb.europa.eu/x)", "[ECB](https://ecb.europa.eu/x)"},
		{"http link kept, any case", "[a](HTTP://ex.com)", "[a](HTTP://ex.com)"},
		{"reference definition", "[x]: javascript:alert(1)", `[x\]: javascript:alert(1)`},
		{"already escaped less than", `\<b>`, `\<b>`},
		{"citation marks stay", "Raised to 18%. [1][2]", "Raised to 18%. [1][2]"},
		{"one line", "a\n<b>\nc", `a \<b> c`},
		{"escape sequences stripped", "key rate \x1b[2J\x1b]0;API-TITLE\x07 via api", "key rate [2J]0;API-TITLE via api"},
		{"color codes stripped", "\x1b[31mRED\x1b[0m", "[31mRED[0m"},
		{"c1 csi stripped", "a\u009b2Jb", "a2Jb"},
		{"bidi override stripped", "abc\u202edef", "abcdef"},
		{"tab and carriage return are spaces", "a\tb\rc", "a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MarkdownText(tt.in); got != tt.want {
				t.Errorf("MarkdownText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestMarkdownEscapesHTMLAndLinks: a claim, a note, a title, a source name or a URL taken from
// a post or a model cannot put raw HTML or a non-http(s) link into the Markdown `asof ask`
// prints and digests store; http(s) links and citation marks are kept.
func TestMarkdownEscapesHTMLAndLinks(t *testing.T) {
	b := schemas.Brief{AsOf: asOf, Method: "extractive", Note: "<b>weak</b>",
		Timeline: []schemas.Claim{
			claim("2024-06-28", "Raised <script>alert(1)</script> [click](javascript:alert(1)) see [ECB](https://ecb.europa.eu)", 1),
			claim("2024-06-20", "![x](data:text/html;base64,PHNjcmlwdD4=) <img src=x onerror=alert(1)>", 2),
		}}
	bl := []schemas.ContextBlock{
		{N: 1, PublishedAt: at("2024-06-28"), Sources: []string{"<i>tass</i>"}, Title: "[t](javascript:x)", URL: "<javascript:alert(1)>"},
		{N: 2, PublishedAt: at("2024-06-20"), Sources: []string{"rbc"}, Title: "<iframe src=//ev.il>", URL: "https://example.com/a"},
	}
	out := Markdown(b, bl)
	for _, bad := range []string{"<script", "<img", "<b>", "<i>", "<iframe", "<javascript", "](javascript", "](data:"} {
		if i := strings.Index(out, bad); i >= 0 && (i == 0 || out[i-1] != '\\') {
			t.Errorf("Markdown keeps %q unescaped:\n%s", bad, out)
		}
	}
	for _, keep := range []string{"[ECB](https://ecb.europa.eu)", "https://example.com/a", "[1]", "[2]"} {
		if !strings.Contains(out, keep) {
			t.Errorf("Markdown lost %q:\n%s", keep, out)
		}
	}
}

// TestOneLine: what every renderer puts on one line (a query, a topic name, a title, a table
// cell) holds no control character, C0 or C1, and no bidirectional override: a terminal that
// prints it or a Markdown file that stores it cannot be sent an escape sequence; what is left
// of a sequence is plain text.
func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "key rate", "key rate"},
		{"clear screen and window title", "key rate \x1b[2J\x1b]0;API-TITLE\x07 via api", "key rate [2J]0;API-TITLE via api"},
		{"c1 csi", "a\u009b31mb", "a31mb"},
		{"nul, del and backspace", "a\x00b\x7fc\x08d", "abcd"},
		{"line breaks and tabs", " a\r\n\tb\u0085c ", "a b c"},
		{"bidi isolate", "x\u2067y\u2069z", "xyz"},
		{"cyrillic and chinese kept", "ключевая ставка 利率", "ключевая ставка 利率"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OneLine(tt.in)
			if got != tt.want {
				t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Truncate(tt.in, 5); strings.ContainsFunc(got, func(r rune) bool { return r < ' ' || (r >= 0x7f && r <= 0x9f) }) {
				t.Errorf("Truncate(%q, 5) = %q holds a control character", tt.in, got)
			}
		})
	}
}
