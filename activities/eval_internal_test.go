package activities

import (
	"fmt"
	"slices"
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
			ranked, dates, err := evalRun(nil, shards, s, q, retrievetest.Unit(1, 0), nil)
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

// TestEvalSystemParams: a sweep's variant names its fusion parameters after "@"; bad ones are
// refused with the reason.
func TestEvalSystemParams(t *testing.T) {
	tests := []struct {
		name, system string
		ok           bool
		check        func(retrieve.Options) bool
	}{
		{"weights and style", "temporal_rrf@wd=0.5,wb=1.5,wt=1,k=30,tr=days", true, func(o retrieve.Options) bool {
			return o.Weights.Dense == 0.5 && o.Weights.BM25 == 1.5 && o.Weights.Time == 1 && o.KRRF == 30 && o.TimeRank == retrieve.TimeRankDays
		}},
		{"window, depth, boost", "auto+dedup@win=90,top=200,fb=2", true, func(o retrieve.Options) bool {
			return o.WindowDays == 90 && o.TopNEach == 200 && o.FreshBoost == 2
		}},
		{"unknown key", "temporal_rrf@foo=1", false, nil},
		{"repeated key", "temporal_rrf@wt=1,wt=2", false, nil},
		{"not a number", "temporal_rrf@wt=high", false, nil},
		{"negative", "temporal_rrf@wt=-1", false, nil},
		{"unknown style", "temporal_rrf@tr=weeks", false, nil},
		{"invalid options", "temporal_rrf@k=0", false, nil},
		{"no value", "temporal_rrf@wt", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseEvalSystem(tt.system)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseEvalSystem(%q) error %v, want ok=%v", tt.system, err, tt.ok)
			}
			if !tt.ok {
				return
			}
			o := retrieve.DefaultOptions()
			s.apply(&o)
			if !tt.check(o) {
				t.Fatalf("ParseEvalSystem(%q) applied %+v", tt.system, o)
			}
		})
	}
}

// TestEvalVariantScoresWhatAskRanks: a variant that sets ask's defaults ranks, through the
// strict shortcut and a cache shared with other variants, exactly what the plain system ranks;
// a variant with other weights ranks differently.
func TestEvalVariantScoresWhatAskRanks(t *testing.T) {
	asOf := retrievetest.Day("2023-06-30")
	var docs []retrievetest.Doc
	words := []string{"finals", "game", "champions", "trade", "coach", "season"}
	for i := range 40 {
		docs = append(docs, retrievetest.Doc{ID: fmt.Sprintf("d%02d", i), Text: "nba " + words[i%len(words)] + " " + words[(i*7)%len(words)],
			Source: fmt.Sprint("s", i%5), PublishedAt: asOf.AddDate(0, 0, -(i*37)%300), Vec: retrievetest.Unit(float32(i%7)+1, float32(i%3)+0.5)})
	}
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", docs)}
	q := EvalQuestionRef{ID: "q", AsOf: asOf, Question: "nba finals champions"}
	vec := retrievetest.Unit(2, 1)
	run := func(cache *retrieve.Cache, name string) []string {
		s, err := ParseEvalSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		ranked, _, err := evalRun(cache, shards, s, q, vec, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range ranked {
			ids = append(ids, r.DocID)
		}
		return ids
	}
	want := run(nil, "temporal_rrf")
	cache := &retrieve.Cache{MinTopN: 500}
	other := run(cache, "temporal_rrf@wt=3,tr=competition,k=5")
	if got := run(cache, "temporal_rrf@wb=0.75,wt=1.2,k=30,tr=days"); !slices.Equal(got, want) {
		t.Fatalf("variant with ask's defaults ranked\n%v\nwant\n%v", got, want)
	}
	if slices.Equal(other, want) {
		t.Fatalf("a variant with other weights ranked the same list: the parameters are not applied")
	}
}
