// Package zhnews is a small judged Chinese as-of fixture: 200 dated news items about a fictional
// country (Qilan), its capital Qinghe and the city of Xichuan, written for this project, and 34
// questions asked as of anchors between 2021 and 2024, with graded judgements.
//
// The readable source is three JSONL files in this folder (docs.jsonl, questions.jsonl,
// qrels.jsonl). Load reads them, Check enforces the grading rules against the dates (README.md),
// and WriteParquet writes the files `asof index` and `asof eval` read: docs.parquet (canonical
// document rows), questions.parquet and qrels.parquet. `go generate` in this folder rewrites
// them; the package's test fails when the committed Parquet differs from what the JSONL makes.
package zhnews

//go:generate go run ./gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

// File names inside the fixture folder.
const (
	DocsJSONL        = "docs.jsonl"
	QuestionsJSONL   = "questions.jsonl"
	QrelsJSONL       = "qrels.jsonl"
	DocsParquet      = "docs.parquet"
	QuestionsParquet = "questions.parquet"
	QrelsParquet     = "qrels.parquet"
)

// questionDayLayout is how questions.jsonl writes days.
const questionDayLayout = time.DateOnly

// Question kinds: what a question asks about, which decides the grade-2 rule (README.md).
const (
	// KindPresent asks about the state of things at the anchor ("目前…", "最新…").
	KindPresent = "present"
	// KindDated asks about a past period named in the question ("2021年3月…", "去年…").
	KindDated = "dated"
	// KindUndated asks about a past event without naming its date; all its evidence is older
	// than LookBackDays at the anchor.
	KindUndated = "undated"
	// KindChange asks how something changed over a period that ends at the anchor.
	KindChange = "change"
)

// Grading windows, in whole UTC days.
const (
	// FreshDays: a present question's grade-2 document is 0–FreshDays days old at the anchor;
	// a dated or undated question's is published in its period or up to FreshDays days after.
	FreshDays = 14
	// LookBackDays: a present question's relevant documents are at most this old at the
	// anchor; an undated question's are all older.
	LookBackDays = 365
)

// ErrInvalid is returned (wrapped, with every problem found) when the fixture breaks a rule.
var ErrInvalid = errors.New("invalid fixture")

// Question is one line of questions.jsonl.
type Question struct {
	// ID is the question_id, "zhq-<kind>-NN".
	ID string `json:"question_id"`
	// Date is the anchor day, YYYY-MM-DD (UTC).
	Date string `json:"question_date"`
	// Question is the text asked.
	Question string `json:"question"`
	// Kind is KindPresent, KindDated, KindUndated or KindChange.
	Kind string `json:"kind"`
	// Answer is the expected answer in words, for a reader; nothing scores it.
	Answer string `json:"answer"`
	// PeriodFrom and PeriodTo (YYYY-MM-DD, inclusive) bound what a past or change question
	// asks about: the asked period, or the day(s) of the event an undated question names.
	// Present questions have none.
	PeriodFrom string `json:"period_from,omitempty"`
	// PeriodTo is the last day of the period.
	PeriodTo string `json:"period_to,omitempty"`
}

// Judgement is one line of qrels.jsonl: a document's grade for a question.
type Judgement struct {
	// QuestionID names the question.
	QuestionID string `json:"question_id"`
	// DocID names the document.
	DocID string `json:"doc_id"`
	// Grade is 2 (states the answer, of the right time), 1 (relevant but older or partial)
	// or 0 (read and judged not relevant).
	Grade int32 `json:"grade"`
}

// Fixture is the whole fixture as read from its JSONL files.
type Fixture struct {
	// Docs are the documents in file order (publication time, then doc_id).
	Docs []schemas.Document
	// Questions are the questions in file order.
	Questions []Question
	// Judgements are the qrels in file order.
	Judgements []Judgement
}

