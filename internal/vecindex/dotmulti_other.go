//go:build !amd64

package vecindex

func dotMulti4AVX2(row, qs *float32, stride, n int, acc, out *float32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}

func dotMulti8AVX2(row, qs *float32, stride, n int, acc, out *float32) {
	panic("vecindex: no AVX2 kernel on this architecture")
}
