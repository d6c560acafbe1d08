// Package corpus reads dated documents from Parquet files into the canonical document row,
// validating every row: each row read is either returned as a document, counted as skipped
// (outside the requested date range), or quarantined with a reason. Nothing is dropped
// silently, and files are streamed one row group at a time, never read whole.
//
// Every string column is made safe to print as it is read: doc_id, source, url, topic and lang
// through textnorm.Field, title and text through textnorm.Clean; neither lets a control
// character (ESC, BEL, the C1 range) through to a terminal or a Markdown file.
//
// A document's text is cleaned as it is read: textnorm.Clean (NFC, whitespace), then
// textnorm.Tidy, which removes channel and site boilerplate (subscription footers, signatures,
// "read more" and link-only lines, hashtag tails, emoji-only lines) by hand rules and by the
// footers learned from the same file: each file is read twice, once to learn what ends many
// posts of each source (textnorm.Footers), once to emit its documents. A row whose text is
// nothing but boilerplate is quarantined (schemas.ReasonBoilerplate), never dropped.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/lifecycle"
	"github.com/asofrag/asof/internal/textnorm"
	"github.com/asofrag/asof/schemas"
)

// ErrMissingColumn is returned (wrapped, naming the file and column) when a required column
// is absent: nothing in such a file can be indexed, so it is an error, not a quarantine.
var ErrMissingColumn = errors.New("required column missing")

// ErrBadFile is returned (wrapped) when a file is not readable Parquet.
var ErrBadFile = errors.New("unreadable Parquet file")

// ErrColumnType is returned (wrapped, naming the file, the column and its type) when a column
// cannot hold what it is mapped to: a list, a published_at that is no time, a text or title
// that is a number. Every row of such a file would be wrong, so it is an error, not a
// quarantine.
var ErrColumnType = errors.New("column of the wrong type")

// textColumns are the canonical columns that hold prose: a number there (an id column mapped
// as text by mistake) would be indexed as digits.
var textColumns = map[string]bool{"text": true, "title": true}

// Canonical column names: the parquet names of schemas.Document's fields, split into those
// every input must have and the optional rest (TestCanonicalColumnsAreDocumentFields).
var (
	requiredColumns = []string{"doc_id", "published_at", "text"}
	optionalColumns = []string{"title", "source", "url", "source_weight", "topic", "lang", "kind", "effective_at", "supersedes", "updated_at"}
	// plannedFields are schemas.Document fields the build sets, never read from an input: a
	// document's version comes from what the index holds.
	plannedFields = []string{"version"}
)

// Mapping maps a canonical column name to the input's column name.
type Mapping map[string]string

// ParseMapping reads "canonical=input" pairs, e.g. text=message, published_at=date.
func ParseMapping(pairs []string) (Mapping, error) {
	m := Mapping{}
	known := map[string]bool{}
	for _, c := range append(append([]string{}, requiredColumns...), optionalColumns...) {
		known[c] = true
	}
	for _, p := range pairs {
		canon, input, ok := strings.Cut(p, "=")
		canon, input = strings.TrimSpace(canon), strings.TrimSpace(input)
		if !ok || canon == "" || input == "" {
			return nil, fmt.Errorf("mapping %q: use canonical=input, e.g. text=message", p)
		}
		if !known[canon] {
			return nil, fmt.Errorf("mapping %q: %q is not a document column (%s)", p, canon, strings.Join(append(append([]string{}, requiredColumns...), optionalColumns...), ", "))
		}
		m[canon] = input
	}
	return m, nil
}

// TelegramMapping is the column layout of the Telegram seed data.
var TelegramMapping = Mapping{"doc_id": "message_id", "text": "message", "published_at": "date", "source": "channel_name", "source_weight": "channel_w", "topic": "topic"}

