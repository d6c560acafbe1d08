package corpus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"

	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/asofrag/asof/schemas"
)

// TestYearsOutsideRangeAreBadDates: a DATE or TIMESTAMP published_at whose year is outside
// 1..9999 (which no document JSON or shard id can encode) is quarantined as bad_date, with or
// without the future check (--allow-future), and the counts reconcile.
func TestYearsOutsideRangeAreBadDates(t *testing.T) {
	day := func(y int) int32 { return int32(time.Date(y, 3, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400) }
	dateRows := []dates{{"ok", day(2024), "A row of 2024."}, {"bc", day(-768), "A row of 768 BC."}, {"far", day(10183), "A row of 10183."}, {"zero", day(0), "A row of year 0."}}
	stampRows := []timestamps{{"ok", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), "A row of 2024."}, {"far", time.Date(10183, 3, 1, 0, 0, 0, 0, time.UTC), "A row of 10183."}}
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		opts    Options
		rows    int
		wantBad []string
	}{
		{name: "DATE, --allow-future", opts: Options{}, rows: 4, wantBad: []string{"bc", "far", "zero"}},
		{name: "DATE, future check", opts: Options{Now: now}, rows: 4, wantBad: []string{"bc", "far", "zero"}},
		{name: "TIMESTAMP, --allow-future", opts: Options{}, rows: 2, wantBad: []string{"far"}},
		{name: "TIMESTAMP, future check", opts: Options{Now: now}, rows: 2, wantBad: []string{"far"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoader(tt.opts)
			r := writeParquet(t, dateRows)
			if strings.HasPrefix(tt.name, "TIMESTAMP") {
				r = writeParquet(t, stampRows)
			}
			res, err := load(t, l, r, "years.parquet")
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, q := range res.rejects {
				if q.Reason != schemas.ReasonBadDate || !strings.Contains(q.Detail, "outside 1..9999") {
					t.Errorf("row %d (%s) quarantined as %s (%s), want bad_date", q.RowNumber, q.DocID, q.Reason, q.Detail)
				}
				bad = append(bad, q.DocID)
			}
			if strings.Join(bad, ",") != strings.Join(tt.wantBad, ",") {
				t.Errorf("quarantined %v, want %v", bad, tt.wantBad)
			}
			if len(res.docs) != 1 || res.docs[0].DocID != "ok" {
				t.Errorf("documents %+v, want only ok", res.docs)
			}
			tot := l.Total()
			if tot.Read != int64(tt.rows) || tot.Quarantined[schemas.ReasonBadDate] != int64(len(tt.wantBad)) || !tot.Reconciles() {
				t.Errorf("counts %+v", tot)
			}
		})
	}
}

// TestDocIDEncodingBeforeEmptiness: a doc_id that is not valid UTF-8 is a bad_encoding row
// that says so (with the bytes escaped), not a missing_id; an empty one stays missing_id.
func TestDocIDEncodingBeforeEmptiness(t *testing.T) {
	rows := []stringDated{
		{"\xff\xfe", ptr("2024-03-01"), "", "An id of invalid bytes.", "ex.com"},
		{"  ", ptr("2024-03-01"), "", "A blank id.", "ex.com"},
		{"ok", ptr("2024-03-01"), "", "A good row.", "ex.com"},
	}
	l := NewLoader(Options{})
	res, err := load(t, l, writeParquet(t, rows), "ids.parquet")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason, detail string
	}{
		{name: "invalid UTF-8", reason: schemas.ReasonBadEncoding, detail: `doc_id "\xff\xfe"`},
		{name: "blank", reason: schemas.ReasonMissingID, detail: "doc_id is empty"},
	}
	if len(res.rejects) != len(tests) || len(res.docs) != 1 {
		t.Fatalf("rejects %+v, docs %d", res.rejects, len(res.docs))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := res.rejects[i]
			if q.Reason != tt.reason || !strings.Contains(q.Detail, tt.detail) {
				t.Errorf("quarantined as %s (%s), want %s (%s)", q.Reason, q.Detail, tt.reason, tt.detail)
			}
		})
	}
	if tot := l.Total(); !tot.Reconciles() || tot.Read != 3 {
		t.Errorf("counts %+v", tot)
	}
}

// TestZeroRowFiles: a valid Parquet file with no rows, or with row groups of no rows between
// others, reads as the rows it has (0 for an empty file), not as an unreadable file.
func TestZeroRowFiles(t *testing.T) {
	row := stringDated{"a", ptr("2024-03-01"), "", "A row.", "ex.com"}
	tests := []struct {
		name   string
		groups [][]stringDated // each flushed as one row group
		want   int64
	}{
		{name: "no rows, no row group", groups: nil, want: 0},
		{name: "one empty row group", groups: [][]stringDated{{}}, want: 0},
		{name: "empty row groups around rows", groups: [][]stringDated{{}, {row}, {}, {}}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[stringDated](&buf)
			for _, g := range tt.groups {
				if _, err := w.Write(g); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r := bytes.NewReader(buf.Bytes())
			l := NewLoader(Options{})
			if err := l.CheckFile(r, r.Size(), "empty.parquet"); err != nil {
				t.Fatalf("CheckFile: %v", err)
			}
			res, err := load(t, l, r, "empty.parquet")
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			files, stats := l.Stats()
			if int64(len(res.docs)) != tt.want || len(files) != 1 || stats[0].Read != tt.want || !stats[0].Reconciles() {
				t.Fatalf("docs %d, files %v, stats %+v; want %d rows", len(res.docs), files, stats, tt.want)
			}
		})
	}
}

