package eval_test

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

// The public judged Russian as-of dev set (evalsets/tg-finance-ru-dev/README.md). Its
// documents stay in ../shared/data, next to the repository.
const (
	devSetDir  = "../../evalsets/tg-finance-ru-dev/"
	devSetDocs = "../../../shared/data/tg-finance-ru/docs.parquet"
)

// devQuestion is a dev-set question with the columns eval ignores (topic, kind).
type devQuestion struct {
	QuestionID   string    `parquet:"question_id"`
	QuestionDate time.Time `parquet:"question_date,timestamp(millisecond)"`
	Question     string    `parquet:"question"`
	Topic        string    `parquet:"topic"`
	Kind         string    `parquet:"kind"`
}

// devDoc is the part of a corpus row the audit needs.
type devDoc struct {
	DocID       string    `parquet:"doc_id"`
	PublishedAt time.Time `parquet:"published_at,timestamp(millisecond)"`
}

// devJudgement is one row of judgements.tsv: a qrels row with the judge's reason and the
// pool systems that surfaced the document.
type devJudgement struct {
	schemas.Qrel
	Reason   string
	PooledBy string
}

// Audit limits: grade 2 is published 0–14 days before the anchor (0–6 for "this week"
// questions), grade 1 at most 365 days before.
const (
	freshDays    = 14
	weekDays     = 6
	relevantDays = 365
)

var devIDPattern = regexp.MustCompile(`^ru-dev-\d\d$`)

// auditDevSet returns every violation of the dev set's rules; published holds the corpus's
// publication times (nil when the corpus is absent: the checks that need it are skipped).
func auditDevSet(qs []devQuestion, qrels []schemas.Qrel, published map[string]time.Time) []string {
	var bad []string
	anchor := map[string]devQuestion{}
	for _, q := range qs {
		switch {
		case !devIDPattern.MatchString(q.QuestionID):
			bad = append(bad, fmt.Sprintf("question id %q is not ru-dev-NN", q.QuestionID))
		case anchor[q.QuestionID].QuestionID != "":
			bad = append(bad, fmt.Sprintf("question %s appears twice", q.QuestionID))
		case !q.QuestionDate.Equal(asofday.Start(q.QuestionDate)):
			bad = append(bad, fmt.Sprintf("question %s: question_date %s is not a UTC midnight", q.QuestionID, q.QuestionDate))
		case strings.TrimSpace(q.Question) == "":
			bad = append(bad, fmt.Sprintf("question %s is empty", q.QuestionID))
		case !slices.Contains([]string{"topic", "full", "week"}, q.Kind):
			bad = append(bad, fmt.Sprintf("question %s: kind %q is not topic, full or week", q.QuestionID, q.Kind))
		}
		anchor[q.QuestionID] = q
	}
	relevant := map[string]int{}
	pair := map[[2]string]bool{}
	for _, r := range qrels {
		q, ok := anchor[r.QuestionID]
		where := fmt.Sprintf("qrel %s/%s", r.QuestionID, r.DocID)
		if !ok {
			bad = append(bad, where+": unknown question")
			continue
		}
		if pair[[2]string{r.QuestionID, r.DocID}] {
			bad = append(bad, where+": judged twice")
		}
		pair[[2]string{r.QuestionID, r.DocID}] = true
		fresh := freshDays
		if q.Kind == "week" {
			fresh = weekDays
		}
		switch {
		case r.Grade < 0 || r.Grade > 2:
			bad = append(bad, fmt.Sprintf("%s: grade %d is not 0, 1 or 2", where, r.Grade))
		case r.DaysBefore < 0:
			bad = append(bad, fmt.Sprintf("%s: published %d days after the anchor", where, -r.DaysBefore))
		case r.Grade == 2 && int(r.DaysBefore) > fresh:
			bad = append(bad, fmt.Sprintf("%s: grade 2 at %d days (at most %d)", where, r.DaysBefore, fresh))
		case r.Grade == 1 && r.DaysBefore > relevantDays:
			bad = append(bad, fmt.Sprintf("%s: grade 1 at %d days (at most %d)", where, r.DaysBefore, relevantDays))
		}
		if r.Grade > 0 {
			relevant[r.QuestionID]++
		}
		if published == nil {
			continue
		}
		at, ok := published[r.DocID]
		switch {
		case !ok:
			bad = append(bad, where+": no such document in the corpus")
		case !asofday.Allows(q.QuestionDate, at):
			bad = append(bad, fmt.Sprintf("%s: published %s, after the anchor %s", where, at.Format(time.DateOnly), q.QuestionDate.Format(time.DateOnly)))
		case asofday.Age(q.QuestionDate, at) != int(r.DaysBefore):
			bad = append(bad, fmt.Sprintf("%s: days_before %d, but the dates give %d", where, r.DaysBefore, asofday.Age(q.QuestionDate, at)))
		}
	}
	for _, q := range qs {
		if relevant[q.QuestionID] == 0 {
			bad = append(bad, fmt.Sprintf("question %s has no relevant judged document", q.QuestionID))
		}
	}
	return bad
}

