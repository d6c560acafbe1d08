package render

import "strings"

// MarkdownText is s on one line (OneLine), made safe to place in Markdown that another program
// may render: raw HTML cannot start (a "<" that could open a tag, a comment, a declaration or
// an autolink is written "\<"), a link or image whose destination is not http(s) is plain text
// ("](" is written "]\(" unless an http:// or https:// address follows, so
// "[x](javascript:alert(1))" shows as written and links nowhere), and no link reference
// definition can form ("]:" is written "\]:"). Everything else, http(s) links included, is
// left as it was, so a terminal shows the text almost unchanged.
func MarkdownText(s string) string {
	s = OneLine(s)
	if !strings.ContainsAny(s, "<]") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<' && i+1 < len(s) && opensHTML(s[i+1]) && !escaped(s, i):
			b.WriteString(`\<`)
			continue
		case c == ']' && i+1 < len(s) && s[i+1] == ':' && !escaped(s, i):
			b.WriteString(`\]`)
			continue
		case c == ']' && i+1 < len(s) && s[i+1] == '(' && !webLink(s[i+2:]):
			b.WriteString(`]\(`)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// opensHTML reports whether c, after a "<", can start an HTML tag, closing tag, comment,
// declaration, processing instruction or autolink.
func opensHTML(c byte) bool {
	return c == '/' || c == '!' || c == '?' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// escaped reports whether the byte at i is already preceded by an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// webLink reports whether a link destination (what follows "](") is an http or https address,
// optionally in angle brackets after spaces.
func webLink(dest string) bool {
	dest = strings.TrimLeft(dest, " ")
	dest = strings.TrimPrefix(dest, "<")
	l := strings.ToLower(dest)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}
