package vecindex

// dotInt8AVX2 is the inner product of a[:n] and q[:n] (int8 codes in [-127, 127]); n is a
// positive multiple of 32. It needs AVX2 (useAVX2).
//
//go:noescape
func dotInt8AVX2(a, q *int8, n int) int32

// dotsInt8AVX2 writes out[r] = the int8 inner product of row r of a (rows × dim, row-major)
// and q[:dim], for r < rows, in one call; dim is a positive multiple of 32.
//
//go:noescape
func dotsInt8AVX2(a, q *int8, dim, rows int, out *int32)
