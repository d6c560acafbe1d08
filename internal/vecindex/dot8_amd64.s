#include "textflag.h"

// func dotInt8AVX2(a *int8, q *int16, n int) int32
//
// 32 values a step: 16 int8 of a sign-extended to int16 (VPMOVSXBW), multiplied by the
// query's int16 and added in pairs to int32 (VPMADDWD), two accumulators. Exact: |a|, |q| ≤ 127,
// so a pair is at most 32,258 and n·127² fits an int32 for n < 133,000.
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ  a+0(FP), SI
	MOVQ  q+8(FP), DI
	MOVQ  n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ  $5, CX
	JZ    done

loop:
	VPMOVSXBW 0(SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  0(DI), Y2, Y2
	VPMADDWD  32(DI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       loop

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET
