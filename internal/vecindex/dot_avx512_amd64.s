#include "textflag.h"

// AVX-512 kernels. They use only AVX512F, AVX512BW and (dotInt8VNNI, dotsInt8VNNI) AVX512VNNI
// instructions on Z registers; the horizontal sums end in the AVX2 sequence of dot_amd64.s.
// Every kernel ends with VZEROUPPER.

// F32_STEP64(A, B) adds the products of 64 floats at A and at B into the accumulators Z0-Z3
// (16 lanes each, lane i of accumulator c taking values 64s + 16c + i), with Z4-Z7 as
// scratch, and moves A and B on by 256 bytes.
#define F32_STEP64(A, B) \
	VMOVUPS     0(A), Z4        \
	VMOVUPS     64(A), Z5       \
	VMOVUPS     128(A), Z6      \
	VMOVUPS     192(A), Z7      \
	VFMADD231PS 0(B), Z4, Z0    \
	VFMADD231PS 64(B), Z5, Z1   \
	VFMADD231PS 128(B), Z6, Z2  \
	VFMADD231PS 192(B), Z7, Z3  \
	ADDQ        $256, A         \
	ADDQ        $256, B

// func dotAVX512(a, b *float32, n int) float32
//
// n is a positive multiple of 16: 64 floats a step in four accumulators, then 16 a step.
TEXT ·dotAVX512(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   CX, DX
	SHRQ   $6, CX
	JZ     tail

loop64:
	F32_STEP64(SI, DI)
	DECQ        CX
	JNZ         loop64

tail:
	ANDQ $63, DX
	SHRQ $4, DX
	JZ   done

loop16:
	VMOVUPS     0(SI), Z4
	VFMADD231PS 0(DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        DX
	JNZ         loop16

done:
	VADDPS        Z1, Z0, Z0
	VADDPS        Z3, Z2, Z2
	VADDPS        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VHADDPS       X0, X0, X0
	VHADDPS       X0, X0, X0
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET

// The int8 kernels take 64 values a step. VPDPBUSD and VPMADDUBSW multiply UNSIGNED bytes (the
// first operand) by signed bytes, so the signs move first, as in dot8_amd64.s: VPMOVB2M takes
// the row's sign bits into K1, VPABSB takes |a|, and a VPSUBB from zero under K1 negates the
// query bytes where the row value is negative. VPSIGNB has no EVEX form; this is its exact
// equivalent here, because where a = 0 the product is 0 whatever the query byte is. For codes
// in [-127, 127], |a| ≤ 127 and -q is representable, so every product a·q is exact.
//
//   - VNNI: VPDPBUSD adds the four products of each int32 lane into the accumulator, without
//     an int16 step (no saturation at all); the sum fits an int32 for n < 133,000.
//   - BW: VPMADDUBSW adds pairs into int16 (at most 2·127² = 32,258 < 32,767, so it never
//     saturates) and VPMADDWD by ones adds pairs of those into int32.

#define INT8_SIGNS(A, Q) \
	VPMOVB2M A, K1    \
	VPABSB   A, A     \
	VPSUBB   Q, Z14, K1, Q

#define INT8_REDUCE \
	VEXTRACTI64X4 $1, Z0, Y1 \
	VPADDD        Y1, Y0, Y0 \
	VEXTRACTI128  $1, Y0, X1 \
	VPADDD        X1, X0, X0 \
	VPHADDD       X0, X0, X0 \
	VPHADDD       X0, X0, X0 \
	VMOVD         X0, AX

// func dotInt8VNNI(a, q *int8, n int) int32
//
// n is a positive multiple of 64.
TEXT ·dotInt8VNNI(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   q+8(FP), DI
	MOVQ   n+16(FP), CX
	VPXORD Z14, Z14, Z14 // zero
	VPXORD Z0, Z0, Z0
	SHRQ   $6, CX
	JZ     done

loop:
	VMOVDQU8 0(SI), Z2
	VMOVDQU8 0(DI), Z3
	INT8_SIGNS(Z2, Z3)
	VPDPBUSD Z3, Z2, Z0
	ADDQ     $64, SI
	ADDQ     $64, DI
	DECQ     CX
	JNZ      loop

done:
	INT8_REDUCE
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotsInt8VNNI(a, q *int8, dim, rows int, out *int32)
//
// out[r] = dotInt8VNNI(a[r·dim:], q, dim) for r < rows; dim is a positive multiple of 64.
// Each 64-byte step asks for the line 2 KB ahead (PREFETCHT0, a hint that never faults, so it
// may point past the rows), as dotsInt8AVX2 does: one int8 search of 100,000 × 384 codes took
// 0.80× the time at top 10 and 0.83× at top 500 with it on an Intel Xeon with AVX-512 VNNI
// (docs/kernels.md, "The int8 scan's prefetch").
TEXT ·dotsInt8VNNI(SB), NOSPLIT, $0-40
	MOVQ   a+0(FP), SI
	MOVQ   q+8(FP), R8
	MOVQ   dim+16(FP), R9
	MOVQ   rows+24(FP), R10
	MOVQ   out+32(FP), R11
	VPXORD Z14, Z14, Z14 // zero
	SHRQ   $6, R9
	JZ     end
	TESTQ  R10, R10
	JZ     end

row:
	MOVQ   R8, DI
	MOVQ   R9, CX
	VPXORD Z0, Z0, Z0

step:
	PREFETCHT0 2048(SI)
	VMOVDQU8 0(SI), Z2
	VMOVDQU8 0(DI), Z3
	INT8_SIGNS(Z2, Z3)
	VPDPBUSD Z3, Z2, Z0
	ADDQ     $64, SI
	ADDQ     $64, DI
	DECQ     CX
	JNZ      step

	INT8_REDUCE
	MOVL AX, 0(R11)
	ADDQ $4, R11
	DECQ R10
	JNZ  row

end:
	VZEROUPPER
	RET

// func dotInt8AVX512(a, q *int8, n int) int32
//
// n is a positive multiple of 64 (AVX512BW, no VNNI).
TEXT ·dotInt8AVX512(SB), NOSPLIT, $0-28
	MOVQ       a+0(FP), SI
	MOVQ       q+8(FP), DI
	MOVQ       n+16(FP), CX
	VPXORD     Z14, Z14, Z14             // zero
	VPTERNLOGD $0xff, Z15, Z15, Z15      // all ones
	VPSRLW     $15, Z15, Z15             // int16 ones
	VPXORD     Z0, Z0, Z0
	SHRQ       $6, CX
	JZ         done

loop:
	VMOVDQU8   0(SI), Z2
	VMOVDQU8   0(DI), Z3
	INT8_SIGNS(Z2, Z3)
	VPMADDUBSW Z3, Z2, Z2
	VPMADDWD   Z15, Z2, Z2
	VPADDD     Z2, Z0, Z0
	ADDQ       $64, SI
	ADDQ       $64, DI
	DECQ       CX
	JNZ        loop

done:
	INT8_REDUCE
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotsInt8AVX512(a, q *int8, dim, rows int, out *int32)
//
// out[r] = dotInt8AVX512(a[r·dim:], q, dim) for r < rows; dim is a positive multiple of 64.
// It prefetches 2 KB ahead as dotsInt8VNNI does (0.80× / 0.84× the time at top 10 / 500, the
// same Xeon with VNNI set aside).
TEXT ·dotsInt8AVX512(SB), NOSPLIT, $0-40
	MOVQ       a+0(FP), SI
	MOVQ       q+8(FP), R8
	MOVQ       dim+16(FP), R9
	MOVQ       rows+24(FP), R10
	MOVQ       out+32(FP), R11
	VPXORD     Z14, Z14, Z14        // zero
	VPTERNLOGD $0xff, Z15, Z15, Z15 // all ones
	VPSRLW     $15, Z15, Z15        // int16 ones
	SHRQ       $6, R9
	JZ         end
	TESTQ      R10, R10
	JZ         end

row:
	MOVQ   R8, DI
	MOVQ   R9, CX
	VPXORD Z0, Z0, Z0

step:
	PREFETCHT0 2048(SI)
	VMOVDQU8   0(SI), Z2
	VMOVDQU8   0(DI), Z3
	INT8_SIGNS(Z2, Z3)
	VPMADDUBSW Z3, Z2, Z2
	VPMADDWD   Z15, Z2, Z2
	VPADDD     Z2, Z0, Z0
	ADDQ       $64, SI
	ADDQ       $64, DI
	DECQ       CX
	JNZ        step

	INT8_REDUCE
	MOVL AX, 0(R11)
	ADDQ $4, R11
	DECQ R10
	JNZ  row

end:
	VZEROUPPER
	RET

// func dotsAVX512(q, rows *float32, dim, n, nrows, ahead int, out *float32)
//
// out[r] = dotAVX512(q, rows + r·dim, n) for r < nrows, bit for bit: the rows one after the
// other in one call (one load stream), each with dotAVX512's accumulators, steps and
// reduction. n ≤ dim is a positive multiple of 16. With ahead > 0 each 256-byte step first
// asks for the four lines ahead bytes further on (PREFETCHT0, a hint that never faults, so it
// may point past the rows); with 0 it runs the same loop without them (floatAhead says which
// CPUs gain).
TEXT ·dotsAVX512(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R8
	SHLQ $2, R8                 // row stride in bytes
	MOVQ n+24(FP), R10
	MOVQ nrows+32(FP), BX
	MOVQ ahead+40(FP), R12
	MOVQ out+48(FP), R9

row:
	TESTQ  BX, BX
	JZ     done
	MOVQ   SI, AX
	MOVQ   DI, R11
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   R10, CX
	MOVQ   R10, DX
	SHRQ   $6, CX
	JZ     tail
	TESTQ  R12, R12
	JZ     loop64

loop64pf:
	PREFETCHT0  0(R11)(R12*1)
	PREFETCHT0  64(R11)(R12*1)
	PREFETCHT0  128(R11)(R12*1)
	PREFETCHT0  192(R11)(R12*1)
	F32_STEP64(AX, R11)
	DECQ        CX
	JNZ         loop64pf
	JMP         tail

loop64:
	F32_STEP64(AX, R11)
	DECQ        CX
	JNZ         loop64

tail:
	ANDQ $63, DX
	SHRQ $4, DX
	JZ   reduce

loop16:
	VMOVUPS     0(AX), Z4
	VFMADD231PS 0(R11), Z4, Z0
	ADDQ        $64, AX
	ADDQ        $64, R11
	DECQ        DX
	JNZ         loop16

reduce:
	VADDPS        Z1, Z0, Z0
	VADDPS        Z3, Z2, Z2
	VADDPS        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VHADDPS       X0, X0, X0
	VHADDPS       X0, X0, X0
	MOVSS         X0, 0(R9)
	ADDQ          $4, R9
	ADDQ          R8, DI
	DECQ          BX
	JMP           row

done:
	VZEROUPPER
	RET
