package vecindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// peerQueries are the query rows BenchmarkSearchThreads and bench/search_peer.py (FAISS) use:
// the first for one query at a time, both for two at once.
var peerQueries = [2]int{321, 654}

// BenchmarkSearchThreads is the side-by-side with FAISS IndexFlatIP (`make bench`): the same
// 100,000 × 384 unit vectors (ASOF_BENCH_VECTORS=FILE writes them for bench/search_peer.py),
// exact top 500, no mask. Each sub-benchmark reports queries/s and the bytes of vectors
// scanned per second (scan-GB/s):
//
//   - 1thread: one query at a time on one goroutine;
//   - 2goroutines: two goroutines each scanning every row for its own query (aggregate
//     queries/s; FAISS parallelises a flat search over queries the same way);
//   - 2shards: one query at a time, the rows split in two halves searched by two goroutines
//     and the two top-500 lists merged (how retrieve's dense branch searches shards).
func BenchmarkSearchThreads(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	if p := os.Getenv("ASOF_BENCH_VECTORS"); p != "" {
		if err := writeVectors(p, f); err != nil {
			b.Fatal(err)
		}
	}
	const k = 500
	scanned := float64(len(f.Data) * 4)
	report := func(b *testing.B, queries int) {
		qps := float64(queries) / b.Elapsed().Seconds()
		b.ReportMetric(qps, "queries/s")
		b.ReportMetric(qps*scanned/1e9, "scan-GB/s")
		b.ReportMetric(0, "ns/op") // queries/s says it, per query
	}
	q0, q1 := f.Row(peerQueries[0]), f.Row(peerQueries[1])
	b.Run("1thread", func(b *testing.B) {
		n := 0
		for b.Loop() {
			f.Search(q0, k, nil)
			n++
		}
		report(b, n)
	})
	b.Run("2goroutines", func(b *testing.B) {
		n := 0
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Go(func() { f.Search(q0, k, nil) })
			wg.Go(func() { f.Search(q1, k, nil) })
			wg.Wait()
			n += 2
		}
		report(b, n)
	})
	half := f.Count / 2
	lo := &Flat{Dim: f.Dim, Count: half, Model: f.Model, Data: f.Data[:half*f.Dim]}
	hi := &Flat{Dim: f.Dim, Count: f.Count - half, Model: f.Model, Data: f.Data[half*f.Dim:]}
	b.Run("2shards", func(b *testing.B) {
		n := 0
		for b.Loop() {
			var a, c []Hit
			var wg sync.WaitGroup
			wg.Go(func() { a, _ = lo.Search(q0, k, nil) })
			wg.Go(func() { c, _ = hi.Search(q0, k, nil) })
			wg.Wait()
			mergeHits(a, c, half, k)
			n++
		}
		report(b, n)
	})
	// The shard-parallel search finds what the single scan finds.
	whole, _ := f.Search(q0, k, nil)
	a, _ := lo.Search(q0, k, nil)
	c, _ := hi.Search(q0, k, nil)
	if merged := mergeHits(a, c, half, k); !equalHits(merged, whole) {
		b.Fatal("the two-shard search differs from the single scan")
	}
}

// mergeHits merges two best-first lists, the second's rows offset by off, into the best k.
func mergeHits(a, c []Hit, off, k int) []Hit {
	out := make([]Hit, 0, k)
	i, j := 0, 0
	for len(out) < k && (i < len(a) || j < len(c)) {
		if j == len(c) || (i < len(a) && better(a[i], Hit{c[j].Row + off, c[j].Score})) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, Hit{c[j].Row + off, c[j].Score})
			j++
		}
	}
	return out
}

func equalHits(a, b []Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeVectors writes f's rows as raw little-endian float32, row-major (what search_peer.py
// reads).
func writeVectors(path string, f *Flat) error {
	raw := make([]byte, 4*len(f.Data))
	for i, v := range f.Data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, raw, 0o644)
}