// Load reads the three JSONL files of the fixture in dir. Unknown fields and malformed lines
// are errors that name the file and line. It does not apply the grading rules (Check does).
func Load(dir string) (*Fixture, error) {
	var f Fixture
	var err error
	if f.Docs, err = readJSONL[schemas.Document](filepath.Join(dir, DocsJSONL)); err != nil {
		return nil, err
	}
	if f.Questions, err = readJSONL[Question](filepath.Join(dir, QuestionsJSONL)); err != nil {
		return nil, err
	}
	if f.Judgements, err = readJSONL[Judgement](filepath.Join(dir, QrelsJSONL)); err != nil {
		return nil, err
	}
	return &f, nil
}

func readJSONL[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// datePhrase finds a date or period named in a question: a year, a month, a day, or a
// relative year.
var datePhrase = regexp.MustCompile(`\d{4}年|\d{1,2}月|\d{1,2}日|去年|今年|前年|明年`)

// Check applies the fixture's rules and returns every violation found, joined and wrapping
// ErrInvalid, or nil:
//   - documents: unique non-empty doc_id, a publication time, non-empty text, sorted by
//     publication time then doc_id;
//   - questions: unique id, a known kind, an anchor day, a period (from ≤ to ≤ anchor) for
//     every kind but present and none for present; dated questions name a date, undated ones
//     do not;
//   - judgements: known question and document, grade 0–2, judged once, never published after
//     the anchor's day, at least one grade 2 per question;
//   - grade 2 by kind: present 0–FreshDays days before the anchor; dated and undated in the
//     period or up to FreshDays days after it; change within the period;
//   - relevant (grade ≥ 1) by kind: at most LookBackDays days before the anchor for a present
//     question, more than LookBackDays days before it for an undated one.
func (f *Fixture) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	docs := make(map[string]schemas.Document, len(f.Docs))
	for i, d := range f.Docs {
		switch {
		case strings.TrimSpace(d.DocID) == "":
			bad("%s line %d: empty doc_id", DocsJSONL, i+1)
			continue
		case d.PublishedAt.IsZero():
			bad("%s: %s has no published_at", DocsJSONL, d.DocID)
		case strings.TrimSpace(d.Text) == "":
			bad("%s: %s has no text", DocsJSONL, d.DocID)
		}
		if _, dup := docs[d.DocID]; dup {
			bad("%s: doc_id %s appears twice", DocsJSONL, d.DocID)
		}
		docs[d.DocID] = d
		if i > 0 {
			p := f.Docs[i-1]
			if d.PublishedAt.Before(p.PublishedAt) || (d.PublishedAt.Equal(p.PublishedAt) && d.DocID <= p.DocID) {
				bad("%s: %s (%s) comes after %s (%s); keep the file sorted by published_at, then doc_id",
					DocsJSONL, d.DocID, d.PublishedAt.Format(time.RFC3339), p.DocID, p.PublishedAt.Format(time.RFC3339))
			}
		}
	}

	type spec struct {
		q        Question
		anchor   time.Time
		from, to time.Time
	}
	questions := make(map[string]spec, len(f.Questions))
	for _, q := range f.Questions {
		if q.ID == "" {
			bad("%s: a question has no question_id", QuestionsJSONL)
			continue
		}
		if _, dup := questions[q.ID]; dup {
			bad("%s: question_id %s appears twice", QuestionsJSONL, q.ID)
		}
		s := spec{q: q}
		var err error
		if s.anchor, err = parseDay(q.Date); err != nil {
			bad("%s: %s: question_date: %v", QuestionsJSONL, q.ID, err)
		}
		if strings.TrimSpace(q.Question) == "" {
			bad("%s: %s has no question text", QuestionsJSONL, q.ID)
		}
		switch q.Kind {
		case KindPresent:
			if q.PeriodFrom != "" || q.PeriodTo != "" {
				bad("%s: %s: a present question has no period", QuestionsJSONL, q.ID)
			}
		case KindDated, KindUndated, KindChange:
			var e1, e2 error
			s.from, e1 = parseDay(q.PeriodFrom)
			s.to, e2 = parseDay(q.PeriodTo)
			switch {
			case e1 != nil || e2 != nil:
				bad("%s: %s: a %s question needs period_from and period_to (%v)", QuestionsJSONL, q.ID, q.Kind, errors.Join(e1, e2))
			case s.to.Before(s.from):
				bad("%s: %s: period_to %s is before period_from %s", QuestionsJSONL, q.ID, q.PeriodTo, q.PeriodFrom)
			case !s.anchor.IsZero() && s.to.After(s.anchor):
				bad("%s: %s: period_to %s is after the anchor %s", QuestionsJSONL, q.ID, q.PeriodTo, q.Date)
			}
			hasDate := datePhrase.MatchString(q.Question)
			if q.Kind == KindDated && !hasDate {
				bad("%s: %s: a dated question names its date or period (e.g. 2021年3月, 去年)", QuestionsJSONL, q.ID)
			}
			if q.Kind == KindUndated && hasDate {
				bad("%s: %s: an undated question names no date (found %q)", QuestionsJSONL, q.ID, datePhrase.FindString(q.Question))
			}
		default:
			bad("%s: %s: unknown kind %q (present, dated, undated or change)", QuestionsJSONL, q.ID, q.Kind)
		}
		questions[q.ID] = s
	}

	type pair struct{ q, d string }
	seen := map[pair]bool{}
	grade2 := map[string]int{}
	for _, j := range f.Judgements {
		s, okQ := questions[j.QuestionID]
		d, okD := docs[j.DocID]
		if !okQ {
			bad("%s: unknown question %s", QrelsJSONL, j.QuestionID)
		}
		if !okD {
			bad("%s: %s: unknown document %s", QrelsJSONL, j.QuestionID, j.DocID)
		}
		if j.Grade < 0 || j.Grade > 2 {
			bad("%s: %s: %s has grade %d (0, 1 or 2)", QrelsJSONL, j.QuestionID, j.DocID, j.Grade)
		}
		if seen[pair{j.QuestionID, j.DocID}] {
			bad("%s: %s: %s is judged twice", QrelsJSONL, j.QuestionID, j.DocID)
		}
		seen[pair{j.QuestionID, j.DocID}] = true
		if !okQ || !okD || s.anchor.IsZero() {
			continue
		}
		at := d.PublishedAt.UTC().Format(questionDayLayout)
		age := asofday.Age(s.anchor, d.PublishedAt)
		if !asofday.Allows(s.anchor, d.PublishedAt) {
			bad("%s: %s: %s is published %s, after the anchor %s: nothing after the anchor is judged", QrelsJSONL, j.QuestionID, j.DocID, at, s.q.Date)
			continue
		}
		if j.Grade >= 1 && s.q.Kind == KindPresent && age > LookBackDays {
			bad("%s: %s: %s (grade %d) is %d days old at the anchor; a present question's relevant documents are at most %d days old", QrelsJSONL, j.QuestionID, j.DocID, j.Grade, age, LookBackDays)
		}
		if j.Grade >= 1 && s.q.Kind == KindUndated && age <= LookBackDays {
			bad("%s: %s: %s (grade %d) is %d days old at the anchor; an undated question's evidence is all older than %d days", QrelsJSONL, j.QuestionID, j.DocID, j.Grade, age, LookBackDays)
		}
		if j.Grade != 2 {
			continue
		}
		grade2[j.QuestionID]++
		day := asofday.Start(d.PublishedAt)
		switch s.q.Kind {
		case KindPresent:
			if age > FreshDays {
				bad("%s: %s: %s (grade 2) is %d days old at the anchor; a present question's grade 2 is 0–%d days old", QrelsJSONL, j.QuestionID, j.DocID, age, FreshDays)
			}
		case KindDated, KindUndated:
			if day.Before(s.from) || day.After(s.to.AddDate(0, 0, FreshDays)) {
				bad("%s: %s: %s (grade 2) is published %s, outside %s … %s + %d days", QrelsJSONL, j.QuestionID, j.DocID, at, s.q.PeriodFrom, s.q.PeriodTo, FreshDays)
			}
		case KindChange:
			if day.Before(s.from) || day.After(s.to) {
				bad("%s: %s: %s (grade 2) is published %s, outside the period %s … %s", QrelsJSONL, j.QuestionID, j.DocID, at, s.q.PeriodFrom, s.q.PeriodTo)
			}
		}
	}
	for _, q := range f.Questions {
		if q.ID != "" && grade2[q.ID] == 0 {
			bad("%s: %s has no grade-2 document on or before its anchor", QrelsJSONL, q.ID)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %d problem(s):\n%w", ErrInvalid, len(errs), errors.Join(errs...))
	}
	return nil
}

func parseDay(s string) (time.Time, error) {
	t, err := time.Parse(questionDayLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a YYYY-MM-DD day", s)
	}
	return t, nil
}

// Rows are the fixture's questions and judgements as the rows `asof eval` reads: anchors at
// midnight UTC, and days_before = the anchor's UTC day minus the document's.
func (f *Fixture) Rows() ([]schemas.EvalQuestion, []schemas.Qrel, error) {
	anchors := make(map[string]time.Time, len(f.Questions))
	qs := make([]schemas.EvalQuestion, 0, len(f.Questions))
	for _, q := range f.Questions {
		t, err := parseDay(q.Date)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", QuestionsJSONL, q.ID, err)
		}
		anchors[q.ID] = t
		qs = append(qs, schemas.EvalQuestion{QuestionID: q.ID, QuestionDate: t, Question: q.Question})
	}
	published := make(map[string]time.Time, len(f.Docs))
	for _, d := range f.Docs {
		published[d.DocID] = d.PublishedAt
	}
	rels := make([]schemas.Qrel, 0, len(f.Judgements))
	for _, j := range f.Judgements {
		a, okQ := anchors[j.QuestionID]
		p, okD := published[j.DocID]
		if !okQ || !okD {
			return nil, nil, fmt.Errorf("%s: %s / %s: %w: unknown question or document", QrelsJSONL, j.QuestionID, j.DocID, ErrInvalid)
		}
		rels = append(rels, schemas.Qrel{QuestionID: j.QuestionID, DocID: j.DocID, Grade: j.Grade, DaysBefore: int32(asofday.Age(a, p))})
	}
	return qs, rels, nil
}

