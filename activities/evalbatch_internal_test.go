package activities

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/asofrag/asof/internal/eval"
	"github.com/asofrag/asof/internal/retrieve"
	"github.com/asofrag/asof/internal/retrieve/retrievetest"
)

// TestEvalBatchDenseAheadRanksTheSame: an eval batch whose dense branches ran ahead in one pass
// per shard (retrieve.DenseMany) stores the same rows, ranking for ranking, as the batch
// ranked one search at a time; and the dense branches did run ahead.
func TestEvalBatchDenseAheadRanksTheSame(t *testing.T) {
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
	var questions []EvalQuestionRef
	var vecs [][]float32
	judged := map[string][]eval.Judged{}
	for i := range 11 { // more than one 8-query block, not a multiple of it
		q := EvalQuestionRef{ID: fmt.Sprint("q", i), AsOf: start.AddDate(0, 0, 60+rng.IntN(500)),
			Question: "nba " + words[rng.IntN(len(words))] + []string{"", " latest", " in 2022"}[i%3]}
		questions = append(questions, q)
		vecs = append(vecs, randVec())
		judged[q.ID] = []eval.Judged{{DocID: fmt.Sprintf("s%d-%03d", i%2, rng.IntN(120)), Grade: 2}}
	}
	var systems []evalSystem
	for _, name := range append(DefaultEvalSystems, "hybrid_nomask", "temporal_rrf+dedup", "temporal_rrf@wt=3,top=50", "decay@alpha=0.2") {
		s, err := ParseEvalSystem(name)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	deepest := 0
	for _, s := range systems {
		o := retrieve.DefaultOptions()
		s.apply(&o)
		deepest = max(deepest, o.TopNEach)
	}
	b := evalBatch{shards: shards, systems: systems, questions: questions, judged: judged, deepest: deepest,
		vecOf: func(qi int, _ evalSystem) []float32 { return vecs[qi] }}
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
