#include "textflag.h"

// The block kernels: the small steps a scan takes per block of 64 rows between the dot
// products and the top-k buffer, eight values an instruction instead of one.

// func scaleAVX2(dots *int32, scales *float32, n int, out *float32)
//
// out[j] = scales[j]·float32(dots[j]) for j < n, a positive multiple of 8: the conversion and
// the product each rounded as Go rounds them, so the scores are Go's bit for bit.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-32
	MOVQ dots+0(FP), SI
	MOVQ scales+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX

scaleloop:
	VCVTDQ2PS (SI), Y0
	VMULPS    (DI), Y0, Y0
	VMOVUPS   Y0, (DX)
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $32, DX
	SUBQ      $8, CX
	JNZ       scaleloop
	VZEROUPPER
	RET

// func aboveAVX2(scores *float32, thr float32) uint64
//
// Bit j set where scores[j] > thr, for the 64 scores (ordered: a NaN is never above).
TEXT ·aboveAVX2(SB), NOSPLIT, $0-24
	MOVQ         scores+0(FP), SI
	VBROADCASTSS thr+8(FP), Y15
	XORQ         AX, AX
	XORQ         CX, CX

aboveloop:
	VCMPPS    $0x11, (SI), Y15, Y0 // LT_OQ: thr < scores
	VMOVMSKPS Y0, BX
	SHLQ      CX, BX
	ORQ       BX, AX
	ADDQ      $32, SI
	ADDQ      $8, CX
	CMPQ      CX, $64
	JB        aboveloop
	VZEROUPPER
	MOVQ      AX, ret+16(FP)
	RET