// WriteParquet checks the fixture and writes docs.parquet, questions.parquet and
// qrels.parquet into dir (zstd, rows in file order). The output depends only on the fixture
// and the parquet-go version (its encoders), so a rerun writes the same bytes.
func (f *Fixture) WriteParquet(dir string) error {
	if err := f.Check(); err != nil {
		return err
	}
	qs, rels, err := f.Rows()
	if err != nil {
		return err
	}
	docs := make([]schemas.Document, len(f.Docs))
	for i, d := range f.Docs {
		d.PublishedAt = d.PublishedAt.UTC()
		docs[i] = d
	}
	if err := writeParquet(filepath.Join(dir, DocsParquet), docs); err != nil {
		return err
	}
	if err := writeParquet(filepath.Join(dir, QuestionsParquet), qs); err != nil {
		return err
	}
	return writeParquet(filepath.Join(dir, QrelsParquet), rels)
}

// createdBy is the created_by field of the fixture's Parquet files.
const createdBy = "github.com/asofrag/asof/evalsets/zh-news-fixture"

func writeParquet[T any](path string, rows []T) error {
	var buf bytes.Buffer
	// A fixed created_by: parquet-go's default reads the build info, which a test binary lacks.
	opts := []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.CreatedBy(createdBy, "1", "")}
	if err := parquet.Write(&buf, rows, opts...); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
