#include "textflag.h"

// The read-bandwidth kernels: they load every byte of a buffer once and fold it with XOR, and
// store nothing, so their bytes/s is the rate this CPU reads memory (a copy also writes).

// func readAVX2(p *byte, n int) uint64
//
// n is a positive multiple of 256: eight 32-byte loads a step into four accumulators.
TEXT ·readAVX2(SB), NOSPLIT, $0-24
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	SHRQ   $8, CX
	VPXOR  Y0, Y0, Y0
	VPXOR  Y1, Y1, Y1
	VPXOR  Y2, Y2, Y2
	VPXOR  Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     fold

loop:
	VPXOR  0(SI), Y0, Y0
	VPXOR  32(SI), Y1, Y1
	VPXOR  64(SI), Y2, Y2
	VPXOR  96(SI), Y3, Y3
	VPXOR  128(SI), Y0, Y0
	VPXOR  160(SI), Y1, Y1
	VPXOR  192(SI), Y2, Y2
	VPXOR  224(SI), Y3, Y3
	ADDQ   $256, SI
	DECQ   CX
	JNZ    loop

fold:
	VPXOR        Y1, Y0, Y0
	VPXOR        Y3, Y2, Y2
	VPXOR        Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPXOR        X1, X0, X0
	VMOVQ        X0, AX
	VPEXTRQ      $1, X0, BX
	XORQ         BX, AX
	VZEROUPPER
	MOVQ         AX, ret+16(FP)
	RET

// func readAVX512(p *byte, n int) uint64
//
// n is a positive multiple of 256: four 64-byte loads a step into four accumulators
// (AVX512F).
TEXT ·readAVX512(SB), NOSPLIT, $0-24
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	SHRQ   $8, CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	TESTQ  CX, CX
	JZ     fold

loop:
	VPXORQ 0(SI), Z0, Z0
	VPXORQ 64(SI), Z1, Z1
	VPXORQ 128(SI), Z2, Z2
	VPXORQ 192(SI), Z3, Z3
	ADDQ   $256, SI
	DECQ   CX
	JNZ    loop

fold:
	VPXORQ        Z1, Z0, Z0
	VPXORQ        Z3, Z2, Z2
	VPXORQ        Z2, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPXOR         Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPXOR         X1, X0, X0
	VMOVQ         X0, AX
	VPEXTRQ       $1, X0, BX
	XORQ          BX, AX
	VZEROUPPER
	MOVQ          AX, ret+16(FP)
	RET

// func prefetch(p *float32, n int)
//
// PREFETCHT0 every 64-byte line holding one of the n > 0 values from p: a hint, never a fault.
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*4), DX
	ANDQ $-64, SI

pfloop:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	CMPQ SI, DX
	JB   pfloop
	RET
