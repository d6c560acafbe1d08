package evalrun

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/retrieve/retrievetest"
)

// TestRunCountsANextDayDocumentAsALeak: a no-mask system that ranks a document published at
// the first instant after the anchor's day counts it as a leak (the boundary of asofday, the
// same everywhere), instead of failing the batch when the context refuses it.
func TestRunCountsANextDayDocumentAsALeak(t *testing.T) {
	asOf := retrievetest.Day("2023-06-30")
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", []retrievetest.Doc{
		{ID: "before", Text: "nba finals game five", Source: "a", PublishedAt: asOf.Add(23*time.Hour + 59*time.Minute), Vec: retrievetest.Unit(0.6, 0.8)},
		{ID: "next-midnight", Text: "nba finals champions crowned", Source: "b", PublishedAt: asOf.AddDate(0, 0, 1), Vec: retrievetest.Unit(1, 0)},
	})}
	q := Question{ID: "q", AsOf: asOf, Text: "nba finals"}
	for _, name := range []string{"hybrid_nomask", "hybrid_nomask+dedup", "temporal_rrf"} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSystem(name)
			if err != nil {
				t.Fatal(err)
			}
			ranked, dates, _, err := run(nil, shards, s, q, retrievetest.Unit(1, 0), nil)
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

// TestVariantScoresWhatAskRanks: a variant that sets ask's defaults ranks, through the
// strict shortcut and a cache shared with other variants, exactly what the plain system ranks;
// a variant with other weights ranks differently.
func TestVariantScoresWhatAskRanks(t *testing.T) {
	asOf := retrievetest.Day("2023-06-30")
	var docs []retrievetest.Doc
	words := []string{"finals", "game", "champions", "trade", "coach", "season"}
	for i := range 40 {
		docs = append(docs, retrievetest.Doc{ID: fmt.Sprintf("d%02d", i), Text: "nba " + words[i%len(words)] + " " + words[(i*7)%len(words)],
			Source: fmt.Sprint("s", i%5), PublishedAt: asOf.AddDate(0, 0, -(i*37)%300), Vec: retrievetest.Unit(float32(i%7)+1, float32(i%3)+0.5)})
	}
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", docs)}
	q := Question{ID: "q", AsOf: asOf, Text: "nba finals champions"}
	vec := retrievetest.Unit(2, 1)
	run := func(cache *retrieve.Cache, name string) []string {
		s, err := ParseSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		ranked, _, _, err := run(cache, shards, s, q, vec, nil)
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

// TestBatchDenseAheadRanksTheSame: an eval batch whose dense branches ran ahead in one pass
// per shard (retrieve.DenseMany) stores the same rows, ranking for ranking, as the batch
// ranked one search at a time; and the dense branches did run ahead.
func TestBatchDenseAheadRanksTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 33))
	words := []string{"finals", "game", "champions", "trade", "coach", "season", "inflation", "budget"}
	const dim = 64
	randVec := func() []float32 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		return retrievetest.Unit(v...)
	}
	start := retrievetest.Day("2022-01-01")
	var shards []*retrieve.Shard
	for s := range 2 {
		var docs []retrievetest.Doc
		for i := range 120 {
			docs = append(docs, retrievetest.Doc{ID: fmt.Sprintf("s%d-%03d", s, i), Text: "nba " + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))],
				Source: fmt.Sprint("src", i%4), PublishedAt: start.AddDate(0, 0, s*200+rng.IntN(300)), Vec: randVec()})
		}
		shards = append(shards, retrievetest.Shard(t, fmt.Sprint("shard", s), docs))
	}
	var questions []Question
	judged := map[string][]eval.Judged{}
	for i := range 11 { // more than one 8-query block, not a multiple of it
		q := Question{ID: fmt.Sprint("q", i), AsOf: start.AddDate(0, 0, 60+rng.IntN(500)),
			Text: "nba " + words[rng.IntN(len(words))] + []string{"", " latest", " in 2022"}[i%3], Vec: randVec()}
		questions = append(questions, q)
		judged[q.ID] = []eval.Judged{{DocID: fmt.Sprintf("s%d-%03d", i%2, rng.IntN(120)), Grade: 2}}
	}
	var systems []System
	for _, name := range append(slices.Clone(DefaultSystems), "hybrid_nomask", "temporal_rrf+dedup", "temporal_rrf@wt=3,top=50", "decay@alpha=0.2") {
		s, err := ParseSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	b := Batch{Shards: shards, Systems: systems, Questions: questions, Judged: judged}
	one, ahead0, err := b.rows(false)
	if err != nil {
		t.Fatal(err)
	}
	many, ahead, err := b.rows(true)
	if err != nil {
		t.Fatal(err)
	}
	if ahead0 != 0 || ahead < len(questions) {
		t.Fatalf("%d dense branches ran ahead (%d without), want at least one per question (%d)", ahead, ahead0, len(questions))
	}
	if len(one) != len(many) || len(one) != len(questions)*len(systems) {
		t.Fatalf("%d and %d rows for %d questions × %d systems", len(one), len(many), len(questions), len(systems))
	}
	ranked := 0
	for i := range one {
		one[i].LatencyMS, many[i].LatencyMS = 0, 0
		if !reflect.DeepEqual(one[i], many[i]) {
			t.Fatalf("row %d (%s, %s) differs:\n one at a time %+v\n dense ahead   %+v", i, one[i].QuestionID, one[i].System, one[i], many[i])
		}
		ranked += len(one[i].Ranked)
	}
	if ranked == 0 {
		t.Fatal("no system ranked anything: the comparison proves nothing")
	}
}

