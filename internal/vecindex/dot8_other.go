//go:build !amd64

package vecindex

func dotInt8AVX2(a, q *int8, n int) int32 {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func dotsInt8AVX2(a, q *int8, dim, rows int, out *int32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}
