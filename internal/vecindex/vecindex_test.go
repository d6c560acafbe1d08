package vecindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
)

func randomFlat(rng *rand.Rand, n, dim int) *Flat {
	f := New(dim, "e5-small-v2")
	for range n {
		v := make([]float32, dim)
		var norm float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			norm += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		f.Add(v)
	}
	return f
}

func TestRoundTrip(t *testing.T) {
	for _, model := range []string{"", "e5-small-v2", "a-much-longer-model-identifier/with/slashes"} {
		f := randomFlat(rand.New(rand.NewPCG(1, 2)), 17, 5)
		f.Model = model
		var buf bytes.Buffer
		n, err := f.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
		}
		if hdr := buf.Len() - 17*5*4; hdr%64 != 0 {
			t.Fatalf("header of %d bytes is not 64-byte aligned", hdr)
		}
		g, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if g.Dim != 5 || g.Count != 17 || g.Model != model || !equal(f.Data, g.Data) {
			t.Fatalf("round trip changed the shard: %+v", g)
		}
	}
}

func equal(a, b []float32) bool {
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

func TestReadRejectsDamagedFiles(t *testing.T) {
	f := randomFlat(rand.New(rand.NewPCG(1, 2)), 4, 3)
	var buf bytes.Buffer
	f.WriteTo(&buf)
	good := buf.Bytes()
	tests := map[string][]byte{
		"empty":       nil,
		"bad magic":   append([]byte("NOTAVEC1"), good[8:]...),
		"truncated":   good[:len(good)-3],
		"extra bytes": append(append([]byte{}, good...), 1, 2, 3, 4),
		"future version": func() []byte {
			b := append([]byte{}, good...)
			b[8] = 9
			return b
		}(),
	}
	for name, data := range tests {
		if _, err := Read(bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
	// A short file says so below ErrFormat: the reader's own error is kept in the chain.
	if _, err := Read(bytes.NewReader(good[:len(good)-3])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: err = %v, want io.ErrUnexpectedEOF in the chain", err)
	}
	if err := f.Add([]float32{1}); err == nil {
		t.Error("Add accepted a vector of the wrong dim")
	}
}

// TestSearchMatchesBruteForceAndNeverLeaks compares Search with a full sort on random shards
// and masks, and checks that no masked row is ever returned.
func TestSearchMatchesBruteForceAndNeverLeaks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 200 {
		n, dim := 1+rng.IntN(300), 1+rng.IntN(40)
		f := randomFlat(rng, n, dim)
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
		got, err := f.Search(q, k, mask)
		if err != nil {
			t.Fatal(err)
		}
		var want []Hit
		for i := range n {
			if mask.Allowed(i) {
				want = append(want, Hit{i, Dot(q, f.Row(i))})
			}
		}
		sort.Slice(want, func(a, b int) bool { return better(want[a], want[b]) })
		if len(want) > k {
			want = want[:k]
		}
		if len(got) != len(want) {
			t.Fatalf("iter %d: %d hits, want %d", iter, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("iter %d hit %d: %+v, want %+v", iter, i, got[i], want[i])
			}
			if !mask.Allowed(got[i].Row) {
				t.Fatalf("iter %d: masked row %d returned", iter, got[i].Row)
			}
		}
	}
}

func TestSearchEdges(t *testing.T) {
	f := randomFlat(rand.New(rand.NewPCG(5, 6)), 10, 4)
	if _, err := f.Search([]float32{1}, 3, nil); err == nil {
		t.Fatal("wrong query dim accepted")
	}
	if hits, _ := f.Search(f.Row(0), 0, nil); len(hits) != 0 {
		t.Fatal("k=0 returned hits")
	}
	if hits, _ := f.Search(f.Row(0), 3, NewMask(10)); len(hits) != 0 {
		t.Fatal("an all-masked shard returned hits")
	}
	hits, _ := f.Search(f.Row(7), 1, nil)
	if len(hits) != 1 || hits[0].Row != 7 {
		t.Fatalf("a vector's nearest neighbour should be itself: %+v", hits)
	}
	if m := NewMask(70); m.Count(70) != 0 || Mask(nil).Count(5) != 5 {
		t.Fatal("Mask.Count")
	}
}

// BenchmarkSearch scans a realtimeqa-sized shard (26,776 × 384) for one query.
func BenchmarkSearch(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(7, 8)), 26776, 384)
	q := f.Row(123)
	b.SetBytes(int64(len(f.Data) * 4))
	for b.Loop() {
		f.Search(q, 500, nil)
	}
}

// BenchmarkSearch100k scans 100,000 × 384 vectors with half the rows masked out (an as-of
// window), top 500.
func BenchmarkSearch100k(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	mask := NewMask(f.Count)
	for i := 0; i < f.Count; i += 2 {
		mask.Allow(i)
	}
	q := f.Row(321)
	b.SetBytes(int64(len(f.Data) * 4))
	for b.Loop() {
		f.Search(q, 500, mask)
	}
}

// TestDotKernelMatchesGeneric: the assembly kernel and the portable loop agree (to float32
// rounding) for every length around the 32-float step, and on unaligned slices.
func TestDotKernelMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]float32, 1100)
	for i := range buf {
		buf[i] = float32(rng.NormFloat64())
	}
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 384, 385, 1000} {
		for _, off := range []int{0, 1, 3} {
			a, b := buf[off:off+n], buf[50+off:50+off+n]
			got, want := Dot(a, b), dotGeneric(a, b)
			var exact float64
			for i := range a {
				exact += float64(a[i]) * float64(b[i])
			}
			if d := math.Abs(float64(got) - exact); d > 1e-4*math.Max(1, math.Abs(exact)) {
				t.Errorf("n %d off %d: Dot %v, exact %v, generic %v", n, off, got, exact, want)
			}
		}
	}
	t.Logf("AVX2 kernel in use: %v", useAVX2)
}

func BenchmarkDot384(b *testing.B) {
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
	}
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			Dot(x, y)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			dotGeneric(x, y)
		}
	})
}

// BenchmarkSearch100kNoMask is the unmasked scan of 100,000 × 384 (the FAISS IndexFlatIP
// comparison in BENCHMARKS.md).
func BenchmarkSearch100kNoMask(b *testing.B) {
	f := randomFlat(rand.New(rand.NewPCG(9, 10)), 100000, 384)
	q := f.Row(321)
	// ASOF_BENCH_VECTORS=FILE also writes the vectors (raw little-endian float32, row-major)
	// for the FAISS peer (bench/search_peer.py): the same vectors on both sides.
	if p := os.Getenv("ASOF_BENCH_VECTORS"); p != "" {
		raw := make([]byte, 4*len(f.Data))
		for i, v := range f.Data {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(f.Data) * 4))
	for b.Loop() {
		f.Search(q, 500, nil)
	}
}

// BenchmarkMemcpy is the memory-bandwidth bound a scan is compared with: copying 256 MiB
// (bytes/s reported = bytes read).
func BenchmarkMemcpy(b *testing.B) {
	src, dst := make([]byte, 256<<20), make([]byte, 256<<20)
	copy(dst, src) // fault the pages in first
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}