// TestBatchRows: a batch over an in-memory shard makes one row per question and system, in
// order, scored against the qrels: the masked system never ranks the document published after
// the anchor, the unmasked one does and counts it as a leak, a sweep's variant keeps metrics
// only, a question without qrels is not valid, and every question heartbeats once.
func TestBatchRows(t *testing.T) {
	asOf := retrievetest.Day("2024-03-10")
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", []retrievetest.Doc{
		{ID: "rel", Text: "nba finals game five recap", Source: "a", PublishedAt: asOf.AddDate(0, 0, -2), Vec: retrievetest.Unit(1, 0.1)},
		{ID: "old", Text: "nba finals schedule announced", Source: "b", PublishedAt: asOf.AddDate(0, -6, 0), Vec: retrievetest.Unit(0.9, 0.3)},
		{ID: "future", Text: "nba finals champions crowned", Source: "c", PublishedAt: asOf.AddDate(0, 0, 3), Vec: retrievetest.Unit(1, 0)},
		{ID: "other", Text: "central bank raises the key rate", Source: "d", PublishedAt: asOf.AddDate(0, 0, -1), Vec: retrievetest.Unit(0, 1)},
	})}
	var systems []System
	for _, name := range []string{"bm25", "bm25_nomask", "temporal_rrf@wt=2"} {
		s, err := ParseSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	var beats []int
	b := Batch{Shards: shards, Systems: systems,
		Questions: []Question{
			{ID: "q1", AsOf: asOf, Text: "nba finals", Vec: retrievetest.Unit(1, 0)},
			{ID: "q2", AsOf: asOf, Text: "key rate", Vec: retrievetest.Unit(0, 1)},
		},
		Judged:    map[string][]eval.Judged{"q1": {{DocID: "rel", Grade: 2}, {DocID: "future", Grade: 2}}},
		Heartbeat: func(qi int) { beats = append(beats, qi) }}
	rows, err := b.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(beats, []int{0, 1}) {
		t.Fatalf("heartbeats %v, want one per question", beats)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.QuestionID+" "+r.System)
	}
	want := []string{"q1 bm25", "q1 bm25_nomask", "q1 temporal_rrf@wt=2", "q2 bm25", "q2 bm25_nomask", "q2 temporal_rrf@wt=2"}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	masked, nomask, variant := rows[0], rows[1], rows[2]
	if slices.Contains(masked.Ranked, "future") || masked.Leaked != 0 || !slices.Contains(masked.Top10, "rel") {
		t.Errorf("bm25 ranked %v (top 10 %v), leaked %d: want rel and no document after the anchor", masked.Ranked, masked.Top10, masked.Leaked)
	}
	if !masked.Valid || masked.MRR <= 0 || masked.Recall50 != 0.5 || !masked.AsOf.Equal(asOf) {
		t.Errorf("bm25 scored %+v: want valid, rel found (recall@50 1/2: future is judged but masked)", masked)
	}
	if masked.CtxDocs == 0 || masked.CtxFreshestDays != 2 {
		t.Errorf("bm25's context: %d documents, freshest %v days old; want rel, 2 days old", masked.CtxDocs, masked.CtxFreshestDays)
	}
	if !slices.Contains(nomask.Ranked, "future") || nomask.Leaked != 1 || nomask.Leakage10 <= 0 {
		t.Errorf("bm25_nomask ranked %v, leaked %d: want the document after the anchor counted as a leak", nomask.Ranked, nomask.Leaked)
	}
	if variant.Ranked != nil || variant.Top10 != nil || !variant.Valid || variant.Recall50 != 0.5 || variant.CtxDocs != 0 {
		t.Errorf("variant row %+v: want metrics only (no ranked lists, no context)", variant)
	}
	for _, r := range rows[3:] {
		if r.Valid {
			t.Errorf("%s on the question without qrels is valid", r.System)
		}
	}
}

// TestBatchRowsReportsTheFailingQuestion: a search that fails fails the batch; one search at a
// time, the error names the question and system.
func TestBatchRowsReportsTheFailingQuestion(t *testing.T) {
	asOf := retrievetest.Day("2024-03-10")
	shards := []*retrieve.Shard{retrievetest.Shard(t, "s", []retrievetest.Doc{
		{ID: "a", Text: "nba finals", Source: "a", PublishedAt: asOf, Vec: retrievetest.Unit(1, 0)},
	})}
	s, err := ParseSystem("dense")
	if err != nil {
		t.Fatal(err)
	}
	b := Batch{Shards: shards, Systems: []System{s}, Questions: []Question{{ID: "q7", AsOf: asOf, Text: "nba", Vec: []float32{1, 0, 0}}}}
	if _, err := b.Rows(); err == nil || !strings.Contains(err.Error(), "query vector does not match the index") {
		t.Fatalf("a query vector of the wrong length: %v", err)
	}
	if _, _, err := b.rows(false); err == nil || !strings.HasPrefix(err.Error(), "question q7, system dense: ") {
		t.Fatalf("a query vector of the wrong length, one search at a time: %v", err)
	}
}

// TestVecPicksAutoVectorForAutoOnly: auto systems search with the vector of auto's text when
// there is one; every other system, and auto without one, with the question's.
func TestVecPicksAutoVectorForAutoOnly(t *testing.T) {
	q := Question{Vec: []float32{1}, AutoVec: []float32{2}}
	tests := []struct {
		name, system string
		q            Question
		want         float32
	}{
		{"auto", "auto", q, 2},
		{"auto with a suffix", "auto+dedup", q, 2},
		{"not auto", "temporal_rrf", q, 1},
		{"auto without an auto text", "auto", Question{Vec: []float32{1}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSystem(tt.system)
			if err != nil {
				t.Fatal(err)
			}
			if got := vec(tt.q, s); got[0] != tt.want {
				t.Fatalf("vector %v, want [%v]", got, tt.want)
			}
		})
	}
}
