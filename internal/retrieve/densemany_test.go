package retrieve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestDenseManyEqualsSearch: a batch of questions (their own anchors, windows, ranges, sources
// and modes) whose dense branches ran ahead in one DenseMany ranks exactly as Search ranks each
// question alone; and the cache really takes the dense branch from the batch (a batch with its
// hits reversed changes the rankings).
func TestDenseManyEqualsSearch(t *testing.T) {
	words := []string{"zork", "quix", "blat", "frob"}
	sources := []string{"a", "b"}
	rng := rand.New(rand.NewPCG(16, 3))
	const dim = 64 // the multi-query kernel's step is 32
	var shards []*Shard
	for s := range 3 {
		var fx []fixture
		for i := range 150 {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			text := words[rng.IntN(4)] + " " + words[rng.IntN(4)]
			date := d("2022-01-01").AddDate(0, 0, s*120+rng.IntN(200)).Format(time.DateOnly)
			fx = append(fx, fixture{fmt.Sprintf("s%d-%d", s, i), text, sources[rng.IntN(2)], date, unit(v...), nil})
		}
		shards = append(shards, makeShard(t, fmt.Sprint("shard", s), fx))
	}
	type question struct {
		query string
		vec   []float32
		asOf  time.Time
		o     Options
	}
	var qs []question
	var dq []DenseQuery
	for q := range 21 { // not a multiple of the 8-query block
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		o := DefaultOptions()
		o.Mode = []Mode{Recency, Hybrid, Decay, Dense, Evolution, BM25}[q%6]
		o.WindowDays = []int{0, 30, 365}[rng.IntN(3)]
		o.TopNEach = []int{5, 40, 500}[rng.IntN(3)]
		o.K = 20
		if rng.IntN(4) == 0 {
			o.Sources = []string{sources[rng.IntN(2)]}
		}
		if rng.IntN(4) == 0 {
			o.From = d("2022-03-01")
			o.To = d("2022-09-01")
		}
		qs = append(qs, question{words[rng.IntN(4)], unit(v...), d("2022-01-01").AddDate(0, 0, rng.IntN(500)), o})
		if q == 20 { // a second system of question 0: same vector and mask, shallower
			o := qs[0].o
			o.TopNEach, o.KRRF = 5, 10
			qs = append(qs, question{qs[0].query, qs[0].vec, qs[0].asOf, o})
		}
	}
	for _, q := range qs {
		dq = append(dq, DenseQuery{Vec: q.vec, AsOf: q.asOf, Options: q.o})
	}
	batch, err := DenseMany(shards, dq)
	if err != nil {
		t.Fatal(err)
	}
	ranking := func(cs []Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s r%d/%d/%d %v %.9f", c.Chunk.ChunkID, c.RankDense, c.RankBM25, c.RankTime, c.Cos, c.Score))
		}
		return out
	}
	check := func(b *DenseBatch) (same int) {
		for i, q := range qs {
			want, err := Search(shards, q.query, q.vec, q.asOf, q.o)
			if err != nil {
				t.Fatal(err)
			}
			c := &Cache{Dense: b}
			got, err := c.Search(shards, q.query, q.vec, q.asOf, q.o)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(ranking(got.Candidates), ranking(want.Candidates)) && slices.Equal(ranking(got.Results), ranking(want.Results)) {
				same++
			} else if b == batch {
				t.Errorf("question %d (%s, A %s, %+v): batched ranking differs\n got %v\nwant %v", i, q.o.Mode, q.asOf.Format(time.DateOnly), q.o, ranking(got.Results), ranking(want.Results))
			}
		}
		return same
	}
	check(batch)
	if len(batch.m) == 0 {
		t.Fatal("the batch holds no dense branch")
	}
	// Reversed hits: every question whose dense branch came from the batch must now differ.
	bad := &DenseBatch{first: batch.first, nShards: batch.nShards, m: map[denseKey]denseEntry{}}
	for k, e := range batch.m {
		e.hits = slices.Clone(e.hits)
		slices.Reverse(e.hits)
		bad.m[k] = e
	}
	if same := check(bad); same > len(qs)-len(batch.m) {
		t.Fatalf("%d of %d questions rank the same with reversed batch hits: the cache does not use the batch", same, len(qs))
	}
}
