package eval_test

import (
	"fmt"
	"time"

	"github.com/asofrag/asof/internal/eval"
)

func Example() {
	asOf := time.Date(2023, 3, 10, 0, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2023, 3, d, 12, 0, 0, 0, time.UTC) }
	q := eval.Query{
		ID:     "q1",
		AsOf:   asOf,
		Judged: []eval.Judged{{DocID: "a", Grade: 2}, {DocID: "b", Grade: 1}, {DocID: "c", Grade: 1}},
		// Chunks of a system's ranking: b twice, and x published after the anchor day.
		Results: eval.Collapse([]eval.Ranked{
			{DocID: "b", PublishedAt: day(2)}, {DocID: "a", PublishedAt: day(9)},
			{DocID: "b", PublishedAt: day(2)}, {DocID: "x", PublishedAt: day(11)},
		}),
		LatencyMS: 42,
	}
	p := eval.Score(q)
	fmt.Printf("nDCG@10 %.3f recall@10 %.3f MRR %.2f P@10 %.1f leakage@10 %.3f fresh %d days\n",
		p.NDCG10, p.Recall10, p.MRR, p.P10, p.Leakage10, p.FreshDays)

	s := eval.Aggregate("hybrid", []eval.PerQuery{p, eval.Score(eval.Query{ID: "q2", AsOf: asOf})})
	fmt.Printf("%s: %d questions, %d skipped, %d leaked\n", s.System, s.Questions, s.Skipped, s.LeakedQuestions)
	// Output:
	// nDCG@10 0.700 recall@10 0.667 MRR 0.50 P@10 0.2 leakage@10 0.333 fresh 1 days
	// hybrid: 1 questions, 1 skipped, 1 leaked
}