func TestAuditDevSet(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 3, d, 0, 0, 0, 0, time.UTC) }
	qs := []devQuestion{
		{QuestionID: "ru-dev-01", QuestionDate: day(20), Question: "ключевая ставка", Topic: "keyrate", Kind: "topic"},
		{QuestionID: "ru-dev-02", QuestionDate: day(20), Question: "Что нового на этой неделе?", Topic: "oil", Kind: "week"},
	}
	published := map[string]time.Time{"a": day(19).Add(23 * time.Hour), "b": day(1), "late": day(21), "edge": day(20).Add(23*time.Hour + 59*time.Minute)}
	ok := []schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "a", Grade: 2, DaysBefore: 1}, {QuestionID: "ru-dev-02", DocID: "a", Grade: 2, DaysBefore: 1}}
	for _, tc := range []struct {
		name      string
		qs        []devQuestion
		qrels     []schemas.Qrel
		published map[string]time.Time
		want      string // a substring of the one violation expected; empty for none
	}{
		{name: "valid", qs: qs, qrels: ok, published: published},
		{name: "valid without the corpus", qs: qs, qrels: ok},
		{name: "the anchor's last minute is allowed", qs: qs, published: published,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "edge", Grade: 2, DaysBefore: 0}}, ok[1])},
		{name: "published after the anchor", qs: qs, published: published,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "late", Grade: 0, DaysBefore: 0}}, ok...), want: "after the anchor"},
		{name: "negative days_before", qs: qs,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "late", Grade: 0, DaysBefore: -1}}, ok...), want: "days after the anchor"},
		{name: "days_before disagrees with the dates", qs: qs, published: published,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "b", Grade: 1, DaysBefore: 18}}, ok...), want: "the dates give 19"},
		{name: "grade 2 too old", qs: qs, published: published,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "b", Grade: 2, DaysBefore: 19}}, ok...), want: "grade 2 at 19 days"},
		{name: "grade 2 older than a week for a week question", qs: qs,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-02", DocID: "c", Grade: 2, DaysBefore: 7}}, ok...), want: "grade 2 at 7 days (at most 6)"},
		{name: "grade 1 older than a year", qs: qs,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "c", Grade: 1, DaysBefore: 400}}, ok...), want: "grade 1 at 400 days"},
		{name: "unknown document", qs: qs, published: published,
			qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "zz", Grade: 0, DaysBefore: 3}}, ok...), want: "no such document"},
		{name: "unknown question", qs: qs, qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-99", DocID: "a", Grade: 0}}, ok...), want: "unknown question"},
		{name: "judged twice", qs: qs, qrels: append([]schemas.Qrel{ok[0]}, ok...), want: "judged twice"},
		{name: "grade out of range", qs: qs, qrels: append([]schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "b", Grade: 3, DaysBefore: 19}}, ok...), want: "grade 3"},
		{name: "a question without a relevant document", qs: qs, qrels: ok[:1], want: "ru-dev-02 has no relevant"},
		{name: "only grade 0 judged", qs: qs[:1], qrels: []schemas.Qrel{{QuestionID: "ru-dev-01", DocID: "a", Grade: 0, DaysBefore: 1}}, want: "no relevant"},
		{name: "bad id", qs: []devQuestion{{QuestionID: "q1", QuestionDate: day(20), Question: "x", Kind: "full"}},
			qrels: []schemas.Qrel{{QuestionID: "q1", DocID: "a", Grade: 1, DaysBefore: 1}}, want: "not ru-dev-NN"},
		{name: "anchor with a time of day", qs: []devQuestion{{QuestionID: "ru-dev-01", QuestionDate: day(20).Add(time.Hour), Question: "x", Kind: "full"}},
			qrels: ok[:1], want: "not a UTC midnight"},
		{name: "unknown kind", qs: []devQuestion{{QuestionID: "ru-dev-01", QuestionDate: day(20), Question: "x", Kind: "news"}},
			qrels: ok[:1], want: "kind \"news\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auditDevSet(tc.qs, tc.qrels, tc.published)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("violations %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Fatalf("violations %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// readJudgements reads judgements.tsv (question_id, doc_id, grade, days_before, reason,
// pooled_by).
func readJudgements(path string) ([]devJudgement, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.LazyQuotes = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if want := []string{"question_id", "doc_id", "grade", "days_before", "reason", "pooled_by"}; !slices.Equal(head, want) {
		return nil, fmt.Errorf("%s: header %q, want %q", path, head, want)
	}
	var out []devJudgement
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		g, err1 := strconv.Atoi(rec[2])
		d, err2 := strconv.Atoi(rec[3])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, devJudgement{Qrel: schemas.Qrel{QuestionID: rec[0], DocID: rec[1], Grade: int32(g), DaysBefore: int32(d)}, Reason: rec[4], PooledBy: rec[5]})
	}
}

