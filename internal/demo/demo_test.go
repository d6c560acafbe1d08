package demo

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"gopkg.in/yaml.v3"

	"github.com/asofrag/asof/schemas"
)

// corpusDigest pins the corpus: it changes when a story, the seed or the generator changes.
// After an intended change, run the tests and copy the digest from the failure message.
const corpusDigest = "0fab614305bc2c86044262996987467dd3094e7dd607d03087cf4d06158231bb"

func day(s string) time.Time { return mustDay(s) }

// onDay reports whether d was published on the UTC day s.
func onDay(d schemas.Document, s string) bool {
	return d.PublishedAt.UTC().Format(time.DateOnly) == s
}

func TestDocumentsAreDeterministic(t *testing.T) {
	a, b := Documents(), Documents()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls of Documents differ")
	}
	var pa, pb bytes.Buffer
	if err := WriteParquet(&pa, a); err != nil {
		t.Fatal(err)
	}
	if err := WriteParquet(&pb, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa.Bytes(), pb.Bytes()) {
		t.Fatal("two WriteParquet outputs of the same documents differ")
	}
	h := sha256.New()
	for _, d := range a {
		w := "nil"
		if d.SourceWeight != nil {
			w = fmt.Sprint(*d.SourceWeight)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\n", d.DocID,
			d.PublishedAt.UTC().Format(time.RFC3339), d.Title, d.Text, d.Source, d.URL, w, d.Topic, d.Lang)
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != corpusDigest {
		t.Errorf("corpus digest = %s, want %s (update corpusDigest if the change is intended)", got, corpusDigest)
	}
}

func TestDocumentCount(t *testing.T) {
	if n := len(Documents()); n < 100 || n > 140 {
		t.Errorf("len(Documents()) = %d, want 100..140 (small enough for a slow embedder)", n)
	}
}

func TestIDsAreUniqueSequentialAndSorted(t *testing.T) {
	docs := Documents()
	seen := map[string]bool{}
	for i, d := range docs {
		if want := fmt.Sprintf("demo-%04d", i+1); d.DocID != want {
			t.Errorf("docs[%d].DocID = %q, want %q", i, d.DocID, want)
		}
		if seen[d.DocID] {
			t.Errorf("duplicate DocID %q", d.DocID)
		}
		seen[d.DocID] = true
	}
	sorted := slices.IsSortedFunc(docs, func(a, b schemas.Document) int {
		if c := a.PublishedAt.Compare(b.PublishedAt); c != 0 {
			return c
		}
		return strings.Compare(a.DocID, b.DocID)
	})
	if !sorted {
		t.Error("documents are not sorted by PublishedAt then DocID")
	}
}

func TestDocumentFields(t *testing.T) {
	topics := []string{"key-rate", "minister", "bridge", "harvest", "misc"}
	first, last := day("2026-01-05"), day("2026-04-16")
	for _, d := range Documents() {
		if strings.TrimSpace(d.Text) == "" || strings.TrimSpace(d.Title) == "" || d.Source == "" {
			t.Errorf("%s: empty title, text or source", d.DocID)
		}
		if n := utf8.RuneCountInString(d.Text); n >= 450 {
			t.Errorf("%s: text is %d runes, want < 450 (one chunk)", d.DocID, n)
		}
		if d.PublishedAt.Location() != time.UTC || d.PublishedAt.Before(first) || !d.PublishedAt.Before(last) {
			t.Errorf("%s: PublishedAt %v not a UTC time in 2026-01-05..2026-04-15", d.DocID, d.PublishedAt)
		}
		if want := "https://demo.asof.invalid/" + d.Source + "/" + d.DocID; d.URL != want {
			t.Errorf("%s: URL = %q, want %q", d.DocID, d.URL, want)
		}
		if _, err := url.Parse(d.URL); err != nil {
			t.Errorf("%s: URL %q does not parse: %v", d.DocID, d.URL, err)
		}
		if !slices.Contains(topics, d.Topic) {
			t.Errorf("%s: Topic = %q, want one of %v", d.DocID, d.Topic, topics)
		}
		cyrillic := strings.ContainsFunc(d.Text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) })
		if want := map[bool]string{true: "ru", false: "en"}[cyrillic]; d.Lang != want {
			t.Errorf("%s: Lang = %q but the text says %q", d.DocID, d.Lang, want)
		}
		if off := slices.Contains(official, d.Source); off != (d.SourceWeight != nil) || (off && *d.SourceWeight != 1) {
			t.Errorf("%s: source %s has SourceWeight %v, want 1.0 for official sources and nil otherwise", d.DocID, d.Source, d.SourceWeight)
		}
	}
}

