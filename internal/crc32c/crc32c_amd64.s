//go:build amd64 && !purego

#include "textflag.h"

// Inputs shorter than vectorMin bytes take the CRC32 instruction alone:
// below it, setting up the vector registers and reducing them costs more
// than the serial CRC32 instructions it saves. Inputs of 256 bytes or more
// take four accumulators, shorter ones one.
#define vectorMin 64

// func updateVector(crc uint32, p []byte) uint32
//
// The vector code cuts p into 256-byte blocks from its end, so that the
// first block has r = 1-256 bytes, and folds them with four 512-bit
// accumulators, 16 lanes of 128 bits: each turn multiplies every lane by
// x^2048 modulo P and XORs it with its lane of the next block. At the end
// each lane is moved onto the last one (crc32cReduce), the 16 are XORed
// into one 128-bit value R, and two CRC32 instructions over R from a zero
// register give R * x^32 mod P, the CRC register.
//
// The first block is loaded from p with the bytes past r masked off, so
// nothing outside p is touched: a masked-off byte on a page that is not
// mapped in costs a microcode assist on every call. It then stands 256-r
// bytes too far from the end; its first fold moves it r bytes instead of
// 256 (crc32cFoldHead). The register enters XORed into the first 4 bytes,
// as in the CRC's definition. Inputs under 256 bytes do the same with one
// accumulator and 64-byte parts.
//
// A lane holds bytes in memory order: bit i of a little-endian 64-bit half
// is the coefficient of x^(63-i) of that half. PCLMULQDQ of two such
// halves gives their product times x, which the constants account for.
TEXT ·updateVector(SB), NOSPLIT, $0-36
	MOVL crc+0(FP), AX
	NOTL AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	LEAQ ret+32(FP), DI
	JMP  crcBody<>(SB)

// func checksumPacketVector(p []byte) uint32
//
// The SCTP common header with its checksum field as zero, then the rest of
// the packet through crcBody.
TEXT ·checksumPacketVector(SB), NOSPLIT, $0-28
	MOVQ   p_base+0(FP), SI
	MOVQ   p_len+8(FP), CX
	MOVL   $0xffffffff, AX
	CRC32Q (SI), AX
	XORL   DX, DX
	CRC32L DX, AX
	ADDQ   $12, SI
	SUBQ   $12, CX
	LEAQ   ret+24(FP), DI
	JMP    crcBody<>(SB)

// crcBody runs the CRC32c register AX (inverted, as the CRC32 instruction
// keeps it) over CX bytes at SI, stores the CRC at DI and returns to the
// caller of the function that jumped to it.
TEXT crcBody<>(SB), NOSPLIT|NOFRAME, $0
	CMPQ CX, $vectorMin
	JAE  vector

	CMPQ CX, $8
	JB   tail4

loop8:
	CRC32Q (SI), AX
	ADDQ   $8, SI
	SUBQ   $8, CX
	CMPQ   CX, $8
	JAE    loop8

tail4:
	TESTQ  $4, CX
	JZ     tail2
	CRC32L (SI), AX
	ADDQ   $4, SI

tail2:
	TESTQ  $2, CX
	JZ     tail1
	CRC32W (SI), AX
	ADDQ   $2, SI

tail1:
	TESTQ  $1, CX
	JZ     done
	CRC32B (SI), AX

done:
	NOTL AX
	MOVL AX, (DI)
	RET

vector:
	VMOVD AX, X4
	LEAQ  ·crc32cFoldHead(SB), R11
	MOVQ  $-1, R8
	CMPQ  CX, $256
	JB    short

	// DX = r, the bytes of the first block (1-256); CX = the blocks after it.
	LEAQ -1(CX), DX
	ANDQ $255, DX
	INCQ DX
	SUBQ DX, CX
	SHRQ $8, CX

	// K1-K4 select the bytes of the first block's four 64-byte parts that
	// lie in it: byte b of part i when 64*i + b < r. BZHI reads the index
	// modulo 256 and keeps all ones for 64 or more: r = 256 and negative
	// indexes need a CMOV.
	BZHIQ   DX, R8, R10
	CMPQ    DX, $64
	CMOVQCC R8, R10
	KMOVQ   R10, K1
	XORL    R12, R12
	LEAQ    -64(DX), R9
	BZHIQ   R9, R8, R10
	TESTQ   R9, R9
	CMOVQLT R12, R10
	KMOVQ   R10, K2
	LEAQ    -128(DX), R9
	BZHIQ   R9, R8, R10
	TESTQ   R9, R9
	CMOVQLT R12, R10
	KMOVQ   R10, K3
	LEAQ    -192(DX), R9
	BZHIQ   R9, R8, R10
	TESTQ   R9, R9
	CMOVQLT R12, R10
	KMOVQ   R10, K4

	VMOVDQU8.Z (SI), K1, Z0
	VMOVDQU8.Z 64(SI), K2, Z1
	VMOVDQU8.Z 128(SI), K3, Z2
	VMOVDQU8.Z 192(SI), K4, Z3
	VPXORQ     Z4, Z0, Z0
	ADDQ       DX, SI
	TESTQ      CX, CX
	JZ         reduce4

	// Z8 = crc32cFoldHead[256-r] for the first turn, then Z9 = crc32cFold256.
	NEGQ            DX
	SHLQ            $4, DX
	VBROADCASTI32X4 4096(R11)(DX*1), Z8
	VBROADCASTI32X4 ·crc32cFold256(SB), Z9

