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
