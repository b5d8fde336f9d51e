//go:build amd64 && !purego

#include "textflag.h"

// Inputs shorter than avx2Min bytes take the CRC32 instruction alone.
#define avx2Min 256

// func updateAVX2(crc uint32, p []byte) uint32
//
// The code for CPUs with VPCLMULQDQ and AVX2 but not AVX-512 (AMD Zen 3,
// Intel before Ice Lake): without byte-masked loads, the first len mod 128
// bytes take the CRC32 instruction, and the rest, whole 128-byte blocks
// (two or more), is folded with four 256-bit accumulators, eight lanes of
// 128 bits, each turn multiplying every lane by x^1024 modulo P and XORing
// it with its lane of the next block. The register enters XORed into the
// first 4 bytes of the first block. At the end lane j is moved (7-j)*16
// bytes onto the last one with the last eight constants of crc32cReduce,
// and the lanes are XORed and reduced as in updateVector.
TEXT ·updateAVX2(SB), NOSPLIT, $0-36
	MOVL crc+0(FP), AX
	NOTL AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	LEAQ ret+32(FP), DI
	JMP  crcBodyAVX2<>(SB)

// func checksumPacketAVX2(p []byte) uint32
//
// The SCTP common header with its checksum field as zero, then the rest of
// the packet through crcBodyAVX2.
TEXT ·checksumPacketAVX2(SB), NOSPLIT, $0-28
	MOVQ   p_base+0(FP), SI
	MOVQ   p_len+8(FP), CX
	MOVL   $0xffffffff, AX
	CRC32Q (SI), AX
	XORL   DX, DX
	CRC32L DX, AX
	ADDQ   $12, SI
	SUBQ   $12, CX
	LEAQ   ret+24(FP), DI
	JMP    crcBodyAVX2<>(SB)

// crcBodyAVX2 runs the CRC32c register AX (inverted, as the CRC32
// instruction keeps it) over CX bytes at SI, stores the CRC at DI and
// returns to the caller of the function that jumped to it.
TEXT crcBodyAVX2<>(SB), NOSPLIT|NOFRAME, $0
	// DX = the head, the bytes for the CRC32 instruction: all of them
	// below avx2Min, else len mod 128; CX = the 128-byte blocks after it.
	MOVQ CX, DX
	CMPQ CX, $avx2Min
	JAE  split
	XORL CX, CX
	JMP  head8

split:
	ANDQ $127, DX
	SUBQ DX, CX
	SHRQ $7, CX

head8:
	CMPQ   DX, $8
	JB     head4
	CRC32Q (SI), AX
	ADDQ   $8, SI
	SUBQ   $8, DX
	JMP    head8

head4:
	TESTQ  $4, DX
	JZ     head2
	CRC32L (SI), AX
	ADDQ   $4, SI

head2:
	TESTQ  $2, DX
	JZ     head1
	CRC32W (SI), AX
	ADDQ   $2, SI

head1:
	TESTQ  $1, DX
	JZ     blocks
	CRC32B (SI), AX
	INCQ   SI

blocks:
	TESTQ CX, CX
	JNZ   vector
	NOTL AX
	MOVL AX, (DI)
	RET

vector:
	VMOVD          AX, X4
	VMOVDQU        (SI), Y0
	VMOVDQU        32(SI), Y1
	VMOVDQU        64(SI), Y2
	VMOVDQU        96(SI), Y3
	VPXOR          Y4, Y0, Y0
	ADDQ           $128, SI
	DECQ           CX
	VBROADCASTI128 ·crc32cFold128(SB), Y8

loop128:
	VPCLMULQDQ $0x00, Y8, Y0, Y4
	VPCLMULQDQ $0x11, Y8, Y0, Y0
	VPCLMULQDQ $0x00, Y8, Y1, Y5
	VPCLMULQDQ $0x11, Y8, Y1, Y1
	VPCLMULQDQ $0x00, Y8, Y2, Y6
	VPCLMULQDQ $0x11, Y8, Y2, Y2
	VPCLMULQDQ $0x00, Y8, Y3, Y7
	VPCLMULQDQ $0x11, Y8, Y3, Y3
	VPXOR      Y4, Y0, Y0
	VPXOR      Y5, Y1, Y1
	VPXOR      Y6, Y2, Y2
	VPXOR      Y7, Y3, Y3
	VPXOR      (SI), Y0, Y0
	VPXOR      32(SI), Y1, Y1
	VPXOR      64(SI), Y2, Y2
	VPXOR      96(SI), Y3, Y3
	ADDQ       $128, SI
	DECQ       CX
	JNZ        loop128

	VMOVDQU    ·crc32cReduce+128(SB), Y8
	VMOVDQU    ·crc32cReduce+160(SB), Y9
	VMOVDQU    ·crc32cReduce+192(SB), Y10
	VMOVDQU    ·crc32cReduce+224(SB), Y11
	VPCLMULQDQ $0x00, Y8, Y0, Y4
	VPCLMULQDQ $0x11, Y8, Y0, Y0
	VPCLMULQDQ $0x00, Y9, Y1, Y5
	VPCLMULQDQ $0x11, Y9, Y1, Y1
	VPCLMULQDQ $0x00, Y10, Y2, Y6
	VPCLMULQDQ $0x11, Y10, Y2, Y2
	VPCLMULQDQ $0x00, Y11, Y3, Y7
	VPCLMULQDQ $0x11, Y11, Y3, Y3
	VPXOR      Y4, Y0, Y0
	VPXOR      Y5, Y1, Y1
	VPXOR      Y6, Y2, Y2
	VPXOR      Y7, Y3, Y3
	VPXOR      Y1, Y0, Y0
	VPXOR      Y3, Y2, Y2
	VPXOR      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPXOR      X1, X0, X0

	VMOVQ   X0, R8
	VPEXTRQ $1, X0, R9
	XORL    AX, AX
	CRC32Q  R8, AX
	CRC32Q  R9, AX
	VZEROUPPER
	NOTL    AX
	MOVL    AX, (DI)
	RET
