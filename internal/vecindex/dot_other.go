//go:build !amd64

package vecindex

// cpuLevel is the best kernel level here: the portable loops.
const cpuLevel = levelGeneric

// floatAhead is dotsAVX512's prefetch distance: there is no such kernel here.
var floatAhead = 0

func dotAVX2(a, b *float32, n int) float32 { panic("vecindex: no AVX2 kernel on this architecture") }

func dotAVX512(a, b *float32, n int) float32 {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

func dotsAVX2(q, rows *float32, dim, n, nrows int, out *float32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func readAVX2(p *byte, n int) uint64 { panic("vecindex: no AVX2 kernel on this architecture") }

func readAVX512(p *byte, n int) uint64 {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

func dotsAVX512(q, rows *float32, dim, n, nrows, ahead int, out *float32) {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

// prefetch is a no-op where there is no prefetch instruction to call.
func prefetch(p *float32, n int) {}

func scaleAVX2(dots *int32, scales *float32, n int, out *float32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func aboveAVX2(scores *float32, thr float32) uint64 {
	panic("vecindex: no AVX2 kernel on this architecture")
}
