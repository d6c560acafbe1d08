package vecindex

// dotMulti4AVX2 writes out[j] = dotAVX2(query j, row, n) for j < 4, bit for bit: query j
// starts at qs + j·stride floats, n is a positive multiple of 32, acc is scratch for 4×32
// floats. It needs AVX2 and FMA (useAVX2).
//
//go:noescape
func dotMulti4AVX2(row, qs *float32, stride, n int, acc, out *float32)

// dotMulti8AVX2 is dotMulti4AVX2 for 8 queries (acc: 8×32 floats).
//
//go:noescape
func dotMulti8AVX2(row, qs *float32, stride, n int, acc, out *float32)
