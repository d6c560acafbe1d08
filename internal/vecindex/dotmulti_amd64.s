#include "textflag.h"

// Multi-query kernels: one row scored against a block of 4 or 8 queries, each row value loaded
// once. Every query gets exactly dotAVX2's accumulation: four accumulators, accumulator c
// summing the 8 lanes at offset 8c of each 32-value step, in step order, then the same
// reduction. The kernels run the four accumulators as four passes over the row (the row's
// 1.5 KB stays in L1 between passes), so B accumulators fit in registers at a time; the
// passes park them in acc (B × 4 × 8 float32) and the reduction reads them back.
//
// Registers: SI row, DI query 0, R8 the query stride in bytes (R9 = 3·R8, R10 = 5·R8,
// R11 = 7·R8), CX steps, DX acc, Y8 the row's 8 values, Y0..Y7 the accumulators.

// Each kernel loops over the four passes with BX the pass's byte offset (0, 32, 64, 96).

// PASSINIT starts a pass: the row and query 0 at the pass's offset, the step count.
#define PASSINIT \
	MOVQ row+0(FP), SI; \
	MOVQ qs+8(FP), DI; \
	ADDQ BX, SI; \
	ADDQ BX, DI; \
	MOVQ n+24(FP), CX; \
	SHRQ $5, CX

// REDUCE sums query j's four parked accumulators as dotAVX2 does and stores out[j].
#define REDUCE(j) \
	VMOVUPS      (j*128+0)(DX), Y0; \
	VMOVUPS      (j*128+32)(DX), Y1; \
	VMOVUPS      (j*128+64)(DX), Y2; \
	VMOVUPS      (j*128+96)(DX), Y3; \
	VADDPS       Y1, Y0, Y0; \
	VADDPS       Y3, Y2, Y2; \
	VADDPS       Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0; \
	MOVSS        X0, (j*4)(AX)

// PREFETCH asks for the row two rows ahead (rows are stride floats apart in a shard), one
// cache line at a time: the passes below read a row in a strided order (pass c touches bytes
// 32c..32c+31 of every 128), which the hardware prefetchers follow worse than a straight scan.
// A prefetch past the end of the data is harmless.
#define PREFETCH \
	MOVQ row+0(FP), DI; \
	MOVQ stride+16(FP), CX; \
	SHLQ $2, CX; \
	LEAQ (DI)(CX*2), DI

// SETUP loads the stride registers, acc and out.
#define SETUP \
	MOVQ stride+16(FP), R8; \
	SHLQ $2, R8; \
	LEAQ (R8)(R8*2), R9; \
	LEAQ (R8)(R8*4), R10; \
	LEAQ (R9)(R8*4), R11; \
	MOVQ acc+32(FP), DX; \
	MOVQ out+40(FP), AX

// func dotMulti4AVX2(row, qs *float32, stride, n int, acc, out *float32)
TEXT ·dotMulti4AVX2(SB), NOSPLIT, $0-48
	PREFETCH

prefetch4:
	PREFETCHT0 (DI)
	ADDQ       $64, DI
	SUBQ       $64, CX
	JG         prefetch4
	SETUP
	XORQ       BX, BX

pass4:
	PASSINIT
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop4:
	VMOVUPS     (SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS (DI)(R8*2), Y8, Y2
	VFMADD231PS (DI)(R9*1), Y8, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        CX
	JNZ         loop4
	VMOVUPS     Y0, (0*128)(DX)(BX*1)
	VMOVUPS     Y1, (1*128)(DX)(BX*1)
	VMOVUPS     Y2, (2*128)(DX)(BX*1)
	VMOVUPS     Y3, (3*128)(DX)(BX*1)
	ADDQ        $32, BX
	CMPQ        BX, $128
	JNE         pass4

	REDUCE(0)
	REDUCE(1)
	REDUCE(2)
	REDUCE(3)
	VZEROUPPER
	RET

// func dotMulti8AVX2(row, qs *float32, stride, n int, acc, out *float32)
TEXT ·dotMulti8AVX2(SB), NOSPLIT, $0-48
	PREFETCH

prefetch8:
	PREFETCHT0 (DI)
	ADDQ       $64, DI
	SUBQ       $64, CX
	JG         prefetch8
	SETUP
	XORQ       BX, BX

pass8:
	PASSINIT
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

loop8:
	VMOVUPS     (SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS (DI)(R8*2), Y8, Y2
	VFMADD231PS (DI)(R9*1), Y8, Y3
	VFMADD231PS (DI)(R8*4), Y8, Y4
	VFMADD231PS (DI)(R10*1), Y8, Y5
	VFMADD231PS (DI)(R9*2), Y8, Y6
	VFMADD231PS (DI)(R11*1), Y8, Y7
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        CX
	JNZ         loop8
	VMOVUPS     Y0, (0*128)(DX)(BX*1)
	VMOVUPS     Y1, (1*128)(DX)(BX*1)
	VMOVUPS     Y2, (2*128)(DX)(BX*1)
	VMOVUPS     Y3, (3*128)(DX)(BX*1)
	VMOVUPS     Y4, (4*128)(DX)(BX*1)
	VMOVUPS     Y5, (5*128)(DX)(BX*1)
	VMOVUPS     Y6, (6*128)(DX)(BX*1)
	VMOVUPS     Y7, (7*128)(DX)(BX*1)
	ADDQ        $32, BX
	CMPQ        BX, $128
	JNE         pass8

	REDUCE(0)
	REDUCE(1)
	REDUCE(2)
	REDUCE(3)
	REDUCE(4)
	REDUCE(5)
	REDUCE(6)
	REDUCE(7)
	VZEROUPPER
	RET