// rewriteFooter returns the Parquet file data with its footer metadata changed by edit: the
// pages stay as written, so a test can make a file whose footer is valid but says something
// its pages do not (as other writers, or damage, do).
func rewriteFooter(t *testing.T, data []byte, edit func(*format.FileMetaData)) *bytes.Reader {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	md := *f.Metadata()
	edit(&md)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	out := append([]byte{}, data[:len(data)-8-n]...)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, "PAR1"...)
	return bytes.NewReader(out)
}

// encode writes groups of rows, one row group each, and returns the file's bytes.
func encode[T any](t *testing.T, groups ...[]T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	for _, g := range groups {
		if _, err := w.Write(g); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestZeroRowGroupsOfOtherWriters: a row group of zero rows whose column chunks have a
// dictionary page but no data page (data_page_offset 0 before the dictionary's, as writers of
// empty tables leave it) is read as 0 rows, alone (an empty file) or among others.
func TestZeroRowGroupsOfOtherWriters(t *testing.T) {
	row := func(id string) stringDated {
		return stringDated{id, ptr("2024-03-01"), "", "A row " + id + ".", "ex.com"}
	}
	emptied := func(groups ...int) func(*format.FileMetaData) {
		return func(md *format.FileMetaData) {
			for _, g := range groups {
				rg := &md.RowGroups[g]
				md.NumRows -= rg.NumRows
				rg.NumRows = 0
				for c := range rg.Columns {
					cm := &rg.Columns[c].MetaData
					cm.NumValues = 0
					cm.DictionaryPageOffset, cm.DataPageOffset = cm.DataPageOffset, 0
				}
			}
		}
	}
	tests := []struct {
		name string
		data []byte
		edit func(*format.FileMetaData)
		want []string
	}{
		{name: "a file of one empty row group", data: encode(t, []stringDated{row("a")}), edit: emptied(0), want: nil},
		{name: "an empty row group among others", data: encode(t, []stringDated{row("a")}, []stringDated{row("b")}, []stringDated{row("c")}), edit: emptied(1), want: []string{"a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rewriteFooter(t, tt.data, tt.edit)
			l := NewLoader(Options{})
			res, err := load(t, l, r, "empty.parquet")
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			var ids []string
			for _, d := range res.docs {
				ids = append(ids, d.DocID)
			}
			tot := l.Total()
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") || tot.Read != int64(len(tt.want)) || !tot.Reconciles() {
				t.Fatalf("documents %v, counts %+v; want %v", ids, tot, tt.want)
			}
		})
	}
}

// dictSourced has a dictionary-encoded source column, as most writers encode strings.
type dictSourced struct {
	DocID       string `parquet:"doc_id"`
	PublishedAt string `parquet:"published_at"`
	Text        string `parquet:"text"`
	Source      string `parquet:"source,dict"`
}

// corruptDictIndexes returns data with the dictionary indexes of column col's first data page
// in row group rg widened to 8 bits (indexes past the dictionary's end) and the page's CRC
// made to match, as a writer that checksums what it wrote wrong, or none, would leave it: the
// footer and page headers read, the page bytes do not.
func corruptDictIndexes(t *testing.T, data []byte, rg, col int) *bytes.Reader {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	off := int(f.Metadata().RowGroups[rg].Columns[col].MetaData.DataPageOffset)
	pr := new(thrift.CompactProtocol).NewReaderFromBytes(data[off:])
	var h format.PageHeader
	if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
		t.Fatal(err)
	}
	hlen := pr.BytesRead()
	if v2 := h.DataPageHeaderV2; !v2.Valid || v2.V.Encoding != format.RLEDictionary || v2.V.DefinitionLevelsByteLength != 0 || v2.V.IsCompressed.V {
		t.Fatalf("page header %+v: want a v2 dictionary page of a required column", h)
	}
	out := append([]byte{}, data...)
	body := out[off+hlen : off+hlen+int(h.CompressedPageSize)]
	body[0] = 8 // the bit width of the indexes
	h.CRC = int32(crc32.ChecksumIEEE(body))
	nh, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil || len(nh) != hlen {
		t.Fatalf("re-encoded header: %d bytes, want %d (%v)", len(nh), hlen, err)
	}
	copy(out[off:], nh)
	return bytes.NewReader(out)
}

