package vecindex

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDotInt8KernelMatchesGeneric: the AVX2 int8 kernel and the portable loop give the same
// integer for every length around the 32-value step, on unaligned slices and at the code
// extremes (±127 everywhere: the largest pair sums).
func TestDotInt8KernelMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, q := make([]int8, 1200), make([]int8, 1200)
	for i := range a {
		a[i], q[i] = int8(rng.IntN(255)-127), int8(rng.IntN(255)-127)
	}
	ext, extQ := make([]int8, 1024), make([]int8, 1024)
	for i := range ext {
		ext[i], extQ[i] = -127, -127
		if i%3 == 0 {
			extQ[i] = 127
		}
	}
	tests := []struct {
		name string
		a    []int8
		q    []int8
	}{
		{"extremes", ext, extQ},
	}
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 384, 385, 1000} {
		for _, off := range []int{0, 1, 3} {
			tests = append(tests, struct {
				name string
				a    []int8
				q    []int8
			}{name: fmt.Sprintf("n%d+%d", n, off), a: a[off : off+n], q: q[100+off : 100+off+n]})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := DotInt8(tt.a, tt.q), dotInt8Generic(tt.a, tt.q)
			var exact int64
			for i := range tt.a {
				exact += int64(tt.a[i]) * int64(tt.q[i])
			}
			if got != want || int64(got) != exact {
				t.Fatalf("DotInt8 %d, generic %d, exact %d", got, want, exact)
			}
		})
	}
	t.Logf("AVX2 kernel in use: %v", useAVX2)
}

// TestDotsInt8MatchesRows: the many-rows kernel gives each row's DotInt8, for dims on and off
// the 32-value step (off it, the per-row loop) and for 0, 1 and 64 rows.
func TestDotsInt8MatchesRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dim := range []int{32, 64, 384, 33, 7} {
		for _, rows := range []int{0, 1, 64} {
			t.Run(fmt.Sprintf("dim%d/rows%d", dim, rows), func(t *testing.T) {
				codes, q := make([]int8, rows*dim), make([]int8, dim)
				for i := range codes {
					codes[i] = int8(rng.IntN(255) - 127)
				}
				for i := range q {
					q[i] = int8(rng.IntN(255) - 127)
				}
				out := make([]int32, rows)
				DotsInt8(codes, dim, q, out)
				for r := range rows {
					if want := dotInt8Generic(codes[r*dim:(r+1)*dim], q); out[r] != want {
						t.Fatalf("row %d: %d, want %d", r, out[r], want)
					}
				}
			})
		}
	}
}

// TestInt8SearchRescoringAll: with every row a candidate (rerank ≥ rows/k), Int8.Search is
// Flat.Search exactly, hits, scores and order, with and without masks, on dims on and off the
// kernel's step.
func TestInt8SearchRescoringAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for iter := range 100 {
		n, dim := 1+rng.IntN(300), []int{384, 64, 1 + rng.IntN(40)}[rng.IntN(3)]
		f := randomFlat(rng, n, dim)
		x := QuantizeInt8(f)
		q := randomFlat(rng, 1, dim).Row(0)
		var mask Mask
		if rng.IntN(4) > 0 {
			mask = NewMask(n)
			for i := range n {
				if rng.IntN(3) == 0 {
					mask.Allow(i)
				}
			}
		}
		k := 1 + rng.IntN(50)
		want, _ := f.Search(q, k, mask)
		got, err := x.Search(q, k, mask, n)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("iter %d (n %d dim %d k %d): %v, want %v", iter, n, dim, k, got, want)
		}
	}
}

// TestQuantize: every value is within half a step of its code times the scale, the largest
// maps to ±127, and a zero vector quantizes to zeros.
func TestQuantize(t *testing.T) {
	f := randomFlat(rand.New(rand.NewPCG(7, 8)), 50, 384)
	x := QuantizeInt8(f)
	for i := range f.Count {
		s, codes := x.Scales[i], x.Codes[i*f.Dim:(i+1)*f.Dim]
		top := 0
		for j, v := range f.Row(i) {
			if d := math.Abs(float64(v) - float64(s)*float64(codes[j])); d > float64(s)/2*(1+1e-5) {
				t.Fatalf("row %d value %d: %v ≈ %v·%d, off by %v", i, j, v, s, codes[j], d)
			}
			top = max(top, int(math.Abs(float64(codes[j]))))
		}
		if top != 127 {
			t.Fatalf("row %d: largest code %d, want 127", i, top)
		}
	}
	z := make([]int8, 4)
	if s := quantize(z, make([]float32, 4)); s != 0 || z[0] != 0 {
		t.Fatalf("zero vector: scale %v codes %v", s, z)
	}
}

