// Package htmltest reads rendered HTML in tests: parse a page, find elements, read attributes
// and text. The evaluation report's and the digest's tests share it.
package htmltest

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Parse parses s as an HTML document, failing t when it does not parse.
func Parse(t testing.TB, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parse output: %v", err)
	}
	return doc
}

// FindAll lists the elements under n (n included) named tag ("" for any) that match keep (nil:
// all).
func FindAll(n *html.Node, tag string, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && (tag == "" || d.Data == tag) && (keep == nil || keep(d)) {
			out = append(out, d)
		}
	}
	return out
}

// Attr is n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether n's class attribute lists class.
func HasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(Attr(n, "class")), class)
}

// ByID is the one element of doc with id, failing t when there is not exactly one.
func ByID(t testing.TB, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := FindAll(doc, "", func(n *html.Node) bool { return Attr(n, "id") == id })
	if len(found) != 1 {
		t.Fatalf("elements with id %q: %d, want 1", id, len(found))
	}
	return found[0]
}

// Text is the text under n, concatenated.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}