// TestCorruptPagesAreAnErrorNamingTheRowGroup: a file whose footer is valid but whose page
// bytes make the Parquet reader panic (an index past the dictionary) is a *RowGroupError that
// matches ErrBadFile and names the file and the row group, not a panic; CheckFile, which reads
// only the footer, still accepts it.
func TestCorruptPagesAreAnErrorNamingTheRowGroup(t *testing.T) {
	var rows []dictSourced
	for i := 0; i < 400; i++ {
		rows = append(rows, dictSourced{fmt.Sprint("id", i), "2024-03-01", fmt.Sprint("Text number ", i, "."), fmt.Sprint("src", i%31)})
	}
	tests := []struct {
		name      string
		data      []byte
		group     int
		wantGroup string
	}{
		{name: "one row group", data: encode(t, rows), group: 0, wantGroup: "row group 0 of 1 (rows 0..399)"},
		{name: "the second of three", data: encode(t, rows[:100], rows[100:300], rows[300:]), group: 1, wantGroup: "row group 1 of 3 (rows 100..299)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := corruptDictIndexes(t, tt.data, tt.group, 3)
			l := NewLoader(Options{})
			if err := l.CheckFile(r, r.Size(), "corrupt.parquet"); err != nil {
				t.Fatalf("CheckFile: %v", err)
			}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("ReadFile panicked: %v", p)
					}
				}()
				_, err = load(t, l, r, "corrupt.parquet")
			}()
			var rge *RowGroupError
			if !errors.As(err, &rge) || !errors.Is(err, ErrBadFile) || rge.RowGroup != tt.group || rge.File != "corrupt.parquet" ||
				!strings.Contains(err.Error(), "corrupt.parquet: "+tt.wantGroup) || !strings.Contains(err.Error(), "index out of range") {
				t.Fatalf("err = %v, want a RowGroupError naming corrupt.parquet and %s", err, tt.wantGroup)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite testdata/corrupt_pages.parquet")

// corruptPagesGolden is a file whose footer reads and whose pages make the Parquet reader
// panic, for the tests of packages that read corpus files through this one.
const corruptPagesGolden = "testdata/corrupt_pages.parquet"

// TestCorruptPagesGolden checks that the golden file is what corruptDictIndexes makes (go test
// -run TestCorruptPagesGolden -update rewrites it) and that it is read as a RowGroupError.
func TestCorruptPagesGolden(t *testing.T) {
	var rows []dictSourced
	for i := 0; i < 62; i++ {
		rows = append(rows, dictSourced{fmt.Sprint("id", i), "2024-03-01", fmt.Sprint("Text number ", i, "."), fmt.Sprint("src", i%31)})
	}
	r := corruptDictIndexes(t, encode(t, rows), 0, 3)
	want := make([]byte, r.Size())
	if _, err := r.ReadAt(want, 0); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(corruptPagesGolden, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(corruptPagesGolden)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the test makes (%v): rerun with -update", corruptPagesGolden, err)
	}
	var rge *RowGroupError
	if _, err := load(t, NewLoader(Options{}), bytes.NewReader(got), "golden.parquet"); !errors.As(err, &rge) {
		t.Fatalf("err = %v, want a RowGroupError", err)
	}
}

// TestNumericTextColumnsAreRefused: a number column mapped as text (or title) is refused by
// CheckFile and ReadFile, naming the file, the column and its type, before any row is read;
// a numeric doc_id (Telegram's message_id) stays fine.
func TestNumericTextColumnsAreRefused(t *testing.T) {
	type numbers struct {
		DocID   int64   `parquet:"message_id"`
		Date    string  `parquet:"date"`
		Message string  `parquet:"message"`
		Views   int64   `parquet:"views"`
		Score   float64 `parquet:"score"`
	}
	data := writeParquet(t, []numbers{{101, "2024-03-01", "A message.", 4500, 0.5}})
	tests := []struct {
		name    string
		mapping Mapping
		wantErr string // "" = no error
	}{
		{name: "string text, numeric doc_id", mapping: Mapping{"doc_id": "message_id", "published_at": "date", "text": "message"}},
		{name: "INT64 text", mapping: Mapping{"doc_id": "message_id", "published_at": "date", "text": "views"}, wantErr: `nums.parquet: column of the wrong type: column "views" for text is INT64`},
		{name: "DOUBLE title", mapping: Mapping{"doc_id": "message_id", "published_at": "date", "text": "message", "title": "score"}, wantErr: `column "score" for title is DOUBLE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLoader(Options{Mapping: tt.mapping})
			checkErr := l.CheckFile(data, data.Size(), "nums.parquet")
			res, readErr := load(t, l, data, "nums.parquet")
			for _, err := range []error{checkErr, readErr} {
				switch {
				case tt.wantErr == "" && err != nil:
					t.Fatalf("err = %v", err)
				case tt.wantErr != "" && (!errors.Is(err, ErrColumnType) || !strings.Contains(fmt.Sprint(err), tt.wantErr)):
					t.Fatalf("err = %v, want ErrColumnType saying %q", err, tt.wantErr)
				}
			}
			if tt.wantErr != "" && (len(res.docs) != 0 || len(res.rejects) != 0) {
				t.Fatalf("rows read from a refused file: %+v", res)
			}
			if tt.wantErr == "" && (len(res.docs) != 1 || res.docs[0].DocID != "101") {
				t.Fatalf("docs %+v", res.docs)
			}
		})
	}
}
