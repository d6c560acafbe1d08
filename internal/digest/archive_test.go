package digest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/asofrag/asof/internal/testchrome"
	"github.com/asofrag/asof/schemas"
)

// archiveFixture is three days of the "morning" digest, given out of order: the fixture
// (2024-06-30), the day before with one stale topic, and 2024-06-28 with no evidence.
func archiveFixture() []schemas.Digest {
	d30 := fixture()
	d29 := schemas.Digest{Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: anchor.AddDate(0, 0, -1),
		Topics: []schemas.DigestTopic{{Name: "ECB interest rates", Query: "q",
			Freshness: Freshness([]schemas.ContextBlock{{N: 1, PublishedAt: on(2024, 4, 11)}}, anchor.AddDate(0, 0, -1))}}}
	d28 := schemas.Digest{Version: schemas.DigestVersion, Name: "morning", Index: "news", AsOf: anchor.AddDate(0, 0, -2),
		Topics: []schemas.DigestTopic{{Name: "ECB interest rates", Query: "q", Freshness: Freshness(nil, anchor)}}}
	return []schemas.Digest{d29, d30, d28}
}

func renderArchive(t *testing.T, name string, ds []schemas.Digest) string {
	t.Helper()
	var b strings.Builder
	if err := WriteArchive(&b, name, ds); err != nil {
		t.Fatalf("WriteArchive: %v", err)
	}
	return b.String()
}

// TestWriteArchive: one row per day, newest first, linking to the day's page; each topic with
// its freshness (text and colour class) linking to its card; failed topics counted.
func TestWriteArchive(t *testing.T) {
	doc := parse(t, renderArchive(t, "morning", archiveFixture()))
	if got := text(findAll(doc, "h1", nil)[0]); got != "Digest archive morning" {
		t.Errorf("h1 = %q", got)
	}
	rows := findAll(byID(t, doc, "days"), "tr", func(n *html.Node) bool { return strings.HasPrefix(attr(n, "id"), "day-") })
	type topic struct{ name, href, status, class string }
	tests := []struct {
		name    string
		day     string
		summary string
		topics  []topic
	}{
		{name: "newest", day: "2024-06-30", summary: "3 topics, 1 failed · index news", topics: []topic{
			{"ECB interest rates", "2024-06-30/digest.html#topic-1", "freshest 1 day old", "fresh"},
			{"Ключевая ставка ЦБ", "2024-06-30/digest.html#topic-2", "freshest 16 days old", "aging"},
			{"Chip export rules", "2024-06-30/digest.html#topic-3", "failed", "bad"},
		}},
		{name: "stale", day: "2024-06-29", summary: "1 topic · index news", topics: []topic{
			{"ECB interest rates", "2024-06-29/digest.html#topic-1", "freshest 79 days old", "stale"},
		}},
		{name: "no evidence", day: "2024-06-28", summary: "1 topic · index news", topics: []topic{
			{"ECB interest rates", "2024-06-28/digest.html#topic-1", "no evidence", "muted"},
		}},
	}
	if len(rows) != len(tests) {
		t.Fatalf("%d rows, want %d", len(rows), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := rows[i]
			if got := attr(row, "id"); got != "day-"+tt.day {
				t.Fatalf("row %d is %q, want day-%s", i, got, tt.day)
			}
			link := findAll(row, "a", nil)[0]
			if attr(link, "href") != tt.day+"/digest.html" || text(link) != tt.day {
				t.Errorf("day link %q → %q", text(link), attr(link, "href"))
			}
			count := findAll(row, "span", func(n *html.Node) bool { return hasClass(n, "count") })[0]
			if got := text(count); got != tt.summary {
				t.Errorf("summary %q, want %q", got, tt.summary)
			}
			items := findAll(row, "li", nil)
			if len(items) != len(tt.topics) {
				t.Fatalf("%d topics, want %d", len(items), len(tt.topics))
			}
			for j, want := range tt.topics {
				a := findAll(items[j], "a", nil)[0]
				st := findAll(items[j], "span", func(n *html.Node) bool { return hasClass(n, "status") })[0]
				sw := findAll(items[j], "span", func(n *html.Node) bool { return hasClass(n, "swatch") })[0]
				got := topic{text(a), attr(a, "href"), text(st), ""}
				if hasClass(st, want.class) && hasClass(sw, want.class) {
					got.class = want.class
				}
				if got != want {
					t.Errorf("topic %d = %+v, want %+v", j, got, want)
				}
			}
		})
	}
}

// TestWriteArchiveSelfContained: no script, no stylesheet or image to fetch, every link
// relative to the archive's folder; names are escaped; the same input gives the same bytes.
func TestWriteArchiveSelfContained(t *testing.T) {
	ds := archiveFixture()
	ds[0].Topics[0].Name = `<script>alert(1)</script>`
	out := renderArchive(t, `<b>x</b>`, ds)
	doc := parse(t, out)
	if strings.Contains(out, "<script") || strings.Contains(out, "<b>") {
		t.Fatal("unescaped markup in the page")
	}
	if len(findAll(doc, "link", nil))+len(findAll(doc, "img", nil))+len(findAll(doc, "script", nil)) != 0 {
		t.Error("the page loads a resource")
	}
	for _, a := range findAll(doc, "a", nil) {
		if h := attr(a, "href"); strings.Contains(h, ":") || strings.HasPrefix(h, "/") {
			t.Errorf("link %q is not relative", h)
		}
	}
	if again := renderArchive(t, `<b>x</b>`, ds); again != out {
		t.Error("two renders differ")
	}
	empty := parse(t, renderArchive(t, "morning", nil))
	if got := text(findAll(empty, "main", nil)[0]); strings.TrimSpace(got) != "No digest yet." {
		t.Errorf("empty archive says %q", got)
	}
}

// TestArchiveRendersInHeadlessChromium: the archive draws text and its coloured freshness
// marks.
func TestArchiveRendersInHeadlessChromium(t *testing.T) {
	page := filepath.Join(t.TempDir(), "index.html")
	var buf bytes.Buffer
	// Many days, so the page has enough ink to tell from a blank one.
	var ds []schemas.Digest
	for i := range 20 {
		d := fixture()
		d.AsOf = anchor.AddDate(0, 0, -i)
		ds = append(ds, d)
	}
	if err := WriteArchive(&buf, "morning", ds); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testchrome.Render(t, page)
	if s.Ink < 2000 {
		t.Fatalf("only %d sampled pixels differ from the background: the page rendered blank", s.Ink)
	}
	if s.Colour < 100 {
		t.Errorf("only %d sampled pixels are coloured: the freshness marks did not render", s.Colour)
	}
}