// TestInt8SearchRecallAndMask: on random unit vectors (the hardest case for quantization: no
// structure, near-equal scores), Int8.Search with the default re-scoring finds the exact top
// 10 and top 500 with recall ≥ 0.99, returns exact float scores in Flat.Search's order for the
// rows it finds, and never returns a masked row.
func TestInt8SearchRecallAndMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	f := randomFlat(rng, 20000, 384)
	x := QuantizeInt8(f)
	mask := NewMask(f.Count)
	for i := range f.Count {
		if rng.IntN(4) > 0 {
			mask.Allow(i)
		}
	}
	for _, k := range []int{10, 500} {
		var found, total int
		for qi := range 20 {
			q := randomFlat(rng, 1, 384).Row(0)
			want, _ := f.Search(q, k, mask)
			got, err := x.Search(q, k, mask, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("k %d query %d: %d hits, want %d", k, qi, len(got), len(want))
			}
			in := map[int]bool{}
			for _, h := range want {
				in[h.Row] = true
			}
			for i, h := range got {
				if !mask.Allowed(h.Row) {
					t.Fatalf("masked row %d returned", h.Row)
				}
				if h.Score != Dot(q, f.Row(h.Row)) {
					t.Fatalf("row %d: score %v is not its float score", h.Row, h.Score)
				}
				if i > 0 && better(h, got[i-1]) {
					t.Fatalf("k %d: not in order at %d", k, i)
				}
				if in[h.Row] {
					found++
				}
			}
			total += len(want)
		}
		recall := float64(found) / float64(total)
		t.Logf("random vectors, k %d, rerank %d: recall %.4f", k, DefaultRerank, recall)
		if recall < 0.99 {
			t.Errorf("k %d: recall %.4f < 0.99", k, recall)
		}
	}
}

// TestInt8RecallRealVectors measures recall@10 and @500 of Int8.Search against the exact float
// scan on real shard vectors: ASOF_TEST_VECTORS is a glob of vectors.f32 files (for example a
// realtimeqa index's shards/*/*/vectors.f32). The queries are the rows of ASOF_TEST_QUERIES, a
// vectors file of questions embedded as queries by the index's model (bench/queryvectors);
// without it, 200 rows spread over the shards. Two ways: one scan over every row, and the
// shards scanned one by one, each's top k merged (what retrieve's dense branch does, each
// shard with its own k·rerank candidates). Skipped when ASOF_TEST_VECTORS is unset.
func TestInt8RecallRealVectors(t *testing.T) {
	glob := os.Getenv("ASOF_TEST_VECTORS")
	if glob == "" {
		t.Skip("ASOF_TEST_VECTORS not set")
	}
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("ASOF_TEST_VECTORS %q: %v, %d files", glob, err, len(paths))
	}
	read := func(p string) *Flat {
		r, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		f, err := Read(r)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return f
	}
	var all *Flat
	var shards []*Flat
	for _, p := range paths {
		f := read(p)
		if all == nil {
			all = New(f.Dim, f.Model)
		}
		all.Data = append(all.Data, f.Data...)
		all.Count += f.Count
		shards = append(shards, f)
	}
	var queries [][]float32
	what := "passages of the index"
	if p := os.Getenv("ASOF_TEST_QUERIES"); p != "" {
		q := read(p)
		if q.Dim != all.Dim || q.Model != all.Model {
			t.Fatalf("queries are %s/%d vectors, the shards %s/%d", q.Model, q.Dim, all.Model, all.Dim)
		}
		for i := range q.Count {
			queries = append(queries, q.Row(i))
		}
		what = "embedded questions"
	} else {
		for qi := range 200 {
			queries = append(queries, all.Row(qi*all.Count/200))
		}
	}
	x := QuantizeInt8(all)
	xs := make([]*Int8, len(shards))
	for i, f := range shards {
		xs[i] = QuantizeInt8(f)
	}
	// perShard is the top k of every shard merged, rows numbered as in all.
	perShard := func(q []float32, k int, search func(i int) []Hit) []Hit {
		var hits []Hit
		base := 0
		for i, f := range shards {
			for _, h := range search(i) {
				hits = append(hits, Hit{base + h.Row, h.Score})
			}
			base += f.Count
		}
		slices.SortFunc(hits, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Row, b.Row)) })
		return hits[:min(k, len(hits))]
	}
	recall := func(want, got []Hit) (int, int) {
		in := map[int]bool{}
		for _, h := range want {
			in[h.Row] = true
		}
		n := 0
		for _, h := range got {
			if in[h.Row] {
				n++
			}
		}
		return n, len(want)
	}
	for _, rerank := range []int{1, 2, 3, 4, 8} {
		for _, k := range []int{10, 500} {
			var found, total, foundS, totalS int
			for _, q := range queries {
				want, _ := all.Search(q, k, nil)
				got, _ := x.Search(q, k, nil, rerank)
				f, n := recall(want, got)
				found, total = found+f, total+n
				wantS := perShard(q, k, func(i int) []Hit { h, _ := shards[i].Search(q, k, nil); return h })
				gotS := perShard(q, k, func(i int) []Hit { h, _ := xs[i].Search(q, k, nil, rerank); return h })
				f, n = recall(wantS, gotS)
				foundS, totalS = foundS+f, totalS+n
			}
			t.Logf("%d real vectors (%d shards), %d queries (%s), k %d, rerank %d: recall %.4f one scan, %.4f shard by shard",
				all.Count, len(paths), len(queries), what, k, rerank, float64(found)/float64(total), float64(foundS)/float64(totalS))
		}
	}
}