// Options configure a Loader.
type Options struct {
	Mapping Mapping
	// From and To keep rows published in [From, To] (days, inclusive; zero = unbounded).
	// Rows outside are counted as skipped.
	From, To time.Time
	// BatchRows is how many rows are decoded at a time (default 512).
	BatchRows int
	// Now is when the build started: a row published after the day after Now's day (UTC;
	// one day of grace for time zones) is quarantined as future_date. Zero: no check.
	Now time.Time
	// Existing maps doc_ids already indexed to where they are (e.g. "index news, shard 2024-01");
	// rows with those ids are duplicates (appending to an index).
	Existing map[string]string
	// Known, when set, is what the index holds of each document (appending to an index with
	// versions): a row whose doc_id it holds is a duplicate when its content is the latest
	// version's, a stale version when it is published no later than that, and else the
	// document's next version. It replaces Existing.
	Known map[string]Known
	// Deleted, when set, holds the doc_ids taken down from the index (schemas.Takedown): their
	// rows are counted as deleted and not indexed, in a rebuild as in an append.
	Deleted map[string]bool
	// Footers tune what is learned from each file about its sources' boilerplate (zero:
	// textnorm.DefaultFooterOptions).
	Footers textnorm.FooterOptions
	// Removed, when set, is told what boilerplate was removed from each row that had some
	// (quarantined rows included), for reports and measurements.
	Removed func(docID string, removed []textnorm.Removal)
}

// Known is what an index holds of one document: where, and its latest version.
type Known struct {
	Where     string
	Version   int32
	Published time.Time
	// Hash is the latest version's content hash (schemas.Document.ContentHash); empty when it
	// cannot be told, and a row with that doc_id is then a duplicate, as before versions.
	Hash string
}

// seenRow is one row a build read of a document: when, and its content.
type seenRow struct {
	where string
	at    time.Time
	hash  string
}

// Stats count what happened to the rows read: Read = Documents + Skipped + Σ Quarantined.
type Stats struct {
	Read        int64            `json:"read"`
	Documents   int64            `json:"documents"`
	Skipped     int64            `json:"skipped"`
	Quarantined map[string]int64 `json:"quarantined"`
	// Deleted counts the rows of documents taken down (Options.Deleted).
	Deleted int64 `json:"deleted,omitempty"`
	// Tidied counts the rows read whose text lost boilerplate (textnorm.Tidy), TidiedRunes the
	// runes removed, TextRunes the runes of all texts before: they measure the cleaning, not
	// the reconciliation.
	Tidied      int64 `json:"tidied,omitempty"`
	TidiedRunes int64 `json:"tidied_runes,omitempty"`
	TextRunes   int64 `json:"text_runes,omitempty"`
}

// Reconciles reports whether every row read is accounted for.
func (s Stats) Reconciles() bool {
	n := s.Documents + s.Skipped + s.Deleted
	for _, v := range s.Quarantined {
		n += v
	}
	return n == s.Read
}

// Loader reads files one after another, remembering doc_ids across them to catch duplicates.
type Loader struct {
	opts  Options
	seen  map[string]string    // doc_id → "file:row" of its first occurrence
	rows  map[string][]seenRow // doc_id → every row emitted (the versions this build read)
	stats map[string]*Stats    // per file
	order []string
}

// NewLoader returns a loader with opts.
func NewLoader(opts Options) *Loader {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 512
	}
	seen := make(map[string]string, len(opts.Existing)+len(opts.Known))
	for id, where := range opts.Existing {
		seen[id] = where
	}
	for id, k := range opts.Known {
		seen[id] = k.Where
	}
	return &Loader{opts: opts, seen: seen, rows: map[string][]seenRow{}, stats: map[string]*Stats{}}
}

// Stats returns the counts per file, in the order files were read.
func (l *Loader) Stats() (files []string, perFile []Stats) {
	for _, f := range l.order {
		files = append(files, f)
		perFile = append(perFile, *l.stats[f])
	}
	return files, perFile
}

// Total sums the counts of every file read.
func (l *Loader) Total() Stats {
	t := Stats{Quarantined: map[string]int64{}}
	for _, f := range l.order {
		s := l.stats[f]
		t.Read += s.Read
		t.Documents += s.Documents
		t.Skipped += s.Skipped
		t.Deleted += s.Deleted
		t.Tidied += s.Tidied
		t.TidiedRunes += s.TidiedRunes
		t.TextRunes += s.TextRunes
		for k, v := range s.Quarantined {
			t.Quarantined[k] += v
		}
	}
	return t
}

// column is one input column the loader reads, and how to decode it.
type column struct {
	canon string
	index int
	kind  parquet.Kind
	unit  time.Duration // for INT64 timestamps
	date  bool          // INT32 days since the epoch
}

// CheckFile reads only the footer of one Parquet file and checks, as ReadFile does first,
// that it is Parquet and has every required column (after the mapping) in a readable
// encoding; a caller checks its files with it before shipping them anywhere. Its errors wrap
// ErrBadFile or ErrMissingColumn, as ReadFile's do.
func (l *Loader) CheckFile(r io.ReaderAt, size int64, name string) error {
	_, err := l.CheckFileRows(r, size, name)
	return err
}

