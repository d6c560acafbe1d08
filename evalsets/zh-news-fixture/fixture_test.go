package zhnews

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/corpus"
	"github.com/asofrag/asof/schemas"
)

func loadFixture(t *testing.T) *Fixture {
	t.Helper()
	f, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestParquetUpToDate regenerates the Parquet files in a temporary folder and compares them
// byte for byte with the committed ones.
func TestParquetUpToDate(t *testing.T) {
	f := loadFixture(t)
	dir := t.TempDir()
	if err := f.WriteParquet(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DocsParquet, QuestionsParquet, QrelsParquet} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v: run go generate ./evalsets/zh-news-fixture", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the JSONL source makes (%d bytes committed, %d generated): run go generate ./evalsets/zh-news-fixture", name, len(got), len(want))
		}
	}
}

// TestCommittedFixture checks the committed fixture against its rules and its advertised shape.
func TestCommittedFixture(t *testing.T) {
	f := loadFixture(t)
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Docs); n < 180 || n > 220 {
		t.Errorf("%d documents, want about 200", n)
	}
	first, last := f.Docs[0].PublishedAt, f.Docs[len(f.Docs)-1].PublishedAt
	if first.Year() != 2019 || last.Year() != 2024 {
		t.Errorf("documents span %s … %s, want 2019 … 2024", first.Format(time.DateOnly), last.Format(time.DateOnly))
	}
	sources := map[string]bool{}
	long, maxRunes := 0, 0
	for _, d := range f.Docs {
		sources[d.Source] = true
		n := len([]rune(d.Text))
		if n >= 600 {
			long++
		}
		maxRunes = max(maxRunes, n)
	}
	if len(sources) < 5 || len(sources) > 8 {
		t.Errorf("%d sources, want 5–8", len(sources))
	}
	if long < 4 {
		t.Errorf("%d documents of 600 or more characters, want at least 4 (chunking)", long)
	}
	if maxRunes <= 1600 {
		t.Errorf("the longest text has %d characters: none is split by the default 1600-character chunk size", maxRunes)
	}
	kinds := map[string]int{}
	var lastAnchor string
	for _, q := range f.Questions {
		kinds[q.Kind]++
		lastAnchor = max(lastAnchor, q.Date)
	}
	for _, k := range []string{KindPresent, KindDated, KindUndated} {
		if kinds[k] < 8 {
			t.Errorf("%d %s questions, want about 10", kinds[k], k)
		}
	}
	if kinds[KindChange] < 2 {
		t.Errorf("%d change questions, want a few", kinds[KindChange])
	}
	after := 0
	for _, d := range f.Docs {
		if d.PublishedAt.Format(time.DateOnly) > lastAnchor {
			after++
		}
	}
	if after < 5 {
		t.Errorf("%d documents after the last anchor %s, want bait after every anchor", after, lastAnchor)
	}
	t.Logf("%d documents from %d sources (%d of 600+ characters, longest %d), %d questions %v, %d judgements, %d documents after the last anchor",
		len(f.Docs), len(sources), long, maxRunes, len(f.Questions), kinds, len(f.Judgements), after)
}

