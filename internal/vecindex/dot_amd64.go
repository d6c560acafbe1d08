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