// CheckFileRows is CheckFile that also returns the file's row count, from its footer.
func (l *Loader) CheckFileRows(r io.ReaderAt, size int64, name string) (rows int64, err error) {
	f, _, err := l.open(r, size, name)
	if err != nil {
		return 0, err
	}
	return f.NumRows(), nil
}

// open opens one Parquet file and maps its columns (l.columns): a file that is not Parquet
// says what it is instead (NotParquet), one the reader refuses is ErrBadFile.
func (l *Loader) open(r io.ReaderAt, size int64, name string) (*parquet.File, []column, error) {
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		if np := NotParquet(r, size, name); np != nil {
			return nil, nil, np
		}
		return nil, nil, fmt.Errorf("%s: %w: %w", name, ErrBadFile, err)
	}
	cols, err := l.columns(f.Schema(), name)
	if err != nil {
		return nil, nil, err
	}
	return f, cols, nil
}

// ReadFile streams the documents of one Parquet file (name identifies it in errors, quarantine
// rows and Stats; a name already read gets a number, "news.parquet (2)"). emit receives each
// valid document in range; reject each quarantined row.
func (l *Loader) ReadFile(ctx context.Context, r io.ReaderAt, size int64, name string, emit func(schemas.Document) error, reject func(schemas.QuarantineRow) error) error {
	f, cols, err := l.open(r, size, name)
	if err != nil {
		return err
	}
	name = l.uniqueName(name) // another file of the same name gets its own counts
	st := &Stats{Quarantined: map[string]int64{}}
	l.stats[name] = st
	l.order = append(l.order, name)
	buf := make([]parquet.Row, l.opts.BatchRows)
	byCol := make([]parquet.Value, len(f.Schema().Columns())) // reused for every row
	footers, err := l.learn(ctx, f, cols, name, buf)
	if err != nil {
		return err
	}
	return readRows(ctx, f, name, buf, func(row parquet.Row, rowNum int64) error {
		st.Read++
		doc, q := l.decode(row, byCol, cols, name, rowNum)
		if q == nil {
			q = l.tidy(&doc, footers, st, name, rowNum)
		}
		if q == nil {
			q = l.future(doc, name, rowNum)
		}
		switch {
		case q != nil:
			st.Quarantined[q.Reason]++
			return reject(*q)
		case !l.inRange(doc.PublishedAt):
			st.Skipped++
			return nil
		case l.opts.Deleted[doc.DocID]:
			st.Deleted++
			return nil
		}
		where := fmt.Sprintf("%s:%d", name, rowNum)
		if reason, detail := l.version(doc); reason != "" {
			st.Quarantined[reason]++
			return reject(schemas.QuarantineRow{SourceFile: name, RowNumber: rowNum, DocID: doc.DocID, Reason: reason, Detail: detail})
		}
		if _, ok := l.seen[doc.DocID]; !ok {
			l.seen[doc.DocID] = where
		}
		l.rows[doc.DocID] = append(l.rows[doc.DocID], seenRow{where: where, at: doc.PublishedAt, hash: doc.ContentHash()})
		st.Documents++
		return emit(doc)
	})
}

// version says why a row whose doc_id was seen before cannot be indexed (a quarantine reason
// and its detail), or "" when it can: as the first row of its doc_id, or as another version of
// the document — other content published at another time than every row of it this build
// read, and, for a document the index holds (Options.Known), after its latest version. Two rows
// of one content are one version (the second a duplicate), and so are two of one time (which
// is later cannot be told).
func (l *Loader) version(doc schemas.Document) (reason, detail string) {
	first, seen := l.seen[doc.DocID]
	if !seen {
		return "", ""
	}
	known, isKnown := l.opts.Known[doc.DocID]
	_, inExisting := l.opts.Existing[doc.DocID]
	if inExisting && !isKnown || isKnown && known.Hash == "" {
		return schemas.ReasonDuplicateID, "first seen at " + first
	}
	hash := doc.ContentHash()
	if isKnown {
		switch {
		case hash == known.Hash:
			return schemas.ReasonDuplicateID, fmt.Sprintf("unchanged: the same text as the indexed version %d (%s)", max(known.Version, 1), known.Where)
		case !doc.PublishedAt.After(known.Published):
			return schemas.ReasonStaleVersion, fmt.Sprintf("other text than the indexed version %d (%s), but published %s, not after it (%s)",
				max(known.Version, 1), known.Where, doc.PublishedAt.UTC().Format(time.RFC3339), known.Published.UTC().Format(time.RFC3339))
		}
	}
	for _, r := range l.rows[doc.DocID] {
		switch {
		case r.hash == hash:
			return schemas.ReasonDuplicateID, "first seen at " + r.where
		case r.at.Equal(doc.PublishedAt):
			return schemas.ReasonDuplicateID, "another text with the same doc_id and published_at at " + r.where + ": which version is later cannot be told"
		}
	}
	return "", ""
}