// BenchmarkSearchInt8100k is BenchmarkSearchThreads' 1thread scan (the same 100,000 × 384
// vectors and query, one thread, `make bench` beside FAISS) over the int8 codes with the
// default re-scoring, at top 10 and top 500. It reports queries/s, the float32 bytes the scan
// stands for per second (scan-GB/s, comparable with the float scan's), and recall@k against
// the exact float scan over 100 query rows spread over the vectors.
func BenchmarkSearchInt8100k(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	x := QuantizeInt8(f)
	q := f.Row(peerQueries[0])
	for _, k := range []int{10, 500} {
		b.Run(fmt.Sprintf("k%d", k), func(b *testing.B) {
			n := 0
			for b.Loop() {
				x.Search(q, k, nil, 0)
				n++
			}
			qps := float64(n) / b.Elapsed().Seconds()
			b.ReportMetric(qps, "queries/s")
			b.ReportMetric(qps*float64(len(f.Data)*4)/1e9, "scan-GB/s")
			b.ReportMetric(0, "ns/op") // queries/s says it, per query
			var found, total int
			for i := range 100 {
				qi := f.Row(i * f.Count / 100)
				want, _ := f.Search(qi, k, nil)
				got, _ := x.Search(qi, k, nil, 0)
				in := map[int]bool{}
				for _, h := range want {
					in[h.Row] = true
				}
				for _, h := range got {
					if in[h.Row] {
						found++
					}
				}
				total += len(want)
			}
			b.ReportMetric(float64(found)/float64(total), "recall")
		})
	}
}

// BenchmarkDotInt8384 is one 384-value int8 inner product (kernel and portable loop).
func BenchmarkDotInt8384(b *testing.B) {
	a, q := make([]int8, 384), make([]int8, 384)
	for i := range a {
		a[i], q[i] = int8(i%7), int8(i%5)
	}
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			DotInt8(a, q)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			dotInt8Generic(a, q)
		}
	})
}

// BenchmarkRescore is the int8 path's float32 re-scoring alone: 1,000 candidate rows (top 500,
// factor 2) spread at random over 100,000 × 384 vectors (154 MB, far larger than the caches),
// in the order the top-k buffer leaves them.
func BenchmarkRescore(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	f := randomFlat(rng, 100000, 384)
	q := f.Row(peerQueries[0])
	cand := make([]Hit, 1000)
	for b.Loop() {
		for i := range cand {
			cand[i] = Hit{Row: rng.IntN(f.Count)}
		}
		f.rescore(q, cand, 500)
	}
}

// TestScoreBlockMatchesGo checks the int8 scan's scores at every kernel level, bit for bit,
// against Go's Scales[i]·float32(dot) over a full block and a last partial one (100 rows: 64
// and 36, off the AVX2 scaling step of 8).
func TestScoreBlockMatchesGo(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		f := randomFlat(rng, 100, 96)
		x := QuantizeInt8(f)
		q := make([]int8, f.Dim)
		quantize(q, f.Row(7))
		var dots [64]int32
		var scores [64]float32
		for b0 := 0; b0 < f.Count; b0 += 64 {
			x.scoreBlock(b0, q, &dots, &scores)
			for j := range min(64, f.Count-b0) {
				i := b0 + j
				want := x.Scales[i] * float32(DotInt8(x.Codes[i*f.Dim:(i+1)*f.Dim], q))
				if math.Float32bits(scores[j]) != math.Float32bits(want) {
					t.Fatalf("row %d: score %v, want %v", i, scores[j], want)
				}
			}
		}
	})
}
