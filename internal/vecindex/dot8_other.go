//go:build !amd64

package vecindex

func dotInt8AVX2(a, q *int8, n int) int32 {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func dotsInt8AVX2(a, q *int8, dim, rows int, out *int32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func dotInt8AVX512(a, q *int8, n int) int32 {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

func dotsInt8AVX512(a, q *int8, dim, rows int, out *int32) {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

func dotInt8VNNI(a, q *int8, n int) int32 {
	panic("vecindex: no AVX-512 kernel on this architecture")
}

func dotsInt8VNNI(a, q *int8, dim, rows int, out *int32) {
	panic("vecindex: no AVX-512 kernel on this architecture")
}
