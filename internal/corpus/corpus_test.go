package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/schemas"
)

// writeParquet encodes rows of any struct type into an in-memory Parquet file.
func writeParquet[T any](t *testing.T, rows []T) *bytes.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.MaxRowsPerRowGroup(3)) // several row groups
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(buf.Bytes())
}

type result struct {
	docs    []schemas.Document
	rejects []schemas.QuarantineRow
}

func load(t *testing.T, l *Loader, r *bytes.Reader, name string) (result, error) {
	t.Helper()
	var res result
	err := l.ReadFile(context.Background(), r, r.Size(), name,
		func(d schemas.Document) error { res.docs = append(res.docs, d); return nil },
		func(q schemas.QuarantineRow) error { res.rejects = append(res.rejects, q); return nil })
	return res, err
}

// stringDated is a canonical layout with string dates, nullable where the test needs a null.
type stringDated struct {
	DocID       string  `parquet:"doc_id"`
	PublishedAt *string `parquet:"published_at,optional"`
	Title       string  `parquet:"title"`
	Text        string  `parquet:"text"`
	Source      string  `parquet:"source"`
}

func ptr(s string) *string { return &s }

func TestBadRowsAreQuarantinedWithReasons(t *testing.T) {
	rows := []stringDated{
		{"a", ptr("2024-03-01"), "Rate", "The key rate was raised.", "ex.com"},
		{"", ptr("2024-03-01"), "", "no id", "ex.com"},
		{"c", nil, "", "no date", "ex.com"},
		{"d", ptr("31/02/2024"), "", "bad date", "ex.com"},
		{"e", ptr("2024-03-02T10:00:00+03:00"), "", "  \n\t ", "ex.com"},
		{"f", ptr("2024/03/03"), "", "bad \xff bytes", "ex.com"},
		{"a", ptr("2024-03-04"), "Rate", "The key rate was raised.", "ex.com"}, // the same text again: a duplicate
		{"g", ptr("2023-12-31"), "", "before the range", "ex.com"},
		{"h", ptr("2024-03-05 08:30:00"), "", "Ставка повышена до 16%.", "@cbr"},
	}
	l := NewLoader(Options{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	res, err := load(t, l, writeParquet(t, rows), "fixture.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range res.docs {
		ids = append(ids, d.DocID)
	}
	if strings.Join(ids, ",") != "a,h" {
		t.Fatalf("documents %v, want a,h", ids)
	}
	want := map[int64]string{1: schemas.ReasonMissingID, 2: schemas.ReasonMissingDate, 3: schemas.ReasonBadDate, 4: schemas.ReasonEmptyText, 5: schemas.ReasonBadEncoding, 6: schemas.ReasonDuplicateID}
	if len(res.rejects) != len(want) {
		t.Fatalf("rejects = %+v", res.rejects)
	}
	for _, q := range res.rejects {
		if want[q.RowNumber] != q.Reason || q.SourceFile != "fixture.parquet" {
			t.Errorf("row %d quarantined as %s (%s), want %s", q.RowNumber, q.Reason, q.Detail, want[q.RowNumber])
		}
	}
	if d := res.rejects[5].Detail; d != "first seen at fixture.parquet:0" {
		t.Errorf("duplicate detail %q", d)
	}
	st := l.Total()
	if st.Read != 9 || st.Documents != 2 || st.Skipped != 1 || !st.Reconciles() {
		t.Fatalf("stats %+v do not reconcile", st)
	}
	h := res.docs[1]
	if h.Lang != "ru" || !h.PublishedAt.Equal(time.Date(2024, 3, 5, 8, 30, 0, 0, time.UTC)) || h.Source != "@cbr" {
		t.Fatalf("doc h = %+v", h)
	}
	if res.docs[0].Lang != "en" {
		t.Fatalf("doc a lang %q", res.docs[0].Lang)
	}
}

// telegram is the Telegram seed layout: other names, integer ids, string dates, weights.
type telegram struct {
	MessageID   int64   `parquet:"message_id"`
	Message     string  `parquet:"message"`
	Date        string  `parquet:"date"`
	ChannelName string  `parquet:"channel_name"`
	ChannelW    float64 `parquet:"channel_w"`
	Topic       string  `parquet:"topic"`
}

func TestTelegramMapping(t *testing.T) {
	rows := []telegram{{101, "ЦБ сохранил ставку", "2025-09-04T12:00:00Z", "markettwits", 0.8, "rates"}}
	l := NewLoader(Options{Mapping: TelegramMapping})
	res, err := load(t, l, writeParquet(t, rows), "tg.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.docs) != 1 {
		t.Fatalf("docs = %+v, rejects = %+v", res.docs, res.rejects)
	}
	d := res.docs[0]
	if d.DocID != "101" || d.Source != "markettwits" || d.SourceWeight == nil || *d.SourceWeight != 0.8 || d.Topic != "rates" || d.Lang != "ru" {
		t.Fatalf("doc = %+v", d)
	}
	m, err := ParseMapping([]string{"text=message", " published_at = date "})
	if err != nil || m["text"] != "message" || m["published_at"] != "date" {
		t.Fatalf("ParseMapping = %v, %v", m, err)
	}
	for _, bad := range []string{"text", "=x", "body=message"} {
		if _, err := ParseMapping([]string{bad}); err == nil {
			t.Errorf("ParseMapping(%q) accepted", bad)
		}
	}
}

type timestamps struct {
	DocID string    `parquet:"doc_id"`
	Micro time.Time `parquet:"published_at,timestamp(microsecond)"`
	Text  string    `parquet:"text"`
}

// dates stores days since the Unix epoch in an INT32 DATE column, as Spark and pyarrow do.
type dates struct {
	DocID string `parquet:"doc_id"`
	Day   int32  `parquet:"published_at,date"`
	Text  string `parquet:"text"`
}

func TestTimeEncodings(t *testing.T) {
	at := time.Date(2023, 10, 27, 14, 3, 2, 123456000, time.UTC)
	res, err := load(t, NewLoader(Options{}), writeParquet(t, []timestamps{{"m", at, "x"}}), "micros.parquet")
	if err != nil || len(res.docs) != 1 || !res.docs[0].PublishedAt.Equal(at) {
		t.Fatalf("micros: %+v %v", res, err)
	}
	day := time.Date(2023, 10, 27, 0, 0, 0, 0, time.UTC)
	res, err = load(t, NewLoader(Options{}), writeParquet(t, []dates{{"d", int32(day.Unix() / 86400), "x"}}), "dates.parquet")
	if err != nil || len(res.docs) != 1 || !res.docs[0].PublishedAt.Equal(day) {
		t.Fatalf("dates: %+v %v", res, err)
	}
}

func TestFileErrors(t *testing.T) {
	type noText struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		Body        string `parquet:"body"`
	}
	_, err := load(t, NewLoader(Options{}), writeParquet(t, []noText{{"a", "2024-01-01", "b"}}), "nobody.parquet")
	if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), "nobody.parquet") || !strings.Contains(err.Error(), `"text"`) || !strings.Contains(err.Error(), "--map text=COLUMN") {
		t.Fatalf("missing text column: err = %v", err)
	}
	_, err = load(t, NewLoader(Options{Mapping: Mapping{"text": "message"}}), writeParquet(t, []noText{{"a", "2024-01-01", "b"}}), "nobody.parquet")
	if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), `"message"`) {
		t.Fatalf("mapped column missing: err = %v", err)
	}
	junk := bytes.NewReader([]byte("this is not parquet at all, just text"))
	if _, err := load(t, NewLoader(Options{}), junk, "junk.parquet"); !errors.Is(err, ErrBadFile) {
		t.Fatalf("junk: err = %v", err)
	}
	// A file that cannot be read is a bad file, and the read's own error stays in the chain.
	errDisk := errors.New("disk read failed")
	var res result
	err = NewLoader(Options{}).ReadFile(context.Background(), failingReader{errDisk}, 1<<10, "unreadable.parquet",
		func(d schemas.Document) error { res.docs = append(res.docs, d); return nil },
		func(q schemas.QuarantineRow) error { res.rejects = append(res.rejects, q); return nil })
	if !errors.Is(err, ErrBadFile) || !errors.Is(err, errDisk) {
		t.Fatalf("unreadable: err = %v, want ErrBadFile and the read error", err)
	}
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r failingReader) ReadAt([]byte, int64) (int, error) { return 0, r.err }

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2024-03-01", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{"2024/03/01", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{"2024-03-01T23:30:00+03:00", time.Date(2024, 3, 1, 20, 30, 0, 0, time.UTC), true},
		{" 2024-03-01 10:00:00 ", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC), true},
		{"01.03.2024", time.Time{}, false},
		{"2024-02-30", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestSharedCorpora reads the real datasets in ../shared/data when they are present.
func TestSharedCorpora(t *testing.T) {
	for _, tc := range []struct {
		path, lang string
		rows       int64
	}{
		{"../../../shared/data/realtimeqa/docs.parquet", "en", 26776},
		{"../../../shared/data/tg-finance-ru/docs.parquet", "ru", 5574},
	} {
		t.Run(tc.path, func(t *testing.T) {
			f, err := os.Open(tc.path)
			if err != nil {
				t.Skipf("shared data absent: %v", err)
			}
			defer f.Close()
			st, _ := f.Stat()
			l := NewLoader(Options{})
			langs := map[string]int{}
			var last time.Time
			err = l.ReadFile(context.Background(), f, st.Size(), tc.path,
				func(d schemas.Document) error {
					langs[d.Lang]++
					if d.PublishedAt.After(last) {
						last = d.PublishedAt
					}
					return nil
				},
				func(q schemas.QuarantineRow) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			tot := l.Total()
			if tot.Read != tc.rows || !tot.Reconciles() {
				t.Fatalf("read %d rows (want %d); stats %+v", tot.Read, tc.rows, tot)
			}
			if langs[tc.lang]*10 < int(tot.Documents)*9 {
				t.Fatalf("languages %v: want >90%% %s", langs, tc.lang)
			}
			t.Logf("%d read, %d documents, quarantined %v, languages %v, newest %s", tot.Read, tot.Documents, tot.Quarantined, langs, last.Format("2006-01-02"))
		})
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-03-01", "2024/03/01", "2024-03-01T23:30:00+03:00", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDate(s)
		if err == nil && got.Location() != time.UTC {
			t.Fatalf("ParseDate(%q) not UTC", s)
		}
	})
}

// BenchmarkLoadRealtimeQA measures loading and validating the realtimeqa corpus (documents/s).
func BenchmarkLoadRealtimeQA(b *testing.B) {
	data, err := os.ReadFile("../../../shared/data/realtimeqa/docs.parquet")
	if err != nil {
		b.Skipf("shared data absent: %v", err)
	}
	var docs int64
	for b.Loop() {
		l := NewLoader(Options{})
		r := bytes.NewReader(data)
		if err := l.ReadFile(context.Background(), r, r.Size(), "docs.parquet", func(schemas.Document) error { return nil }, func(schemas.QuarantineRow) error { return nil }); err != nil {
			b.Fatal(err)
		}
		docs += l.Total().Documents
	}
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
}

// TestExistingIDsAreDuplicates: appending to an index, rows whose doc_id is already indexed are
// quarantined as duplicates that say where the first copy is, and the counts still reconcile.
func TestExistingIDsAreDuplicates(t *testing.T) {
	rows := []stringDated{
		{DocID: "a", PublishedAt: ptr("2024-01-02"), Text: "already there"},
		{DocID: "b", PublishedAt: ptr("2024-01-03"), Text: "new"},
	}
	l := NewLoader(Options{Existing: map[string]string{"a": "index news, shard 2024-01"}})
	res, err := load(t, l, writeParquet(t, rows), "more.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.docs) != 1 || res.docs[0].DocID != "b" {
		t.Fatalf("docs %+v", res.docs)
	}
	if len(res.rejects) != 1 || res.rejects[0].Reason != schemas.ReasonDuplicateID || !strings.Contains(res.rejects[0].Detail, "shard 2024-01") {
		t.Fatalf("rejects %+v", res.rejects)
	}
	if _, st := l.Stats(); !st[0].Reconciles() || st[0].Quarantined[schemas.ReasonDuplicateID] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSourceWeights: a weight must be a finite number (negative is allowed: the weight is a
// prior, scaled by its spread); NaN, ±Inf and text are quarantined as bad_weight, an empty
// string is no weight, and read = documents + quarantined still holds.
func TestSourceWeights(t *testing.T) {
	type textWeight struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		Text        string `parquet:"text"`
		Weight      string `parquet:"source_weight"`
	}
	type floatWeight struct {
		DocID       string  `parquet:"doc_id"`
		PublishedAt string  `parquet:"published_at"`
		Text        string  `parquet:"text"`
		Weight      float64 `parquet:"source_weight"`
	}
	tests := []struct {
		name   string
		file   *bytes.Reader
		want   *float64 // nil: no weight
		reason string   // "": indexed
	}{
		{"text 1.5", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "1.5"}}), fptr(1.5), ""},
		{"text negative", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", " -0.5 "}}), fptr(-0.5), ""},
		{"text empty", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "  "}}), nil, ""},
		{"text NaN", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "NaN"}}), nil, schemas.ReasonBadWeight},
		{"text +Inf", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "+Inf"}}), nil, schemas.ReasonBadWeight},
		{"text -Inf", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "-Inf"}}), nil, schemas.ReasonBadWeight},
		{"text not a number", writeParquet(t, []textWeight{{"a", "2024-03-01", "x", "high"}}), nil, schemas.ReasonBadWeight},
		{"double 2", writeParquet(t, []floatWeight{{"a", "2024-03-01", "x", 2}}), fptr(2), ""},
		{"double negative", writeParquet(t, []floatWeight{{"a", "2024-03-01", "x", -3}}), fptr(-3), ""},
		{"double NaN", writeParquet(t, []floatWeight{{"a", "2024-03-01", "x", math.NaN()}}), nil, schemas.ReasonBadWeight},
		{"double +Inf", writeParquet(t, []floatWeight{{"a", "2024-03-01", "x", math.Inf(1)}}), nil, schemas.ReasonBadWeight},
		{"double -Inf", writeParquet(t, []floatWeight{{"a", "2024-03-01", "x", math.Inf(-1)}}), nil, schemas.ReasonBadWeight},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{})
			res, err := load(t, l, tc.file, "weights.parquet")
			if err != nil {
				t.Fatal(err)
			}
			if st := l.Total(); st.Read != 1 || !st.Reconciles() || st.Quarantined[schemas.ReasonBadWeight] != int64(len(res.rejects)) {
				t.Fatalf("stats %+v", st)
			}
			if tc.reason != "" {
				if len(res.rejects) != 1 || res.rejects[0].Reason != tc.reason || res.rejects[0].DocID != "a" || !strings.Contains(res.rejects[0].Detail, "source_weight") {
					t.Fatalf("rejects %+v, docs %+v: want one %s", res.rejects, res.docs, tc.reason)
				}
				return
			}
			if len(res.docs) != 1 || len(res.rejects) != 0 {
				t.Fatalf("docs %+v, rejects %+v: want the document", res.docs, res.rejects)
			}
			got := res.docs[0].SourceWeight
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("weight %v, want %v", got, tc.want)
			}
		})
	}
}