func TestBothLanguages(t *testing.T) {
	docs := Documents()
	var ru, en int
	for _, d := range docs {
		switch d.Lang {
		case "ru":
			ru++
		case "en":
			en++
		}
	}
	if en == 0 || ru+en != len(docs) || float64(ru) < 0.30*float64(len(docs)) {
		t.Errorf("en=%d ru=%d of %d, want only en and ru with at least 30%% ru", en, ru, len(docs))
	}
}

func TestKeyRatePath(t *testing.T) {
	docs := Documents()
	tests := []struct {
		name, day, en, ru string
	}{
		{"hold in January", "2026-01-22", "6.50%", "6,50%"},
		{"first hike", "2026-02-12", "to 7.25%", "до 7,25%"},
		{"second hike", "2026-03-19", "to 8.00%", "до 8,00%"},
		{"cut after the anchor", "2026-04-09", "to 7.50%", "до 7,50%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var en, ru bool
			for _, d := range docs {
				if d.Topic == "key-rate" && onDay(d, tt.day) {
					en = en || d.Lang == "en" && strings.Contains(d.Text, tt.en)
					ru = ru || d.Lang == "ru" && strings.Contains(d.Text, tt.ru)
				}
			}
			if !en || !ru {
				t.Errorf("on %s: an English doc saying %q: %v, a Russian doc saying %q: %v", tt.day, tt.en, en, tt.ru, ru)
			}
		})
	}
}

// TestAsOfMask: the April cut exists only after the anchor, so an answer as of Anchor that
// mentions 7.50% proves a leak.
func TestAsOfMask(t *testing.T) {
	cut := day("2026-04-09")
	after := AnchorTime().AddDate(0, 0, 1)
	var late, lateCut int
	for _, d := range Documents() {
		mentions := false
		for _, s := range []string{"7.50", "7,50", "7.5%", "7,5%"} {
			mentions = mentions || strings.Contains(d.Text, s) || strings.Contains(d.Title, s)
		}
		if mentions && d.PublishedAt.Before(cut) {
			t.Errorf("%s (%s) mentions 7.50%% before the cut: %q", d.DocID, d.PublishedAt.Format(time.DateOnly), d.Text)
		}
		if !d.PublishedAt.Before(after) {
			late++
			if mentions {
				lateCut++
			}
		}
	}
	if late == 0 || lateCut == 0 {
		t.Errorf("%d documents after the anchor, %d of them about the 7.50%% cut; want both > 0", late, lateCut)
	}
	if got := AnchorTime(); !got.Equal(time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)) || got.Format(time.DateOnly) != Anchor {
		t.Errorf("AnchorTime() = %v, want midnight UTC of %s", got, Anchor)
	}
}

func TestMinisterChange(t *testing.T) {
	var kellerBefore, resigned, appointedEN, appointedRU, orlovStatement bool
	for _, d := range Documents() {
		if d.Topic != "minister" {
			continue
		}
		before := d.PublishedAt.Before(day("2026-02-26"))
		switch {
		case before && strings.Contains(d.Text, "Finance Minister Anna Keller"):
			kellerBefore = true
		}
		if onDay(d, "2026-02-25") && strings.Contains(d.Text, "Anna Keller resigned") {
			resigned = true
		}
		if strings.Contains(d.Text, "appointed Pavel Orlov") || strings.Contains(d.Text, "Pavel Orlov was appointed") {
			if before {
				t.Errorf("%s announces Orlov's appointment before 2026-02-26", d.DocID)
			}
			appointedEN = appointedEN || onDay(d, "2026-02-26")
		}
		if strings.Contains(d.Text, "назначил Павла Орлова") {
			if before {
				t.Errorf("%s announces Orlov's appointment before 2026-02-26", d.DocID)
			}
			appointedRU = true
		}
		if !before && strings.Contains(d.Text, "Finance Minister Pavel Orlov") {
			orlovStatement = true
		}
	}
	if !kellerBefore || !resigned || !appointedEN || !appointedRU || !orlovStatement {
		t.Errorf("Keller minister before: %v, resigned 02-25: %v, Orlov appointed 02-26 (en): %v, (ru): %v, Orlov as minister after: %v",
			kellerBefore, resigned, appointedEN, appointedRU, orlovStatement)
	}
}

// words is the set of lower-cased words (letters and digits) of s.
func words(s string) map[string]bool {
	w := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		w[f] = true
	}
	return w
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// TestReposts: near-duplicate folding has work to do — groups of same-topic documents from
// different sources, published within a day, with near-identical texts.
func TestReposts(t *testing.T) {
	docs := Documents()
	parent := make([]int, len(docs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	sets := make([]map[string]bool, len(docs))
	for i, d := range docs {
		sets[i] = words(d.Text)
	}
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			a, b := docs[i], docs[j]
			if a.Topic != b.Topic || a.Source == b.Source || b.PublishedAt.Sub(a.PublishedAt) > 24*time.Hour {
				continue
			}
			if jaccard(sets[i], sets[j]) >= 0.6 {
				parent[find(j)] = find(i)
			}
		}
	}
	size := map[int]int{}
	for i := range docs {
		size[find(i)]++
	}
	groups := 0
	for _, n := range size {
		if n >= 2 {
			groups++
		}
	}
	if groups < 10 {
		t.Errorf("%d repost groups (word-Jaccard >= 0.6, same topic, different sources, within a day), want >= 10", groups)
	}
}