// BenchmarkMemcpyParallel is the memory-bandwidth bound of the two-goroutine scans: two
// goroutines each copying their own 256 MiB (aggregate bytes read per second, as read-GB/s).
// BenchmarkMemcpy is the one-goroutine bound.
func BenchmarkMemcpyParallel(b *testing.B) {
	const size = 256 << 20
	var src, dst [2][]byte
	for i := range src {
		src[i], dst[i] = make([]byte, size), make([]byte, size)
		copy(dst[i], src[i]) // fault the pages in first
	}
	b.SetBytes(2 * size)
	for b.Loop() {
		var wg sync.WaitGroup
		for i := range src {
			wg.Go(func() { copy(dst[i], src[i]) })
		}
		wg.Wait()
	}
	b.ReportMetric(2*size*float64(b.N)/b.Elapsed().Seconds()/1e9, "read-GB/s")
}

// readSink keeps the read-bandwidth benchmarks' results.
var readSink uint64

// BenchmarkReadBandwidth is the scan's read bound: readXOR (AVX-512, AVX2 or the portable loop,
// as Kernel says) over 256 MiB, far larger than the caches, on one goroutine; it reads every
// byte once and writes nothing (read-GB/s). BenchmarkMemcpy is the copy, which also writes.
func BenchmarkReadBandwidth(b *testing.B) {
	benchRead(b, 1)
}

// BenchmarkReadBandwidthParallel is BenchmarkReadBandwidth on two goroutines, each reading its
// own 256 MiB (aggregate read-GB/s): the bound of the two-goroutine scans.
func BenchmarkReadBandwidthParallel(b *testing.B) {
	benchRead(b, 2)
}

// BenchmarkReadBandwidthShared is BenchmarkReadBandwidthParallel with both goroutines reading
// the same 256 MiB from its start at the same time, as two scans of one shard do (aggregate
// read-GB/s): where one reads a line the other has just brought in, it is served from the
// caches, so this can pass the bound of two separate buffers. It is the envelope of what two
// concurrent scans of the same rows can reach.
func BenchmarkReadBandwidthShared(b *testing.B) {
	benchReadBufs(b, 2, 1)
}

func benchRead(b *testing.B, goroutines int) {
	benchReadBufs(b, goroutines, goroutines)
}

// benchReadBufs has the goroutines read their own buffer, or share them in turn when there
// are fewer buffers than goroutines.
func benchReadBufs(b *testing.B, goroutines, buffers int) {
	const size = 256 << 20
	bufs := make([][]byte, buffers)
	for i := range bufs {
		bufs[i] = make([]byte, size)
		for j := 0; j < size; j += 4096 {
			bufs[i][j] = byte(j >> 12) // fault the pages in first
		}
	}
	sums := make([]uint64, goroutines)
	for b.Loop() {
		var wg sync.WaitGroup
		for i := range goroutines {
			wg.Go(func() { sums[i] ^= readXOR(bufs[i%buffers]) })
		}
		wg.Wait()
	}
	for _, s := range sums {
		readSink ^= s
	}
	b.ReportMetric(float64(goroutines*size)*float64(b.N)/b.Elapsed().Seconds()/1e9, "read-GB/s")
}

// BenchmarkFloatPrefetch measures the float32 AVX-512 scan's prefetch (floatAhead) on this CPU:
// one search of 100,000 × 384 rows, top 500, at each distance in turn against none (0), in a
// random order each turn, 30 turns; it reports the median ratio of each distance's time to
// none's (below 1: the prefetch helps). Run it with -benchtime 1x on a new CPU to choose
// floatAhead for it (dot_amd64.go).
func BenchmarkFloatPrefetch(b *testing.B) {
	if !useAVX512 {
		b.Skipf("the kernel level is %s: the prefetch is in the AVX-512 scan only", Kernel())
	}
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	q := f.Row(peerQueries[0])
	aheads := []int{0, 1024, 2048, 4096, 8192}
	defer func(a int) { floatAhead = a }(floatAhead)
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		ratios := make([][]float64, len(aheads))
		for range 30 {
			took := make([]float64, len(aheads))
			for _, i := range rng.Perm(len(aheads)) {
				floatAhead = aheads[i]
				start := time.Now()
				for range 5 {
					f.Search(q, 500, nil)
				}
				took[i] = time.Since(start).Seconds()
			}
			for i := range aheads {
				ratios[i] = append(ratios[i], took[i]/took[0])
			}
		}
		for i, a := range aheads[1:] {
			r := slices.Sorted(slices.Values(ratios[i+1]))
			b.ReportMetric(r[len(r)/2], fmt.Sprintf("time-ratio-%dB", a))
		}
	}
	b.ReportMetric(0, "ns/op")
}
