package vecindex

// The AVX-512 kernels (dot_avx512_amd64.s). Each needs what its level in kernel.go says
// the CPU has; Dot, DotInt8 and DotsInt8 call them only then.

// dotAVX512 is the inner product of a[:n] and b[:n]; n is a positive multiple of 16
// (AVX512F).
//
//go:noescape
func dotAVX512(a, b *float32, n int) float32

// dotInt8VNNI is the inner product of a[:n] and q[:n] (codes in [-127, 127]); n is a
// positive multiple of 64 (AVX512BW and AVX512VNNI).
//
//go:noescape
func dotInt8VNNI(a, q *int8, n int) int32

// dotsInt8VNNI writes out[r] = dotInt8VNNI(row r of a, q, dim) for r < rows; dim is a
// positive multiple of 64.
//
//go:noescape
func dotsInt8VNNI(a, q *int8, dim, rows int, out *int32)

// dotInt8AVX512 is dotInt8VNNI for CPUs without VNNI (AVX512BW: VPMADDUBSW, VPMADDWD).
//
//go:noescape
func dotInt8AVX512(a, q *int8, n int) int32

// dotsInt8AVX512 is dotsInt8VNNI for CPUs without VNNI.
//
//go:noescape
func dotsInt8AVX512(a, q *int8, dim, rows int, out *int32)

// dotsAVX512 writes out[r] = dotAVX512(q, row r, n) for r < nrows, bit for bit, where row r
// starts at rows + r·dim floats and n ≤ dim is a positive multiple of 16 (AVX512F). With
// ahead > 0 it prefetches the rows ahead bytes before it reads them; 0 turns that off.
//
//go:noescape
func dotsAVX512(q, rows *float32, dim, n, nrows, ahead int, out *float32)
