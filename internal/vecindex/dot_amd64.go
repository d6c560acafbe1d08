package vecindex

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel (AVX2 and FMA, and the OS saves the YMM registers).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX

// dotAVX2 is the inner product of a[:n] and b[:n]; n is a positive multiple of 32.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32
