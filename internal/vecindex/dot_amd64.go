package vecindex

import "golang.org/x/sys/cpu"

// cpuLevel is the best kernel level this CPU offers, and the OS saves the registers it needs
// (x/sys/cpu's AVX flags require XCR0's YMM state, its AVX-512 flags the opmask and ZMM
// state).
var cpuLevel = func() kernelLevel {
	x := cpu.X86
	switch {
	case !(x.HasAVX && x.HasAVX2 && x.HasFMA):
		return levelGeneric
	case !(x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ):
		return levelAVX2
	case !x.HasAVX512VNNI:
		return levelAVX512
	}
	return levelAVX512VNNI
}()

// floatAhead is how many bytes ahead of the rows it reads the float32 AVX-512 scan (dotsAVX512)
// asks the CPU to fetch them, 0 for not at all. Measured by BenchmarkFloatPrefetch (one search of
// 100,000 × 384 rows, top 500, each distance in turn against none): on an Intel Xeon with
// AVX-512 (family 6 model 207) 2-8 KB took 0.89-0.95× the time, 4 KB in the middle; on the Zen 3
// EPYC (AVX2) the same hint in dotsAVX2 cost 14-29% (session 12), and AMD's AVX-512 CPUs are
// unmeasured, so only Intel's CPUs prefetch.
var floatAhead = func() int {
	if cpuVendor() == "GenuineIntel" {
		return 4096
	}
	return 0
}()

// cpuVendor is the CPU's vendor string, CPUID leaf 0 ("GenuineIntel", "AuthenticAMD", ...).
func cpuVendor() string {
	b, d, c := cpuid0()
	var v [12]byte
	for i := range 4 {
		v[i], v[4+i], v[8+i] = byte(b>>(8*i)), byte(d>>(8*i)), byte(c>>(8*i))
	}
	return string(v[:])
}

// cpuid0 is CPUID leaf 0's EBX, EDX and ECX: the vendor string's three parts, in that order.
func cpuid0() (ebx, edx, ecx uint32)

// dotAVX2 is the inner product of a[:n] and b[:n]; n is a positive multiple of 32.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dotsAVX2 writes out[r] = dotAVX2(q, row r, n) for r < nrows, bit for bit, where row r starts
// at rows + r·dim floats and n ≤ dim is a positive multiple of 32. It needs AVX2 and FMA.
//
//go:noescape
func dotsAVX2(q, rows *float32, dim, n, nrows int, out *float32)

// readAVX2 XORs the 64-bit words of p[:n] together (n a positive multiple of 256), reading
// every byte once and writing nothing: the read-bandwidth kernel. It needs AVX2.
//
//go:noescape
func readAVX2(p *byte, n int) uint64

// readAVX512 is readAVX2 on Z registers (AVX512F).
//
//go:noescape
func readAVX512(p *byte, n int) uint64

// prefetch asks the CPU to bring the 64-byte lines holding p's n > 0 values into the caches
// (PREFETCHT0; SSE, every amd64 CPU): a hint that never faults and returns at once.
//
//go:noescape
func prefetch(p *float32, n int)

// scaleAVX2 writes out[j] = scales[j]·float32(dots[j]) for j < n, a positive multiple of 8,
// bit for bit as Go computes it. It needs AVX2.
//
//go:noescape
func scaleAVX2(dots *int32, scales *float32, n int, out *float32)

// aboveAVX2 is the bits j of the 64 scores with scores[j] > thr. It needs AVX2.
//
//go:noescape
func aboveAVX2(scores *float32, thr float32) uint64
