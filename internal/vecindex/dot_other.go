//go:build !amd64

package vecindex

const useAVX2 = false

func dotAVX2(a, b *float32, n int) float32 { panic("vecindex: no AVX2 kernel on this architecture") }