// TestDevSet checks the committed dev set: it loads with eval's own row types, keeps the
// grading rules, agrees with its human-readable judgements, and — where ../shared/data is
// present — names only real documents published on or before each anchor's day.
func TestDevSet(t *testing.T) {
	qs, err := parquet.ReadFile[devQuestion](devSetDir + "questions.parquet")
	if err != nil {
		t.Fatal(err)
	}
	asEval, err := parquet.ReadFile[schemas.EvalQuestion](devSetDir + "questions.parquet")
	if err != nil {
		t.Fatalf("questions.parquet does not load as eval's questions: %v", err)
	}
	qrels, err := parquet.ReadFile[schemas.Qrel](devSetDir + "qrels.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(asEval) != len(qs) || len(qs) < 40 || len(qrels) < 10*len(qs) {
		t.Fatalf("%d questions (%d as eval reads them), %d qrels: want at least 40 questions and 10 judged documents each", len(qs), len(asEval), len(qrels))
	}
	topics := map[string]bool{}
	for i, q := range qs {
		if asEval[i].QuestionID != q.QuestionID || !asEval[i].QuestionDate.Equal(q.QuestionDate) || asEval[i].Question != q.Question {
			t.Fatalf("row %d reads differently as eval's question: %+v vs %+v", i, asEval[i], q)
		}
		topics[q.Topic] = true
	}
	if len(topics) < 8 {
		t.Errorf("%d topics, want at least 8", len(topics))
	}

	var published map[string]time.Time
	if docs, err := parquet.ReadFile[devDoc](devSetDocs); err != nil {
		t.Logf("corpus checks skipped: %v", err)
	} else {
		published = make(map[string]time.Time, len(docs))
		for _, d := range docs {
			published[d.DocID] = d.PublishedAt
		}
	}
	for _, v := range auditDevSet(qs, qrels, published) {
		t.Error(v)
	}

	js, err := readJudgements(devSetDir + "judgements.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != len(qrels) {
		t.Fatalf("judgements.tsv has %d rows, qrels.parquet %d", len(js), len(qrels))
	}
	for i, j := range js {
		if j.Qrel != qrels[i] {
			t.Errorf("row %d: judgements.tsv %+v, qrels.parquet %+v", i+1, j.Qrel, qrels[i])
		}
		if strings.TrimSpace(j.Reason) == "" || strings.TrimSpace(j.PooledBy) == "" {
			t.Errorf("row %d (%s/%s): no reason or no pool system", i+1, j.QuestionID, j.DocID)
		}
	}
	if published == nil {
		t.Skip("../shared/data absent: the documents' existence and dates were not checked")
	}
}