// RowGroupError is returned when the pages of one row group cannot be read although the
// file's footer could (corrupt page bytes, or a reader failure on them, a panic included).
// It matches ErrBadFile and its cause (errors.Is): no retry reads such a file.
type RowGroupError struct {
	File     string
	RowGroup int   // 0-based, as the footer lists them
	Groups   int   // how many the file has
	FirstRow int64 // the group's first row in the file (0-based)
	Rows     int64 // the group's rows, as the footer says
	Row      int64 // the row being read when it failed
	Err      error
}

func (e *RowGroupError) Error() string {
	return fmt.Sprintf("%s: row group %d of %d (rows %d..%d), row %d: %v: %v (the footer reads but the pages do not: re-export the file)",
		e.File, e.RowGroup, e.Groups, e.FirstRow, e.FirstRow+e.Rows-1, e.Row, ErrBadFile, e.Err)
}

// Unwrap returns ErrBadFile and the cause.
func (e *RowGroupError) Unwrap() []error { return []error{ErrBadFile, e.Err} }

// readRows calls fn with every row of f and its 0-based number in the file, one row group at
// a time (buf rows per read). Row groups of no rows are not opened (writers of empty tables
// leave page offsets there that point nowhere). A failure of the Parquet reader, a panic
// included, is a *RowGroupError naming the file and the row group; fn's errors and ctx's come
// back as they are.
func readRows(ctx context.Context, f *parquet.File, name string, buf []parquet.Row, fn func(row parquet.Row, rowNum int64) error) error {
	groups := f.RowGroups()
	var rowNum int64
	for g, rg := range groups {
		first, size := rowNum, rg.NumRows()
		if size == 0 {
			continue
		}
		fail := func(err error) error {
			return &RowGroupError{File: name, RowGroup: g, Groups: len(groups), FirstRow: first, Rows: size, Row: rowNum, Err: err}
		}
		var rows parquet.Rows
		if err := guard(func() error { rows = rg.Rows(); return nil }); err != nil {
			return fail(err)
		}
		for {
			if err := ctx.Err(); err != nil {
				_ = guard(rows.Close)
				return err
			}
			var n int
			rerr := guard(func() (err error) { n, err = rows.ReadRows(buf); return err })
			for _, row := range buf[:n] {
				if err := fn(row, rowNum); err != nil {
					_ = guard(rows.Close)
					return err
				}
				rowNum++
			}
			if rerr != nil {
				_ = guard(rows.Close)
				if errors.Is(rerr, io.EOF) {
					break
				}
				return fail(rerr)
			}
		}
	}
	return nil
}

// guard runs a call into the Parquet reader, turning a panic (corrupt pages can index past a
// dictionary or a buffer) into an error.
func guard(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt pages: the Parquet reader failed: %v", r)
		}
	}()
	return call()
}