// TestAsofReadsParquet reads the Parquet files the way `asof index` and `asof eval` do: every
// document through the corpus loader (none quarantined, fields intact), and the question and
// qrels rows through the schemas types.
func TestAsofReadsParquet(t *testing.T) {
	f := loadFixture(t)
	fh, err := os.Open(DocsParquet)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	l := corpus.NewLoader(corpus.Options{})
	var got []schemas.Document
	var rejected []schemas.QuarantineRow
	err = l.ReadFile(context.Background(), fh, st.Size(), DocsParquet,
		func(d schemas.Document) error { got = append(got, d); return nil },
		func(q schemas.QuarantineRow) error { rejected = append(rejected, q); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(rejected) > 0 {
		t.Fatalf("%d documents quarantined, first: %+v", len(rejected), rejected[0])
	}
	if len(got) != len(f.Docs) {
		t.Fatalf("read %d documents, want %d", len(got), len(f.Docs))
	}
	for i, d := range got {
		w := f.Docs[i]
		if d.DocID != w.DocID || !d.PublishedAt.Equal(w.PublishedAt) || d.Title != w.Title || d.Text != w.Text || d.Source != w.Source || d.URL != w.URL || d.Topic != w.Topic {
			t.Errorf("document %d read as %+v, want %+v", i, d, w)
		}
		if d.Lang == "" {
			t.Errorf("%s: no language detected", d.DocID)
		}
	}

	wantQ, wantR, err := f.Rows()
	if err != nil {
		t.Fatal(err)
	}
	gotQ, err := parquet.ReadFile[schemas.EvalQuestion](QuestionsParquet)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gotQ {
		gotQ[i].QuestionDate = gotQ[i].QuestionDate.UTC()
	}
	if !reflect.DeepEqual(gotQ, wantQ) {
		t.Errorf("questions.parquet:\n got %+v\nwant %+v", gotQ, wantQ)
	}
	gotR, err := parquet.ReadFile[schemas.Qrel](QrelsParquet)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotR, wantR) {
		t.Errorf("qrels.parquet:\n got %+v\nwant %+v", gotR, wantR)
	}
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t.Add(9 * time.Hour)
}

// smallFixture is a valid fixture of one question of each kind.
func smallFixture() *Fixture {
	return &Fixture{
		Docs: []schemas.Document{
			{DocID: "d1", PublishedAt: day("2020-01-01"), Title: "利率", Text: "央行1月1日降息。", Source: "a"},
			{DocID: "d2", PublishedAt: day("2020-01-10"), Text: "降息后银行股下跌。", Source: "b"},
			{DocID: "d3", PublishedAt: day("2021-06-01"), Text: "央行维持利率不变。", Source: "a"},
			{DocID: "d4", PublishedAt: day("2021-06-20"), Text: "央行加息。", Source: "a"},
		},
		Questions: []Question{
			{ID: "p", Date: "2021-06-05", Question: "目前利率是多少？", Kind: KindPresent, Answer: "x"},
			{ID: "d", Date: "2021-06-05", Question: "2020年1月央行降息了吗？", Kind: KindDated, Answer: "x", PeriodFrom: "2020-01-01", PeriodTo: "2020-01-31"},
			{ID: "u", Date: "2021-06-05", Question: "央行上次降息是哪天？", Kind: KindUndated, Answer: "x", PeriodFrom: "2020-01-01", PeriodTo: "2020-01-01"},
			{ID: "c", Date: "2021-06-05", Question: "2020年以来利率如何变化？", Kind: KindChange, Answer: "x", PeriodFrom: "2020-01-01", PeriodTo: "2021-06-05"},
		},
		Judgements: []Judgement{
			{QuestionID: "p", DocID: "d3", Grade: 2},
			{QuestionID: "p", DocID: "d1", Grade: 0},
			{QuestionID: "d", DocID: "d1", Grade: 2},
			{QuestionID: "d", DocID: "d2", Grade: 2},
			{QuestionID: "d", DocID: "d3", Grade: 0},
			{QuestionID: "u", DocID: "d1", Grade: 2},
			{QuestionID: "u", DocID: "d3", Grade: 0},
			{QuestionID: "c", DocID: "d1", Grade: 2},
			{QuestionID: "c", DocID: "d3", Grade: 2},
		},
	}
}

func TestCheck(t *testing.T) {
	judge := func(q, d string, g int32) func(*Fixture) {
		return func(f *Fixture) { f.Judgements = append(f.Judgements, Judgement{QuestionID: q, DocID: d, Grade: g}) }
	}
	question := func(id string, edit func(*Question)) func(*Fixture) {
		return func(f *Fixture) {
			for i := range f.Questions {
				if f.Questions[i].ID == id {
					edit(&f.Questions[i])
				}
			}
		}
	}
	tests := []struct {
		name string
		edit func(*Fixture)
		want string // a substring of the error; "" for a valid fixture
	}{
		{name: "valid", edit: func(*Fixture) {}},
		{name: "judged after the anchor", edit: judge("p", "d4", 0), want: "after the anchor"},
		{name: "grade 2 on the anchor day is fresh", edit: func(f *Fixture) {
			f.Docs = append(f.Docs, schemas.Document{DocID: "d5", PublishedAt: day("2021-06-05").Add(14 * time.Hour), Text: "x"})
			f.Docs[3], f.Docs[4] = f.Docs[4], f.Docs[3]
			f.Judgements = append(f.Judgements, Judgement{QuestionID: "p", DocID: "d5", Grade: 2})
		}},
		{name: "unknown document", edit: judge("p", "zz", 1), want: "unknown document zz"},
		{name: "unknown question", edit: judge("zz", "d1", 1), want: "unknown question zz"},
		{name: "grade out of range", edit: judge("p", "d2", 3), want: "grade 3"},
		{name: "judged twice", edit: judge("p", "d3", 1), want: "judged twice"},
		{name: "present grade 2 too old", edit: judge("p", "d2", 2), want: "0–14 days old"},
		{name: "dated grade 2 outside its period", edit: func(f *Fixture) { f.Judgements[4].Grade = 2 }, want: "outside 2020-01-01 … 2020-01-31"},
		{name: "dated grade 2 up to 14 days after its period", edit: question("d", func(q *Question) { q.PeriodFrom, q.PeriodTo = "2019-12-01", "2019-12-31" })},
		{name: "dated grade 2 15 days after its period", edit: question("d", func(q *Question) { q.PeriodFrom, q.PeriodTo = "2019-12-01", "2019-12-26" }), want: "d2 (grade 2) is published 2020-01-10, outside 2019-12-01 … 2019-12-26 + 14 days"},
		{name: "present evidence too old", edit: judge("p", "d2", 1), want: "at most 365 days old"},
		{name: "undated evidence too recent", edit: func(f *Fixture) { f.Judgements[6].Grade = 1 }, want: "older than 365 days"},
		{name: "change grade 2 outside its period", edit: question("c", func(q *Question) { q.PeriodFrom = "2021-01-01" }), want: "outside the period 2021-01-01"},
		{name: "no grade 2", edit: func(f *Fixture) { f.Judgements[0].Grade = 1 }, want: "p has no grade-2 document"},
		{name: "duplicate doc id", edit: func(f *Fixture) { f.Docs[1].DocID = "d1" }, want: "appears twice"},
		{name: "unsorted documents", edit: func(f *Fixture) { f.Docs[0], f.Docs[1] = f.Docs[1], f.Docs[0] }, want: "keep the file sorted"},
		{name: "empty text", edit: func(f *Fixture) { f.Docs[2].Text = " " }, want: "d3 has no text"},
		{name: "dated question without a date", edit: question("d", func(q *Question) { q.Question = "央行降息了吗？" }), want: "names its date"},
		{name: "undated question with a date", edit: question("u", func(q *Question) { q.Question = "去年央行降息是哪天？" }), want: `found "去年"`},
		{name: "unknown kind", edit: question("p", func(q *Question) { q.Kind = "now" }), want: `unknown kind "now"`},
		{name: "present question with a period", edit: question("p", func(q *Question) { q.PeriodFrom = "2021-01-01" }), want: "has no period"},
		{name: "past question without a period", edit: question("d", func(q *Question) { q.PeriodTo = "" }), want: "needs period_from and period_to"},
		{name: "period after the anchor", edit: question("c", func(q *Question) { q.PeriodTo = "2021-06-06" }), want: "after the anchor"},
		{name: "bad anchor", edit: question("p", func(q *Question) { q.Date = "2021/06/05" }), want: "not a YYYY-MM-DD day"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := smallFixture()
			tc.edit(f)
			err := f.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want no error, got %v", err)
			case tc.want == "":
				return
			case err == nil:
				t.Fatalf("want an error with %q, got none", tc.want)
			case !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("want ErrInvalid with %q, got %v", tc.want, err)
			}
		})
	}
}

func TestRowsDaysBefore(t *testing.T) {
	f := smallFixture()
	_, rels, err := f.Rows()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, len(rels))
	for i, r := range rels {
		got[i] = r.DaysBefore
	}
	want := []int32{4, 521, 521, 512, 4, 521, 4, 521, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("days_before %v, want %v", got, want)
	}
	f.Judgements = append(f.Judgements, Judgement{QuestionID: "p", DocID: "nope", Grade: 1})
	if _, _, err := f.Rows(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an unknown document: want ErrInvalid, got %v", err)
	}
}

func TestLoadRejectsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		DocsJSONL:      `{"doc_id":"d1","published_at":"2020-01-01T00:00:00Z","text":"x"}` + "\n",
		QuestionsJSONL: `{"question_id":"p","question_date":"2020-01-02","question":"x","kind":"present","answr":"typo"}` + "\n",
		QrelsJSONL:     "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "questions.jsonl:1") || !strings.Contains(err.Error(), "answr") {
		t.Fatalf("want an error naming questions.jsonl:1 and the unknown field, got %v", err)
	}
}
