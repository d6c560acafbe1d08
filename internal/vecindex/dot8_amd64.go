package vecindex

// dotInt8AVX2 is the inner product of a[:n] (int8) and q[:n] (int16 holding int8 values);
// n is a positive multiple of 32. It needs AVX2 (useAVX2).
//
//go:noescape
func dotInt8AVX2(a *int8, q *int16, n int) int32