func TestWriteParquetRoundTrip(t *testing.T) {
	docs := Documents()
	var buf bytes.Buffer
	if err := WriteParquet(&buf, docs); err != nil {
		t.Fatal(err)
	}
	got, err := parquet.Read[schemas.Document](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, docs) {
		t.Errorf("round trip differs: read %d rows, wrote %d", len(got), len(docs))
		for i := range min(len(got), len(docs)) {
			if !reflect.DeepEqual(got[i], docs[i]) {
				t.Fatalf("first difference at row %d:\n got %+v\nwant %+v", i, got[i], docs[i])
			}
		}
	}
}

func TestTopicsYAML(t *testing.T) {
	b := TopicsYAML()
	if !bytes.HasPrefix(b, []byte("topics:\n  - name: ")) {
		t.Errorf("TopicsYAML does not start with the topics-file layout:\n%s", b)
	}
	var f struct {
		Topics []Topic `yaml:"topics"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("TopicsYAML does not parse: %v\n%s", err, b)
	}
	want := Topics()
	labels := map[string]bool{}
	for _, d := range Documents() {
		labels[d.Topic] = true
	}
	for i := range want {
		if !labels[want[i].Story] {
			t.Errorf("topic %s: story %q labels no document", want[i].Name, want[i].Story)
		}
		want[i].Story = "" // not part of the topics file
	}
	if !reflect.DeepEqual(f.Topics, want) {
		t.Errorf("TopicsYAML parses to %+v, want %+v", f.Topics, want)
	}
	ru := false
	for _, tp := range Topics() {
		ru = ru || strings.ContainsFunc(tp.Query, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) })
	}
	if len(Topics()) != 4 || !ru {
		t.Errorf("Topics() = %+v, want 4 topics, one with a Russian query", Topics())
	}
}

func TestQueries(t *testing.T) {
	modes := map[string]int{}
	for _, q := range Queries() {
		modes[q.Mode]++
		if q.Title == "" || q.Query == "" {
			t.Errorf("query %+v: empty title or query", q)
		}
		if q.Mode != "window" {
			if q.From != "" || q.To != "" {
				t.Errorf("query %q: From/To set on a %q query", q.Title, q.Mode)
			}
			continue
		}
		from, err1 := time.Parse(time.DateOnly, q.From)
		to, err2 := time.Parse(time.DateOnly, q.To)
		if err1 != nil || err2 != nil || to.Before(from) || !to.Before(AnchorTime()) {
			t.Errorf("window query %q: From %q To %q, want two days, ordered, before the anchor", q.Title, q.From, q.To)
		}
	}
	if modes["evolution"] != 1 || modes["window"] != 1 {
		t.Errorf("query modes %v, want one evolution and one window query", modes)
	}
}

func BenchmarkDocuments(b *testing.B) {
	for b.Loop() {
		Documents()
	}
}

// TestChanges: the documents that change are an edit and a correction of existing documents
// (same doc_id, other content, a later time) and two standing circulars, the second saying it
// supersedes the first and when it applies.
func TestChanges(t *testing.T) {
	byID := map[string]schemas.Document{}
	for _, d := range Documents() {
		byID[d.DocID] = d
	}
	var versions, standing int
	for _, c := range Changes() {
		if d, ok := byID[c.DocID]; ok {
			versions++
			if d.ContentHash() == c.ContentHash() || !c.PublishedAt.After(d.PublishedAt) || c.Kind != "" {
				t.Errorf("%s: not a later version of its document", c.DocID)
			}
			continue
		}
		if c.Kind != schemas.KindStanding || c.Source != "cbn-press" {
			t.Errorf("%s: a new document that is not a standing circular", c.DocID)
		}
		standing++
	}
	if versions != 2 || standing != 2 {
		t.Errorf("%d versions and %d circulars, want 2 and 2", versions, standing)
	}
	var newer schemas.Document
	for _, c := range Changes() {
		if c.DocID == CircularNew {
			newer = c
		}
	}
	if !strings.Contains(newer.Text, "In supersession of CBN Circular No. 3/2026") || !strings.Contains(newer.Text, "with effect from 1 March 2026") {
		t.Errorf("the new circular does not say what it supersedes and when: %q", newer.Text)
	}
}
