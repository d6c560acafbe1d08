package evalrun

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/asofrag/asof/internal/answer"
	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/internal/querycap"
	"github.com/asofrag/asof/schemas"
)

// ErrNoQuestions is returned by Plan when no judged question is left to evaluate.
var ErrNoQuestions = errors.New("no judged question to evaluate (check --questions/--qrels and the index's dates)")

// PlanOptions choose and batch an evaluation's questions.
type PlanOptions struct {
	// From and To keep questions dated in that range (zero: unbounded), e.g. the index's span.
	From, To time.Time
	// Limit keeps at most this many judged questions (0: all), sampled with Seed.
	Limit int
	Seed  uint64
	// BatchSize is the most questions a batch holds (at least 1).
	BatchSize int
}

// Planned is one question an evaluation asks.
// It crosses the workflow boundary in batches (activities.EvalBatchInput), hence its JSON tags.
type Planned struct {
	ID string `json:"id"`
	// AsOf is the question's day (a time of day does not shift it).
	AsOf time.Time `json:"as_of"`
	// Question is the question's text, trimmed.
	Question string `json:"question"`
	// AutoText is the query text auto mode searches and embeds (the question without its date
	// phrases, answer.Read), set only when it differs from Question: auto systems use its
	// vector, as `asof ask` would.
	AutoText string `json:"auto_text,omitempty"`
}

// Texts are what a batch embeds: each question, then the auto readings' texts that differ from
// their question (what ask embeds in auto mode), in batch order; NewBatch takes them from the
// end.
func Texts(batch []Planned) []string {
	out := make([]string, len(batch))
	for i, q := range batch {
		out[i] = q.Question
	}
	for _, q := range batch {
		if q.AutoText != "" {
			out = append(out, q.AutoText)
		}
	}
	return out
}

// Plan lists an evaluation's questions in batches.
type Plan struct {
	Batches [][]Planned
	// Questions are the judged questions kept; Unjudged had no judgements; OutOfSpan were
	// dated outside [From, To].
	Questions, Unjudged, OutOfSpan int
}

// CheckQuestions refuses a question longer than any workflow takes (querycap.Check); the
// error names the first such question.
func CheckQuestions(qs []schemas.EvalQuestion) error {
	for _, q := range qs {
		if err := querycap.Check(fmt.Sprintf("question %s", q.QuestionID), q.Question); err != nil {
			return err
		}
	}
	return nil
}

// PlanQuestions keeps the questions with judgements (judged by id) dated inside [o.From, o.To],
// sorted by id, samples o.Limit of them deterministically with o.Seed, and splits them into
// batches of o.BatchSize. It returns ErrNoQuestions, with the counts, when none is kept.
func PlanQuestions(qs []schemas.EvalQuestion, judged map[string]bool, o PlanOptions) (Plan, error) {
	var res Plan
	var keep []Planned
	for _, q := range qs {
		if !judged[q.QuestionID] {
			res.Unjudged++
			continue
		}
		d := asofday.Start(q.QuestionDate) // the anchor is a day: a time of day must not shift it
		if (!o.From.IsZero() && d.Before(o.From)) || (!o.To.IsZero() && d.After(o.To)) {
			res.OutOfSpan++
			continue
		}
		p := Planned{ID: q.QuestionID, AsOf: d, Question: strings.TrimSpace(q.Question)}
		if r, err := answer.Read(p.Question, d, answer.Auto, time.Time{}, time.Time{}); err == nil && r.Text != p.Question {
			p.AutoText = r.Text
		}
		keep = append(keep, p)
	}
	slices.SortFunc(keep, func(x, y Planned) int { return strings.Compare(x.ID, y.ID) })
	if o.Limit > 0 && len(keep) > o.Limit {
		rng := rand.New(rand.NewPCG(o.Seed, 0x61736f66))
		rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
		keep = keep[:o.Limit]
		slices.SortFunc(keep, func(x, y Planned) int { return strings.Compare(x.ID, y.ID) })
	}
	if len(keep) == 0 {
		return res, ErrNoQuestions
	}
	size := max(1, o.BatchSize)
	for i := 0; i < len(keep); i += size {
		res.Batches = append(res.Batches, keep[i:min(i+size, len(keep))])
	}
	res.Questions = len(keep)
	return res, nil
}