loop256:
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPCLMULQDQ $0x00, Z8, Z1, Z5
	VPCLMULQDQ $0x11, Z8, Z1, Z1
	VPCLMULQDQ $0x00, Z8, Z2, Z6
	VPCLMULQDQ $0x11, Z8, Z2, Z2
	VPCLMULQDQ $0x00, Z8, Z3, Z7
	VPCLMULQDQ $0x11, Z8, Z3, Z3
	VPTERNLOGD $0x96, (SI), Z4, Z0
	VPTERNLOGD $0x96, 64(SI), Z5, Z1
	VPTERNLOGD $0x96, 128(SI), Z6, Z2
	VPTERNLOGD $0x96, 192(SI), Z7, Z3
	VMOVDQA64  Z9, Z8
	ADDQ       $256, SI
	DECQ       CX
	JNZ        loop256

reduce4:
	VMOVDQU64  ·crc32cReduce+0(SB), Z8
	VMOVDQU64  ·crc32cReduce+64(SB), Z9
	VMOVDQU64  ·crc32cReduce+128(SB), Z10
	VMOVDQU64  ·crc32cReduce+192(SB), Z11
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPCLMULQDQ $0x00, Z9, Z1, Z5
	VPCLMULQDQ $0x11, Z9, Z1, Z1
	VPCLMULQDQ $0x00, Z10, Z2, Z6
	VPCLMULQDQ $0x11, Z10, Z2, Z2
	VPCLMULQDQ $0x00, Z11, Z3, Z7
	VPCLMULQDQ $0x11, Z11, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z1, Z0
	VPTERNLOGD $0x96, Z5, Z6, Z2
	VPTERNLOGD $0x96, Z7, Z3, Z0
	VPXORQ     Z2, Z0, Z0
	JMP        lanes

short:
	// The same with one accumulator: DX = r, the bytes of the first
	// 64-byte part (1-64); CX = the parts after it (0-2).
	LEAQ  -1(CX), DX
	ANDQ  $63, DX
	INCQ  DX
	SUBQ  DX, CX
	SHRQ  $6, CX
	BZHIQ DX, R8, R10
	KMOVQ R10, K1

	VMOVDQU8.Z (SI), K1, Z0
	VPXORQ     Z4, Z0, Z0
	ADDQ       DX, SI
	TESTQ      CX, CX
	JZ         reduce1

	// Z8 = crc32cFoldHead[256-r], the constants that move a lane r bytes.
	NEGQ            DX
	SHLQ            $4, DX
	VBROADCASTI32X4 4096(R11)(DX*1), Z8
	VBROADCASTI32X4 ·crc32cFold64(SB), Z9

loop64:
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPTERNLOGD $0x96, (SI), Z4, Z0
	VMOVDQA64  Z9, Z8
	ADDQ       $64, SI
	DECQ       CX
	JNZ        loop64

reduce1:
	VMOVDQU64  ·crc32cReduce+192(SB), Z8
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPXORQ     Z4, Z0, Z0

lanes:
	// XOR the four lanes into one.
	VEXTRACTI64X4 $1, Z0, Y1
	VPXORQ        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPXOR         X1, X0, X0

	VMOVQ   X0, R8
	VPEXTRQ $1, X0, R9
	XORL    AX, AX
	CRC32Q  R8, AX
	CRC32Q  R9, AX
	VZEROUPPER
	NOTL    AX
	MOVL    AX, (DI)
	RET

// func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL subleaf+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL   $0, CX
	XGETBV
	MOVL   AX, eax+0(FP)
	MOVL   DX, edx+4(FP)
	RET
