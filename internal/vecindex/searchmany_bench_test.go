package vecindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// multiQueries are the query rows of BenchmarkSearchMany and of search_peer.py's multi-query
// setting: peerQueries first, then rows spread over the 100,000.
func multiQueries(f *Flat, n int) [][]float32 {
	qs := [][]float32{f.Row(peerQueries[0]), f.Row(peerQueries[1])}
	for i := 2; i < n; i++ {
		qs = append(qs, f.Row(i*9973%f.Count))
	}
	return qs[:n]
}

// BenchmarkSearchMany is SearchMany on BenchmarkSearchThreads' 100,000 × 384 vectors (exact
// top 500, no mask) with B = 1, 4, 8 and 32 queries per call (32: four blocks of 8; FAISS
// switches to a BLAS matrix product from 20 queries a call), on one goroutine
// (1thread) and with the rows split in two halves searched by two goroutines and each
// query's two lists merged (2threads: how retrieve searches shards). It reports queries/s
// and the bytes of vectors read per second (scan-GB/s: rows × 384 × 4 per pass, one pass per
// call and goroutine, whatever B), and the process's CPU time per query (cpu-ms/query: user +
// system, all threads; steadier than queries/s on a machine shared with other work).
func BenchmarkSearchMany(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	if p := os.Getenv("ASOF_BENCH_VECTORS"); p != "" {
		if err := writeVectors(p, f); err != nil {
			b.Fatal(err)
		}
	}
	const k = 500
	half := f.Count / 2
	lo := &Flat{Dim: f.Dim, Count: half, Model: f.Model, Data: f.Data[:half*f.Dim]}
	hi := &Flat{Dim: f.Dim, Count: f.Count - half, Model: f.Model, Data: f.Data[half*f.Dim:]}
	for _, threads := range []int{1, 2} {
		for _, bs := range []int{1, 4, 8, 32} {
			qs := multiQueries(f, bs)
			search := func() [][]Hit {
				if threads == 1 {
					h, _ := f.SearchMany(qs, k, nil)
					return h
				}
				var a, c [][]Hit
				var wg sync.WaitGroup
				wg.Go(func() { a, _ = lo.SearchMany(qs, k, nil) })
				wg.Go(func() { c, _ = hi.SearchMany(qs, k, nil) })
				wg.Wait()
				out := make([][]Hit, len(qs))
				for i := range qs {
					out[i] = mergeHits(a[i], c[i], half, k)
				}
				return out
			}
			for i, h := range search() { // the block finds what one query at a time finds
				if want, _ := f.Search(qs[i], k, nil); !equalHits(h, want) {
					b.Fatalf("%d threads, B=%d: query %d differs from Search", threads, bs, i)
				}
			}
			b.Run(fmt.Sprintf("%dthread/B%d", threads, bs), func(b *testing.B) {
				n := 0
				cpu0 := cpuTime(b)
				for b.Loop() {
					search()
					n++
				}
				b.ReportMetric((cpuTime(b)-cpu0).Seconds()*1e3/float64(n*bs), "cpu-ms/query")
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(n*bs)/sec, "queries/s")
				b.ReportMetric(float64(n)*float64(len(f.Data)*4)/sec/1e9, "scan-GB/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkInt8SearchMany is Int8.SearchMany on the same vectors (top 500, default re-scoring,
// no mask, one goroutine) with blocks of B = 1, 4 and 8 queries per call (queries/s and
// cpu-ms/query).
func BenchmarkInt8SearchMany(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	x := QuantizeInt8(f)
	for _, bs := range []int{1, 4, 8} {
		qs := multiQueries(f, bs)
		b.Run(fmt.Sprintf("1thread/B%d", bs), func(b *testing.B) {
			n := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				x.SearchMany(qs, 500, nil, 0)
				n++
			}
			b.ReportMetric((cpuTime(b)-cpu0).Seconds()*1e3/float64(n*bs), "cpu-ms/query")
			b.ReportMetric(float64(n*bs)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