func fptr(f float64) *float64 { return &f }

func TestCheckFile(t *testing.T) {
	type noText struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		Body        string `parquet:"body"`
	}
	good := writeParquet(t, []struct {
		DocID       string    `parquet:"doc_id"`
		PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
		Text        string    `parquet:"text"`
	}{{"a", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "x"}})
	tests := []struct {
		name    string
		mapping Mapping
		r       *bytes.Reader
		want    error
	}{
		{"canonical columns", nil, good, nil},
		{"no text column", nil, writeParquet(t, []noText{{"a", "2024-01-01", "b"}}), ErrMissingColumn},
		{"mapped text column", Mapping{"text": "body"}, writeParquet(t, []noText{{"a", "2024-01-01", "b"}}), nil},
		{"mapped column missing", Mapping{"text": "message"}, writeParquet(t, []noText{{"a", "2024-01-01", "b"}}), ErrMissingColumn},
		{"not Parquet", nil, bytes.NewReader([]byte("doc_id,published_at,text\na,2024-01-01,x\n")), ErrBadFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewLoader(Options{Mapping: tt.mapping}).CheckFile(tt.r, tt.r.Size(), "f.parquet")
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("CheckFile = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestSampleReadsRowsAsReadFile: the documents Sample returns for the rows it keeps are those
// ReadFile emits for the same rows, with the same cleaning and language (a lang column's code,
// else detected); rows ReadFile quarantines or skips are left out, and a mapped column is
// honoured.
func TestSampleReadsRowsAsReadFile(t *testing.T) {
	type mapped struct {
		ID       string  `parquet:"id"`
		Date     *string `parquet:"published_at,optional"`
		Headline string  `parquet:"title"`
		Body     string  `parquet:"body"`
		Lang     string  `parquet:"lang"`
	}
	rows := []mapped{
		{"a", ptr("2024-03-01"), "Rate", "The key rate was raised.", ""},
		{"b", ptr("2024-03-02"), "", "Ставка повышена до 16%.", ""},
		{"c", nil, "", "no date", ""},
		{"d", ptr("2024-03-03"), "", "Der Leitzins steigt.", "de-DE"},
		{"e", ptr("2023-12-31"), "", "before the range", ""},
		{"f", ptr("2024-03-04"), "", "央行上调利率。", ""},
		{"a", ptr("2024-03-05"), "Rate", "The key rate was raised.", ""}, // the same text again: a duplicate
		{"g", ptr("2024-03-06"), "", "Inflation slowed in February.", "EN"},
	}
	opts := Options{Mapping: Mapping{"doc_id": "id", "text": "body"}, From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	full, err := load(t, NewLoader(opts), writeParquet(t, rows), "m.parquet")
	if err != nil {
		t.Fatal(err)
	}
	r := writeParquet(t, rows)
	all, err := NewLoader(opts).Sample(context.Background(), r, r.Size(), "m.parquet", func(int64) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(full.docs) {
		t.Fatalf("Sample of every row: %d documents, ReadFile %d", len(all), len(full.docs))
	}
	for i := range all {
		if all[i].DocID != full.docs[i].DocID || all[i].Lang != full.docs[i].Lang || all[i].Text != full.docs[i].Text {
			t.Fatalf("document %d: Sample %+v, ReadFile %+v", i, all[i], full.docs[i])
		}
	}
	var got []string
	for _, d := range all {
		got = append(got, d.DocID+":"+d.Lang)
	}
	if want := "a:en,b:ru,d:de-de,f:zh,g:en"; strings.Join(got, ",") != want {
		t.Fatalf("Sample = %s, want %s", strings.Join(got, ","), want)
	}
	// The rows in range by their date alone: not row 2 (no date) nor row 4 (2023), but the
	// duplicate, row 6, which only ReadFile and Sample tell apart.
	if in, err := NewLoader(opts).RowsInRange(context.Background(), r, r.Size(), "m.parquet"); err != nil || fmt.Sprint(in) != "[0 1 3 5 6 7]" {
		t.Fatalf("RowsInRange = %v, %v; want [0 1 3 5 6 7]", in, err)
	}
	odd, err := NewLoader(opts).Sample(context.Background(), r, r.Size(), "m.parquet", func(n int64) bool { return n%2 == 1 })
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, d := range odd {
		got = append(got, d.DocID)
	}
	if want := "b,d,f,g"; strings.Join(got, ",") != want { // rows 1, 3, 5, 7
		t.Fatalf("Sample of odd rows = %s, want %s", strings.Join(got, ","), want)
	}
}

// TestVersions: a row whose doc_id was read before is another version when its content and its
// time differ from every row of it read; the same content is a duplicate, another content at
// the same time a duplicate too (which is later cannot be told). Against what the index holds
// (Known): the same content as its latest version is a duplicate, other content published no
// later than it a stale version, later the next version. The counts reconcile.
func TestVersions(t *testing.T) {
	rows := []stringDated{
		{"a", ptr("2024-03-01"), "", "first text", "s"},
		{"a", ptr("2024-03-05"), "", "edited text", "s"},   // a version
		{"a", ptr("2024-03-07"), "", "first text", "s"},    // the first text again: a duplicate
		{"a", ptr("2024-03-05"), "", "another edit", "s"},  // the time of a version: a duplicate
		{"k", ptr("2024-03-02"), "", "known text", "s"},    // what the index holds: a duplicate
		{"k", ptr("2024-02-01"), "", "older other", "s"},   // before the indexed version: stale
		{"k", ptr("2024-04-01"), "", "known, edited", "s"}, // the index's next version
		{"e", ptr("2024-04-01"), "", "anything", "s"},      // only Existing (no hash): a duplicate
	}
	known := schemas.Document{Text: "known text", Source: "s"}.ContentHash()
	l := NewLoader(Options{Known: map[string]Known{"k": {Where: "index x", Version: 2, Published: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Hash: known}},
		Existing: map[string]string{"e": "index x"}})
	res, err := load(t, l, writeParquet(t, rows), "v.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.docs {
		got = append(got, d.DocID+" "+d.PublishedAt.Format(time.DateOnly))
	}
	if want := "a 2024-03-01,a 2024-03-05,k 2024-04-01"; strings.Join(got, ",") != want {
		t.Errorf("documents %s, want %s", strings.Join(got, ","), want)
	}
	reasons := map[int64]string{}
	for _, q := range res.rejects {
		reasons[q.RowNumber] = q.Reason
	}
	want := map[int64]string{2: schemas.ReasonDuplicateID, 3: schemas.ReasonDuplicateID, 4: schemas.ReasonDuplicateID, 5: schemas.ReasonStaleVersion, 7: schemas.ReasonDuplicateID}
	if fmt.Sprint(reasons) != fmt.Sprint(want) {
		t.Errorf("quarantined %v, want %v (%+v)", reasons, want, res.rejects)
	}
	if st := l.Total(); !st.Reconciles() || st.Read != 8 || st.Documents != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestUpdatedAt: a row edited after its publication (updated_at) is indexed as of the edit,
// so that the edited text never reaches an answer before it was written; a bad updated_at is
// quarantined as bad_date, an empty one is none.
func TestUpdatedAt(t *testing.T) {
	type edited struct {
		DocID       string `parquet:"doc_id"`
		PublishedAt string `parquet:"published_at"`
		UpdatedAt   string `parquet:"updated_at"`
		Text        string `parquet:"text"`
	}
	rows := []edited{
		{"a", "2024-03-01", "2024-03-04T09:00:00Z", "edited text"},
		{"b", "2024-03-01", "", "never edited"},
		{"c", "2024-03-01", "2024-02-01", "updated before published: published stands"},
		{"d", "2024-03-01", "soon", "bad"},
	}
	l := NewLoader(Options{})
	res, err := load(t, l, writeParquet(t, rows), "u.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.docs {
		got = append(got, d.DocID+" "+d.PublishedAt.Format(time.RFC3339))
	}
	if want := "a 2024-03-04T09:00:00Z,b 2024-03-01T00:00:00Z,c 2024-03-01T00:00:00Z"; strings.Join(got, ",") != want {
		t.Errorf("documents %s, want %s", strings.Join(got, ","), want)
	}
	if len(res.rejects) != 1 || res.rejects[0].Reason != schemas.ReasonBadDate || !strings.Contains(res.rejects[0].Detail, `updated_at "soon"`) {
		t.Errorf("rejects %+v", res.rejects)
	}
}
