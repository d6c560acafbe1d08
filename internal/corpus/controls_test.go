package corpus

import (
	"strings"
	"testing"
	"unicode"

	"github.com/asofrag/asof/schemas"
)

// allColumns is the canonical layout with every string column, to carry control characters.
type allColumns struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Title       string `parquet:"title"`
	Text        string `parquet:"text"`
	Source      string `parquet:"source"`
	URL         string `parquet:"url"`
	Topic       string `parquet:"topic"`
	Lang        string `parquet:"lang"`
}

// TestControlCharactersAreStrippedAtLoad: ESC and BEL sequences, C1 controls and bidi
// overrides in any string column never reach a document (they would reach a terminal through
// `asof ask` and a digest's Markdown); text keeps its line breaks; two ids equal once cleaned
// are duplicates, and the counts still reconcile.
func TestControlCharactersAreStrippedAtLoad(t *testing.T) {
	esc := "\x1b[2J\x1b]0;pwned\a"
	rows := []allColumns{
		{DocID: "a\x1b\x071", PublishedAt: "2024-03-01", Title: "Rate\x1b[31m up\u009b", Text: "Line one\x07\nline\u202e two" + esc,
			Source: "\x1b[1mreuters\x1b[0m\n", URL: "https://ex.com/\x1b]8;;x\x07a", Topic: "rates\x00\x7f", Lang: "EN\x1b"},
		{DocID: "a1", PublishedAt: "2024-03-01", Text: "The same id once cleaned.", Source: "tass"},
		{DocID: "b\t2", PublishedAt: "2024-03-02", Text: "Tab in the id.", Source: "rbc\u0085news"},
	}
	l := NewLoader(Options{})
	res, err := load(t, l, writeParquet(t, rows), "ctl.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.docs) != 2 {
		t.Fatalf("documents %+v, want 2", res.docs)
	}
	want := []schemas.Document{
		{DocID: "a1", Title: "Rate[31m up", Text: "Line one\nline two[2J]0;pwned", Source: "[1mreuters[0m", URL: "https://ex.com/]8;;xa", Topic: "rates", Lang: "en"},
		{DocID: "b 2", Text: "Tab in the id.", Source: "rbc news"},
	}
	for i, d := range res.docs {
		w := want[i]
		got := []string{d.DocID, d.Title, d.Text, d.Source, d.URL, d.Topic}
		exp := []string{w.DocID, w.Title, w.Text, w.Source, w.URL, w.Topic}
		for j := range got {
			if got[j] != exp[j] {
				t.Errorf("doc %d field %d: %q, want %q", i, j, got[j], exp[j])
			}
			for _, r := range got[j] {
				if (unicode.IsControl(r) && r != '\n') || r == '\u202e' {
					t.Errorf("doc %d field %d: %q keeps control character %U", i, j, got[j], r)
				}
			}
		}
		if w.Lang != "" && d.Lang != w.Lang {
			t.Errorf("doc %d lang %q, want %q", i, d.Lang, w.Lang)
		}
	}
	if len(res.rejects) != 1 || res.rejects[0].Reason != schemas.ReasonDuplicateID || strings.ContainsRune(res.rejects[0].DocID, '\x1b') {
		t.Errorf("rejects %+v, want one duplicate_id for a1", res.rejects)
	}
	if tot := l.Total(); !tot.Reconciles() || tot.Read != 3 || tot.Documents != 2 {
		t.Errorf("stats %+v: want 3 read, 2 documents, reconciled", tot)
	}
}
