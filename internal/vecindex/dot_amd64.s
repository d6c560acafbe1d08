#include "textflag.h"

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	SHRQ $5, CX
	JZ   done

loop:
	VMOVUPS     0(SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS 0(DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        CX
	JNZ         loop

done:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// REDUCE4 sums the four accumulators A0..A3 into the low float of A0's X register (XA0), in
// dotAVX2's order (XT: scratch), so a row scores bit for bit as dotAVX2.
#define REDUCE4(A0, A1, A2, A3, XA0, XT) \
	VADDPS       A1, A0, A0 \
	VADDPS       A3, A2, A2 \
	VADDPS       A2, A0, A0 \
	VEXTRACTF128 $1, A0, XT \
	VADDPS       XT, XA0, XA0 \
	VHADDPS      XA0, XA0, XA0 \
	VHADDPS      XA0, XA0, XA0

// func dotsAVX2(q, rows *float32, dim, n, nrows int, out *float32)
//
// out[r] = dotAVX2(q, rows + r·dim, n) for r < nrows, bit for bit: two rows at a time, each
// with its own four accumulators, sharing the query's loads.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), DX
	SHLQ $2, DX              // row stride in bytes
	MOVQ n+24(FP), R10
	SHRQ $5, R10             // 32-float steps per row
	MOVQ nrows+32(FP), BX
	MOVQ out+40(FP), R9
	TESTQ R10, R10
	JZ   done

pairs:
	CMPQ BX, $2
	JLT  single
	MOVQ SI, AX
	MOVQ DI, R11
	LEAQ (DI)(DX*1), R12
	MOVQ R10, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

pairloop:
	VMOVUPS     0(AX), Y8
	VMOVUPS     32(AX), Y9
	VMOVUPS     64(AX), Y10
	VMOVUPS     96(AX), Y11
	VFMADD231PS 0(R11), Y8, Y0
	VFMADD231PS 32(R11), Y9, Y1
	VFMADD231PS 64(R11), Y10, Y2
	VFMADD231PS 96(R11), Y11, Y3
	VFMADD231PS 0(R12), Y8, Y4
	VFMADD231PS 32(R12), Y9, Y5
	VFMADD231PS 64(R12), Y10, Y6
	VFMADD231PS 96(R12), Y11, Y7
	ADDQ        $128, AX
	ADDQ        $128, R11
	ADDQ        $128, R12
	DECQ        CX
	JNZ         pairloop

	REDUCE4(Y0, Y1, Y2, Y3, X0, X1)
	REDUCE4(Y4, Y5, Y6, Y7, X4, X5)
	MOVSS X0, 0(R9)
	MOVSS X4, 4(R9)
	ADDQ  $8, R9
	LEAQ  (DI)(DX*2), DI
	SUBQ  $2, BX
	JMP   pairs

single:
	TESTQ BX, BX
	JZ    done
	MOVQ  SI, AX
	MOVQ  DI, R11
	MOVQ  R10, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

singleloop:
	VMOVUPS     0(AX), Y8
	VMOVUPS     32(AX), Y9
	VMOVUPS     64(AX), Y10
	VMOVUPS     96(AX), Y11
	VFMADD231PS 0(R11), Y8, Y0
	VFMADD231PS 32(R11), Y9, Y1
	VFMADD231PS 64(R11), Y10, Y2
	VFMADD231PS 96(R11), Y11, Y3
	ADDQ        $128, AX
	ADDQ        $128, R11
	DECQ        CX
	JNZ         singleloop

	REDUCE4(Y0, Y1, Y2, Y3, X0, X1)
	MOVSS X0, 0(R9)

done:
	VZEROUPPER
	RET
