package digest

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"

	"github.com/asofrag/asof/schemas"
)

//go:embed archive.html.tmpl
var archiveHTML string

var archiveTemplate = template.Must(template.New("archive").Parse(archiveHTML))

// archiveView is the archive page, every string formatted.
type archiveView struct {
	Title string
	Name  string
	Days  []archiveDay
}

// archiveDay is one row of the archive: a day's digest and its topics.
type archiveDay struct {
	Day    string
	Href   string
	Index  string
	Topics []archiveTopic
	// Summary counts the topics: "4 topics", "4 topics, 1 failed".
	Summary string
}

// archiveTopic is one topic of a day: its name, linked to its card, and its freshness.
type archiveTopic struct {
	Name        string
	Href        string
	Status      string
	StatusClass string
}

// WriteArchive writes the archive page of the digests of one name: one row per digest,
// newest day first (digests of the same day in name order), each linking to its page
// (<day>/digest.html, relative to the archive's own folder) and listing each topic with its
// freshness — the age of its freshest cited source, coloured fresh (≤ 7 days), aging (≤ 30)
// or stale — or "failed" or "no evidence", each linking to the topic's card. Like WriteHTML
// it is self-contained (inline CSS, no script, no external resource), pure, and
// byte-identical for the same input; nothing is written on a rendering error.
func WriteArchive(w io.Writer, name string, digests []schemas.Digest) error {
	ds := slices.Clone(digests)
	slices.SortStableFunc(ds, func(a, b schemas.Digest) int {
		return cmp.Or(b.AsOf.Compare(a.AsOf), cmp.Compare(a.Name, b.Name))
	})
	v := archiveView{Name: oneLine(name), Title: "Digest archive"}
	if v.Name != "" {
		v.Title += " " + v.Name
	}
	for _, d := range ds {
		dv := buildView(d)
		day := archiveDay{Day: dv.AsOf, Href: dv.AsOf + "/digest.html", Index: dv.Index}
		failed := 0
		for _, t := range dv.Topics {
			if t.Error != "" {
				failed++
			}
			day.Topics = append(day.Topics, archiveTopic{Name: t.Name, Href: day.Href + "#" + t.ID, Status: t.Status, StatusClass: t.StatusClass})
		}
		day.Summary = plural(len(dv.Topics), "topic", "topics")
		if failed > 0 {
			day.Summary += fmt.Sprintf(", %d failed", failed)
		}
		v.Days = append(v.Days, day)
	}
	var buf bytes.Buffer
	if err := archiveTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("digest: render archive: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("digest: write archive: %w", err)
	}
	return nil
}
