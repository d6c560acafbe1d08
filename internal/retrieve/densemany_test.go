package retrieve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/vecindex"
)

// TestDenseManyEqualsSearch: a batch of questions (their own anchors, windows, ranges, sources
// and modes) whose dense branches ran ahead in one DenseMany ranks exactly as Search ranks each
// question alone; and the cache really takes the dense branch from the batch (a batch with its
// hits reversed changes the rankings). With int8 codes on some shards too (scanned in int8 and
// re-scored, or in float32 where Int8Rerank is negative).
func TestDenseManyEqualsSearch(t *testing.T) {
	for _, withInt8 := range []bool{false, true} {
		t.Run(fmt.Sprintf("int8=%v", withInt8), func(t *testing.T) { denseManyEqualsSearch(t, withInt8) })
	}
}

func denseManyEqualsSearch(t *testing.T, withInt8 bool) {
	words := []string{"zork", "quix", "blat", "frob"}
	sources := []string{"a", "b"}
	rng := rand.New(rand.NewPCG(16, 3))
	const dim = 64 // the multi-query kernel's step is 32
	// With int8 codes the rows are close to one another (a shared direction plus a little
	// noise), so that int8 rounding reorders their scores and the int8 scan differs from the
	// float one.
	base := make([]float32, dim)
	for j := range base {
		base[j] = float32(rng.NormFloat64())
	}
	var shards []*Shard
	for s := range 3 {
		var fx []fixture
		for i := range 150 {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
				if withInt8 {
					v[j] = base[j] + 0.02*v[j]
				}
			}
			text := words[rng.IntN(4)] + " " + words[rng.IntN(4)]
			date := d("2022-01-01").AddDate(0, 0, s*120+rng.IntN(200)).Format(time.DateOnly)
			fx = append(fx, fixture{fmt.Sprintf("s%d-%d", s, i), text, sources[rng.IntN(2)], date, unit(v...), nil})
		}
		sh := makeShard(t, fmt.Sprint("shard", s), fx)
		if withInt8 && s != 1 {
			sh.Int8 = vecindex.QuantizeInt8(sh.Vectors)
		}
		shards = append(shards, sh)
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
		o.Int8Rerank = []int{0, 1, -1}[rng.IntN(3)]
		if withInt8 && q%3 == 0 { // an int8 scan whose candidates are not every row
			o.Int8Rerank, o.TopNEach = 1, 40
		}
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
	check := func(b *DenseBatch) (same []bool) {
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
			eq := slices.Equal(ranking(got.Candidates), ranking(want.Candidates)) && slices.Equal(ranking(got.Results), ranking(want.Results))
			if !eq && b == batch {
				t.Errorf("question %d (%s, A %s, %+v): batched ranking differs\n got %v\nwant %v", i, q.o.Mode, q.asOf.Format(time.DateOnly), q.o, ranking(got.Results), ranking(want.Results))
			}
			same = append(same, eq)
		}
		return same
	}
	check(batch)
	if withInt8 { // the data must tell the int8 scan from the float one, or the case proves nothing
		differ := 0
		for _, q := range qs {
			fo := q.o
			fo.Int8Rerank = -1
			a, err1 := Search(shards, q.query, q.vec, q.asOf, q.o)
			b, err2 := Search(shards, q.query, q.vec, q.asOf, fo)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !slices.Equal(ranking(a.Candidates), ranking(b.Candidates)) {
				differ++
			}
		}
		if differ == 0 {
			t.Fatal("no question ranks differently with the int8 scan than with the float one")
		}
	}
	// Reversed hits: every question whose dense branch the batch holds (two hits or more) must
	// now rank differently.
	bad := &DenseBatch{first: batch.first, nShards: batch.nShards, m: map[denseKey]denseEntry{}}
	for k, e := range batch.m {
		e.hits = slices.Clone(e.hits)
		slices.Reverse(e.hits)
		bad.m[k] = e
	}
	held := 0
	for i, same := range check(bad) {
		q := qs[i]
		if q.o.Mode == BM25 {
			continue
		}
		if hits, ok := batch.top(shards, q.vec, maskOf(q.asOf, q.o), q.o.TopNEach, q.o.Int8Rerank); !ok || len(hits) < 2 {
			continue
		}
		held++
		if same {
			t.Errorf("question %d ranks the same with the batch's hits reversed: the cache does not use the batch", i)
		}
	}
	if held < len(qs)/2 {
		t.Fatalf("the batch holds the dense branches of %d of %d questions", held, len(qs))
	}
}
