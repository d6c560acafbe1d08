package activities

import (
	"testing"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/retrieve/retrievetest"
)

// TestEvalRunCountsANextDayDocumentAsALeak: a no-mask system that ranks a document published at
// the first instant after the anchor's day counts it as a leak (the boundary of asofday, the
// same everywhere), instead of failing the batch when the context refuses it.
func TestEvalRunCountsANextDayDocumentAsALeak(t *testing.T) {
	asOf := retrievetest.Day("2023-06-30")
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", []retrievetest.Doc{
		{ID: "before", Text: "nba finals game five", Source: "a", PublishedAt: asOf.Add(23*time.Hour + 59*time.Minute), Vec: retrievetest.Unit(0.6, 0.8)},
		{ID: "next-midnight", Text: "nba finals champions crowned", Source: "b", PublishedAt: asOf.AddDate(0, 0, 1), Vec: retrievetest.Unit(1, 0)},
	})}
	q := EvalQuestionRef{ID: "q", AsOf: asOf, Question: "nba finals"}
	for _, name := range []string{"hybrid_nomask", "hybrid_nomask+dedup", "temporal_rrf"} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseEvalSystem(name)
			if err != nil {
				t.Fatal(err)
			}
			ranked, dates, err := evalRun(shards, s, q, retrievetest.Unit(1, 0), nil)
			if err != nil {
				t.Fatalf("the batch failed: %v", err)
			}
			pq := eval.Score(eval.Query{ID: q.ID, AsOf: q.AsOf, Results: ranked})
			fr := eval.ContextFreshness(q.AsOf, dates)
			wantLeaks := 0
			if s.nomask {
				wantLeaks = 1
			}
			if pq.Leaked != wantLeaks || fr.Leaked != wantLeaks {
				t.Fatalf("leaked %d in the ranking and %d in the context, want %d (ranked %v)", pq.Leaked, fr.Leaked, wantLeaks, ranked)
			}
		})
	}
}