// learn reads the text and source of every row of f and returns what ends many posts of each
// source (textnorm.Footers): the first of ReadFile's two passes. Rows are not validated here;
// an invalid one teaches little and is quarantined by the second pass.
func (l *Loader) learn(ctx context.Context, f *parquet.File, cols []column, name string, buf []parquet.Row) (*textnorm.Footers, error) {
	o := l.opts.Footers
	if o == (textnorm.FooterOptions{}) {
		o = textnorm.DefaultFooterOptions()
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	footers := textnorm.NewFooters(o)
	learn := footerLearner(footers, cols)
	err := readRows(ctx, f, name, buf, func(row parquet.Row, _ int64) error { learn(row); return nil })
	if err != nil {
		return nil, err
	}
	return footers, nil
}

// footerLearner returns what adds a row's text and source to footers.
func footerLearner(footers *textnorm.Footers, cols []column) func(row parquet.Row) {
	textCol, sourceCol := -1, -1
	for _, c := range cols {
		switch c.canon {
		case "text":
			textCol = c.index
		case "source":
			sourceCol = c.index
		}
	}
	return func(row parquet.Row) {
		var text, source string
		for _, v := range row {
			switch c := v.Column(); {
			case v.IsNull():
			case c == textCol:
				text = stringOf(v)
			case c == sourceCol:
				source = textnorm.Field(stringOf(v)) // as decode reads it
			}
		}
		if textnorm.ValidUTF8(text) && textnorm.ValidUTF8(source) {
			footers.Add(source, text)
		}
	}
}

// RowsInRange returns the 0-based numbers of the rows of one file whose published_at falls in
// the loader's From..To, reading no other column's value; a row whose date is missing or
// unreadable is not one (ReadFile quarantines it). A caller samples the documents of a build
// limited to some days among these rows.
func (l *Loader) RowsInRange(ctx context.Context, r io.ReaderAt, size int64, name string) ([]int64, error) {
	f, cols, err := l.open(r, size, name)
	if err != nil {
		return nil, err
	}
	var date column
	for _, c := range cols {
		if c.canon == "published_at" {
			date = c
		}
	}
	var out []int64
	err = readRows(ctx, f, name, make([]parquet.Row, l.opts.BatchRows), func(row parquet.Row, rowNum int64) error {
		for _, v := range row {
			if v.Column() != date.index || v.IsNull() {
				continue
			}
			if t, _, err := decodeTime(v, date); err == nil && t.Year() >= minYear && t.Year() <= maxYear && l.inRange(t) {
				out = append(out, rowNum)
			}
			break
		}
		return nil
	})
	return out, err
}

// Sample returns the documents among the rows of one file whose 0-based numbers keep accepts,
// as ReadFile would emit them: the same mapping, checks (a row ReadFile would quarantine,
// skip or count as a duplicate is left out), cleaning and language (the lang column, else
// detected from the title and cleaned text). It reads the file once and decodes only the kept
// rows; the channel footers it removes are learned from the kept rows alone (ReadFile learns
// them from every row), which changes only what a footer many posts share is cut from. It
// counts nothing in Stats: a caller samples a corpus with it before building.
func (l *Loader) Sample(ctx context.Context, r io.ReaderAt, size int64, name string, keep func(row int64) bool) ([]schemas.Document, error) {
	f, cols, err := l.open(r, size, name)
	if err != nil {
		return nil, err
	}
	var rows []parquet.Row
	var nums []int64
	err = readRows(ctx, f, name, make([]parquet.Row, l.opts.BatchRows), func(row parquet.Row, rowNum int64) error {
		if keep(rowNum) {
			rows, nums = append(rows, row.Clone()), append(nums, rowNum)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	o := l.opts.Footers
	if o == (textnorm.FooterOptions{}) {
		o = textnorm.DefaultFooterOptions()
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	footers := textnorm.NewFooters(o)
	learn := footerLearner(footers, cols)
	for _, row := range rows {
		learn(row)
	}
	st := &Stats{Quarantined: map[string]int64{}} // not kept: sampling counts nothing
	byCol := make([]parquet.Value, len(f.Schema().Columns()))
	var docs []schemas.Document
	for i, row := range rows {
		doc, q := l.decode(row, byCol, cols, name, nums[i])
		if q == nil {
			q = l.tidy(&doc, footers, st, name, nums[i])
		}
		if q == nil {
			q = l.future(doc, name, nums[i])
		}
		if q != nil || !l.inRange(doc.PublishedAt) {
			continue
		}
		if reason, _ := l.version(doc); reason != "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, nums[i])
		if _, ok := l.seen[doc.DocID]; !ok {
			l.seen[doc.DocID] = where
		}
		l.rows[doc.DocID] = append(l.rows[doc.DocID], seenRow{where: where, at: doc.PublishedAt, hash: doc.ContentHash()})
		docs = append(docs, doc)
	}
	return docs, nil
}

// tidy removes doc's boilerplate (textnorm.Tidy with footers), counts it in st, and detects
// the language when the input gave none; it returns the quarantine row of a text that was
// nothing but boilerplate, or nil.
func (l *Loader) tidy(doc *schemas.Document, footers *textnorm.Footers, st *Stats, file string, rowNum int64) *schemas.QuarantineRow {
	before := utf8.RuneCountInString(doc.Text)
	st.TextRunes += int64(before)
	text, removed := textnorm.Tidy(doc.Text, doc.Source, footers)
	if len(removed) > 0 {
		st.Tidied++
		st.TidiedRunes += int64(before - utf8.RuneCountInString(text))
		if l.opts.Removed != nil {
			l.opts.Removed(doc.DocID, removed)
		}
	}
	if text == "" {
		return &schemas.QuarantineRow{SourceFile: file, RowNumber: rowNum, DocID: doc.DocID, Reason: schemas.ReasonBoilerplate,
			Detail: fmt.Sprintf("the text is only boilerplate (%s: %q)", removed[0].Rule, evidenceCut(doc.Text, 120))}
	}
	doc.Text = text
	if doc.Lang == "" {
		doc.Lang = textnorm.Lang(doc.Title + " " + doc.Text)
		if doc.Lang == "" {
			doc.Lang = "en"
		}
	}
	return nil
}

// evidenceCut returns s cut to n runes, with "…" when cut.
func evidenceCut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// future returns the quarantine row of a document published after the day after Now's day,
// or nil.
func (l *Loader) future(doc schemas.Document, file string, rowNum int64) *schemas.QuarantineRow {
	if l.opts.Now.IsZero() {
		return nil
	}
	if asofday.Allows(l.opts.Now.AddDate(0, 0, 1), doc.PublishedAt) { // one day of grace
		return nil
	}
	return &schemas.QuarantineRow{SourceFile: file, RowNumber: rowNum, DocID: doc.DocID, Reason: schemas.ReasonFutureDate,
		Detail: fmt.Sprintf("published %s, after the build started on %s (--allow-future keeps it)",
			doc.PublishedAt.UTC().Format(time.RFC3339), l.opts.Now.UTC().Format(time.DateOnly))}
}

func (l *Loader) inRange(t time.Time) bool {
	day := t.UTC().Truncate(24 * time.Hour)
	if !l.opts.From.IsZero() && day.Before(l.opts.From.UTC().Truncate(24*time.Hour)) {
		return false
	}
	if !l.opts.To.IsZero() && day.After(l.opts.To.UTC().Truncate(24*time.Hour)) {
		return false
	}
	return true
}

// columns resolves the canonical columns in schema, honouring the mapping.
func (l *Loader) columns(s *parquet.Schema, name string) ([]column, error) {
	var cols []column
	var available []string
	for _, p := range s.Columns() {
		available = append(available, strings.Join(p, "."))
	}
	sort.Strings(available)
	for _, canon := range append(append([]string{}, requiredColumns...), optionalColumns...) {
		input := canon
		mapped := false
		if m, ok := l.opts.Mapping[canon]; ok {
			input, mapped = m, true
		}
		leaf, ok := s.Lookup(input)
		if !ok {
			if mapped || isRequired(canon) {
				hint := ""
				if !mapped {
					hint = fmt.Sprintf(" (map another column with --map %s=COLUMN)", canon)
				}
				return nil, fmt.Errorf("%s: %w: %q for %s; the file has %s%s", name, ErrMissingColumn, input, canon, strings.Join(available, ", "), hint)
			}
			continue
		}
		if leaf.MaxRepetitionLevel > 0 {
			return nil, fmt.Errorf("%s: %w: column %q is a list; %s needs a single value per row", name, ErrColumnType, input, canon)
		}
		c := column{canon: canon, index: leaf.ColumnIndex, kind: leaf.Node.Type().Kind()}
		if canon == "published_at" || canon == "effective_at" || canon == "updated_at" {
			if err := timeEncoding(&c, leaf.Node); err != nil {
				return nil, fmt.Errorf("%s: %w: column %q: %w", name, ErrColumnType, input, err)
			}
		}
		if textColumns[canon] && c.kind != parquet.ByteArray && c.kind != parquet.FixedLenByteArray {
			return nil, fmt.Errorf("%s: %w: column %q for %s is %s, not a string: it would be indexed as digits (map a text column with --map %s=COLUMN)",
				name, ErrColumnType, input, canon, c.kind, canon)
		}
		cols = append(cols, c)
	}
	return cols, nil
}

func isRequired(canon string) bool {
	for _, c := range requiredColumns {
		if c == canon {
			return true
		}
	}
	return false
}

// timeEncoding works out how a published_at column stores time.
func timeEncoding(c *column, n parquet.Node) error {
	t := n.Type()
	switch c.kind {
	case parquet.ByteArray:
		return nil // strings, parsed per row
	case parquet.Int32:
		if lt := t.LogicalType(); lt != nil {
			if _, ok := lt.Value.(*format.DateType); ok {
				c.date = true
				return nil
			}
		}
		if ct := t.ConvertedType(); ct != nil && *ct == deprecated.Date {
			c.date = true
			return nil
		}
		return errors.New("INT32 published_at must be a DATE")
	case parquet.Int64:
		if lt := t.LogicalType(); lt != nil {
			if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
				c.unit = ts.Unit.Value.Duration()
				return nil
			}
		}
		if ct := t.ConvertedType(); ct != nil {
			switch *ct {
			case deprecated.TimestampMillis:
				c.unit = time.Millisecond
				return nil
			case deprecated.TimestampMicros:
				c.unit = time.Microsecond
				return nil
			}
		}
		return errors.New("INT64 published_at must be a TIMESTAMP")
	case parquet.Int96:
		return nil // legacy Impala/Spark timestamps
	}
	return fmt.Errorf("unsupported type %s for published_at (use a timestamp, a date or a string)", t)
}

// decode builds a document from one row, or the quarantine row saying why it cannot.
func (l *Loader) decode(row parquet.Row, byCol []parquet.Value, cols []column, file string, rowNum int64) (schemas.Document, *schemas.QuarantineRow) {
	var doc schemas.Document
	var rawDate string
	var dateNull, haveDate bool
	var yearOut bool
	var badEncoding []string
	var badWeight string
	var badKind, badEffective string
	var badID string // a doc_id that is not UTF-8: checked before its emptiness
	quarantine := func(reason, detail string) *schemas.QuarantineRow {
		return &schemas.QuarantineRow{SourceFile: file, RowNumber: rowNum, DocID: doc.DocID, Reason: reason, Detail: detail}
	}
	for i := range byCol {
		byCol[i] = parquet.Value{} // the zero Value is null
	}
	for _, v := range row {
		if c := v.Column(); c >= 0 && c < len(byCol) {
			byCol[c] = v
		}
	}
	for _, c := range cols {
		v := byCol[c.index]
		ok := true
		if c.canon == "published_at" {
			if !ok || v.IsNull() {
				dateNull = true
				continue
			}
			t, raw, err := decodeTime(v, c)
			rawDate = raw
			switch {
			case err != nil:
			case t.Year() < minYear || t.Year() > maxYear:
				doc.PublishedAt, yearOut = t, true
			default:
				doc.PublishedAt, haveDate = t, true
			}
			continue
		}
		if !ok || v.IsNull() {
			continue
		}
		if c.canon == "effective_at" || c.canon == "updated_at" {
			if v.Kind() == parquet.ByteArray && strings.TrimSpace(string(v.ByteArray())) == "" {
				continue // an empty string: none, like a null
			}
			t, raw, err := decodeTime(v, c)
			if err != nil || t.Year() < minYear || t.Year() > maxYear {
				badEffective = c.canon + " " + strconv.Quote(raw)
				continue
			}
			if c.canon == "updated_at" {
				doc.UpdatedAt = &t
			} else {
				doc.EffectiveAt = &t
			}
			continue
		}
		if c.canon == "source_weight" {
			w, ok := number(v)
			switch {
			case ok && !math.IsNaN(w) && !math.IsInf(w, 0):
				doc.SourceWeight = &w
			case !ok && v.Kind() == parquet.ByteArray && strings.TrimSpace(string(v.ByteArray())) == "":
				// an empty string: no weight, like a null
			default:
				badWeight = stringOf(v)
			}
			continue
		}
		s := stringOf(v)
		if v.Kind() == parquet.ByteArray && !textnorm.ValidUTF8(s) {
			badEncoding = append(badEncoding, c.canon)
			if c.canon == "doc_id" {
				badID = s
			}
			continue
		}
		switch c.canon {
		case "doc_id":
			doc.DocID = textnorm.Field(s)
		case "text":
			doc.Text = textnorm.Clean(s)
		case "title":
			doc.Title = textnorm.Clean(s)
		case "source":
			doc.Source = textnorm.Field(s)
		case "url":
			doc.URL = textnorm.Field(s)
		case "topic":
			doc.Topic = textnorm.Field(s)
		case "lang":
			doc.Lang = strings.ToLower(textnorm.Field(s))
		case "kind":
			k, err := lifecycle.ParseKind(textnorm.Field(s))
			if err != nil {
				badKind = textnorm.Field(s)
			}
			doc.Kind = k
		case "supersedes":
			doc.Supersedes = textnorm.Field(s)
		}
	}
	switch {
	case badID != "":
		if len(badID) > 120 { // bytes, not runes: the bytes are what is wrong
			badID = badID[:120] + "…"
		}
		return doc, quarantine(schemas.ReasonBadEncoding, fmt.Sprintf("invalid UTF-8 in doc_id %q", badID))
	case doc.DocID == "":
		return doc, quarantine(schemas.ReasonMissingID, "doc_id is empty")
	case dateNull:
		return doc, quarantine(schemas.ReasonMissingDate, "published_at is empty")
	case yearOut:
		return doc, quarantine(schemas.ReasonBadDate, fmt.Sprintf("published_at %s (%q) is in year %d, outside %d..%d", doc.PublishedAt.Format(time.RFC3339), rawDate, doc.PublishedAt.Year(), minYear, maxYear))
	case !haveDate:
		return doc, quarantine(schemas.ReasonBadDate, fmt.Sprintf("cannot read published_at %q", rawDate))
	case len(badEncoding) > 0:
		return doc, quarantine(schemas.ReasonBadEncoding, "invalid UTF-8 in "+strings.Join(badEncoding, ", "))
	case doc.Text == "":
		return doc, quarantine(schemas.ReasonEmptyText, "text is empty")
	case badWeight != "":
		return doc, quarantine(schemas.ReasonBadWeight, fmt.Sprintf("source_weight %q is not a finite number", badWeight))
	case badKind != "":
		return doc, quarantine(schemas.ReasonBadKind, fmt.Sprintf("kind %q: use %s or %s", evidenceCut(badKind, 40), schemas.KindNews, schemas.KindStanding))
	case badEffective != "":
		return doc, quarantine(schemas.ReasonBadDate, "cannot read "+evidenceCut(badEffective, 80))
	}
	if doc.UpdatedAt != nil && doc.UpdatedAt.After(doc.PublishedAt) {
		doc.PublishedAt = *doc.UpdatedAt // the text as edited is known from then on
	}
	return doc, nil
}

// minYear and maxYear bound the years a published_at may have: a document's JSON (and so its
// shard's id) cannot encode a time outside 0001..9999, and no real document is dated there.
const minYear, maxYear = 1, 9999

// dateLayouts are the string forms accepted for published_at, tried in order. Forms without
// a zone are read as UTC.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02", "2006/01/02", "2006/01/02 15:04:05"}

// ParseDate reads a date or timestamp string in any accepted form, as UTC.
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognized date %q (use RFC 3339, YYYY-MM-DD or YYYY/MM/DD)", s)
}

func decodeTime(v parquet.Value, c column) (time.Time, string, error) {
	switch {
	case c.kind == parquet.ByteArray:
		raw := string(v.ByteArray())
		t, err := ParseDate(raw)
		return t, raw, err
	case c.date:
		days := v.Int32()
		return time.Unix(int64(days)*86400, 0).UTC(), strconv.Itoa(int(days)), nil
	case c.kind == parquet.Int96:
		// Impala layout: nanoseconds of the day in the low 8 bytes, Julian day in the high 4.
		t := v.Int96()
		nanos := int64(uint64(t[0]) | uint64(t[1])<<32)
		julian := int64(t[2])
		return time.Unix((julian-2440588)*86400, nanos).UTC(), t.String(), nil
	default:
		n := v.Int64()
		raw := strconv.FormatInt(n, 10)
		if c.unit <= 0 || c.unit > time.Second || time.Second%c.unit != 0 {
			return time.Time{}, raw, errors.New("timestamp unit not supported")
		}
		perSec := int64(time.Second / c.unit) // no overflow for years past 2262 in nanoseconds
		return time.Unix(n/perSec, (n%perSec)*int64(c.unit)).UTC(), raw, nil
	}
}

func stringOf(v parquet.Value) string {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	}
	return v.String()
}

func number(v parquet.Value) (float64, bool) {
	switch v.Kind() {
	case parquet.Float:
		return float64(v.Float()), true
	case parquet.Double:
		return v.Double(), true
	case parquet.Int32:
		return float64(v.Int32()), true
	case parquet.Int64:
		return float64(v.Int64()), true
	case parquet.ByteArray:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(v.ByteArray())), 64)
		return f, err == nil
	}
	return 0, false
}
