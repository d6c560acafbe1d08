package evalrun

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/schemas"
)

func TestPlanQuestions(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	qs := []schemas.EvalQuestion{
		{QuestionID: "c", QuestionDate: d("2023-03-02"), Question: " qc "},
		{QuestionID: "a", QuestionDate: d("2023-01-02").Add(15 * time.Hour), Question: "qa"},
		{QuestionID: "b", QuestionDate: d("2023-02-02"), Question: "oil prices this week"},
		{QuestionID: "x", QuestionDate: d("2023-01-05"), Question: "unjudged"},
		{QuestionID: "old", QuestionDate: d("2019-01-01"), Question: "too old"},
	}
	judged := map[string]bool{"a": true, "b": true, "c": true, "old": true}
	ids := func(p Plan) [][]string {
		var out [][]string
		for _, b := range p.Batches {
			var ids []string
			for _, q := range b {
				ids = append(ids, q.ID)
			}
			out = append(out, ids)
		}
		return out
	}
	tests := []struct {
		name                         string
		o                            PlanOptions
		batches                      [][]string
		questions, unjudged, outSpan int
		err                          error
	}{
		{"all, sorted, in batches", PlanOptions{BatchSize: 2}, [][]string{{"a", "b"}, {"c", "old"}}, 4, 1, 0, nil},
		{"inside the span", PlanOptions{From: d("2022-01-01"), To: d("2023-02-02"), BatchSize: 10}, [][]string{{"a", "b"}}, 2, 1, 2, nil},
		{"a batch size below 1 is 1", PlanOptions{From: d("2023-03-01")}, [][]string{{"c"}}, 1, 1, 3, nil},
		{"nothing in the span", PlanOptions{From: d("2030-01-01"), BatchSize: 2}, nil, 0, 1, 4, ErrNoQuestions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanQuestions(qs, judged, tt.o)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if got := ids(p); !reflect.DeepEqual(got, tt.batches) {
				t.Fatalf("batches %v, want %v", got, tt.batches)
			}
			if p.Questions != tt.questions || p.Unjudged != tt.unjudged || p.OutOfSpan != tt.outSpan {
				t.Fatalf("counts %d kept, %d unjudged, %d out of span; want %d, %d, %d", p.Questions, p.Unjudged, p.OutOfSpan, tt.questions, tt.unjudged, tt.outSpan)
			}
		})
	}
	t.Run("a question is its trimmed text on its day, with auto's text when it differs", func(t *testing.T) {
		p, err := PlanQuestions(qs, judged, PlanOptions{BatchSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := []Planned{
			{ID: "a", AsOf: d("2023-01-02"), Question: "qa"},
			{ID: "b", AsOf: d("2023-02-02"), Question: "oil prices this week", AutoText: "oil prices"},
			{ID: "c", AsOf: d("2023-03-02"), Question: "qc"},
			{ID: "old", AsOf: d("2019-01-01"), Question: "too old"},
		}
		if !reflect.DeepEqual(p.Batches[0], want) {
			t.Fatalf("planned\n %+v\nwant\n %+v", p.Batches[0], want)
		}
	})
	t.Run("a sample is the same for a seed and differs across seeds", func(t *testing.T) {
		seen := map[string]bool{}
		for seed := range uint64(20) {
			one, err := PlanQuestions(qs, judged, PlanOptions{Limit: 2, Seed: seed, BatchSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			again, _ := PlanQuestions(qs, judged, PlanOptions{Limit: 2, Seed: seed, BatchSize: 5})
			if !reflect.DeepEqual(ids(one), ids(again)) || one.Questions != 2 || len(one.Batches[0]) != 2 || one.Batches[0][0].ID >= one.Batches[0][1].ID {
				t.Fatalf("seed %d sampled %v then %v: want the same 2, sorted", seed, ids(one), ids(again))
			}
			seen[one.Batches[0][0].ID+one.Batches[0][1].ID] = true
		}
		if len(seen) < 2 {
			t.Fatalf("20 seeds sampled one pair %v: the seed is not used", seen)
		}
	})
}

func TestCheckQuestions(t *testing.T) {
	long := strings.Repeat("a", querycap.MaxBytes+1)
	tests := []struct {
		name string
		qs   []schemas.EvalQuestion
		want string // the error names this question; "" no error
	}{
		{name: "none"},
		{name: "short", qs: []schemas.EvalQuestion{{QuestionID: "q1", Question: "rate?"}}},
		{name: "at the cap", qs: []schemas.EvalQuestion{{QuestionID: "q1", Question: long[1:]}}},
		{name: "second too long", qs: []schemas.EvalQuestion{{QuestionID: "q1", Question: "rate?"}, {QuestionID: "q2", Question: long}}, want: "question q2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckQuestions(tt.qs)
			if (err == nil) != (tt.want == "") || (err != nil && (!errors.Is(err, querycap.ErrTooLong) || !strings.Contains(err.Error(), tt.want))) {
				t.Fatalf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}
