#include "textflag.h"

// The int8 kernels multiply 32 values a step without widening them first: VPSIGNB moves each
// row value's sign onto the query value (q·sign(a)), VPABSB takes |a|, and VPMADDUBSW multiplies
// the unsigned |a| by the signed q·sign(a) and adds pairs into int16; VPMADDWD by ones adds
// pairs of those into int32. Exact for codes in [-127, 127]: a pair is at most 2·127² = 32,258
// (below int16's 32,767), and n·127² fits an int32 for n < 133,000.

// func dotInt8AVX2(a, q *int8, n int) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ      a+0(FP), SI
	MOVQ      q+8(FP), DI
	MOVQ      n+16(FP), CX
	VPCMPEQW  Y15, Y15, Y15
	VPSRLW    $15, Y15, Y15 // int16 ones
	VPXOR     Y0, Y0, Y0
	SHRQ      $5, CX
	JZ        done

loop:
	VMOVDQU    0(SI), Y2
	VMOVDQU    0(DI), Y3
	VPSIGNB    Y2, Y3, Y3
	VPABSB     Y2, Y2
	VPMADDUBSW Y3, Y2, Y2
	VPMADDWD   Y15, Y2, Y2
	VPADDD     Y2, Y0, Y0
	ADDQ       $32, SI
	ADDQ       $32, DI
	DECQ       CX
	JNZ        loop

done:
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotsInt8AVX2(a, q *int8, dim, rows int, out *int32)
//
// out[r] = dotInt8AVX2(a[r·dim:], q, dim) for r < rows, in one call (no call per row); dim is
// a positive multiple of 32. Each step asks for the line 2 KB ahead (PREFETCHT0, a hint that
// never faults, past the rows too): at ~20 µops a line the out-of-order window holds too few
// loads to cover the memory's latency, and the hardware prefetchers alone left the scan at
// ~70% of the read bound (docs/kernels.md, "The int8 scan's prefetch").
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-40
	MOVQ     a+0(FP), SI
	MOVQ     q+8(FP), R8
	MOVQ     dim+16(FP), R9
	MOVQ     rows+24(FP), R10
	MOVQ     out+32(FP), R11
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15 // int16 ones
	SHRQ     $5, R9
	TESTQ    R10, R10
	JZ       end

row:
	MOVQ  R8, DI
	MOVQ  R9, CX
	VPXOR Y0, Y0, Y0

step:
	PREFETCHT0 2048(SI)
	VMOVDQU    0(SI), Y2
	VMOVDQU    0(DI), Y3
	VPSIGNB    Y2, Y3, Y3
	VPABSB     Y2, Y2
	VPMADDUBSW Y3, Y2, Y2
	VPMADDWD   Y15, Y2, Y2
	VPADDD     Y2, Y0, Y0
	ADDQ       $32, SI
	ADDQ       $32, DI
	DECQ       CX
	JNZ        step

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX
	MOVL         AX, 0(R11)
	ADDQ         $4, R11
	DECQ         R10
	JNZ          row

end:
	VZEROUPPER
	RET
