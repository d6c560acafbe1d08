package vecindex

import "encoding/binary"

// readXOR is the XOR of buf's little-endian 64-bit words (a last partial word padded with
// zeros): it reads every byte of buf once and writes nothing, so the bytes/s it runs at over a
// buffer far larger than the caches is the rate the CPU reads memory, the bound of a scan
// (BenchmarkReadBandwidth; a copy also writes). It runs the best kernel Kernel allows:
// AVX-512 (four 64-byte loads a step), AVX2 (eight 32-byte loads a step) or the portable loop.
func readXOR(buf []byte) uint64 {
	n := len(buf) &^ 255
	var s uint64
	switch {
	case n == 0:
	case useAVX512:
		s = readAVX512(&buf[0], n)
	case useAVX2:
		s = readAVX2(&buf[0], n)
	default:
		n = 0
	}
	return s ^ readXORGeneric(buf[n:])
}

// readXORGeneric is readXOR's portable loop (four words a step).
func readXORGeneric(buf []byte) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+32 <= len(buf); i += 32 {
		s0 ^= binary.LittleEndian.Uint64(buf[i:])
		s1 ^= binary.LittleEndian.Uint64(buf[i+8:])
		s2 ^= binary.LittleEndian.Uint64(buf[i+16:])
		s3 ^= binary.LittleEndian.Uint64(buf[i+24:])
	}
	for ; i+8 <= len(buf); i += 8 {
		s0 ^= binary.LittleEndian.Uint64(buf[i:])
	}
	var last [8]byte
	copy(last[:], buf[i:])
	return s0 ^ s1 ^ s2 ^ s3 ^ binary.LittleEndian.Uint64(last[:])
}
