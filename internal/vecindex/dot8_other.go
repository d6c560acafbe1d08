//go:build !amd64

package vecindex

func dotInt8AVX2(a *int8, q *int16, n int) int32 {
	panic("vecindex: no AVX2 kernel on this architecture")
}
