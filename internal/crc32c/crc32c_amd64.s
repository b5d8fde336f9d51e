//go:build amd64 && !purego

#include "textflag.h"

// Inputs shorter than vectorMin bytes take the CRC32 instruction alone:
// below it, setting up the vector registers and reducing them costs more
// than the serial CRC32 instructions it saves. Inputs of 256 bytes or more
// take four accumulators, shorter ones one.
#define vectorMin 64

// The entry points of both vector paths load their arguments alike, into
// the registers the bodies take: the CRC32c register AX, the bytes at SI,
// CX of them, and the result's address DI.

// UPDATE_ARGS loads Update's arguments, the register inverted as the
// CRC32c's definition starts.
#define UPDATE_ARGS \
	MOVL crc+0(FP), AX \
	NOTL AX \
	MOVQ p_base+8(FP), SI \
	MOVQ p_len+16(FP), CX \
	LEAQ ret+32(FP), DI

// PACKET_ARGS loads ChecksumPacket's argument past the SCTP common header,
// whose CRC32c it computes with the checksum field as zero.
#define PACKET_ARGS \
	MOVQ   p_base+0(FP), SI \
	MOVQ   p_len+8(FP), CX \
	MOVL   $0xffffffff, AX \
	CRC32Q (SI), AX \
	XORL   DX, DX \
	CRC32L DX, AX \
	ADDQ   $12, SI \
	SUBQ   $12, CX \
	LEAQ   ret+24(FP), DI

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
	UPDATE_ARGS
	JMP crcBody<>(SB)

// func checksumPacketVector(p []byte) uint32
//
// The SCTP common header with its checksum field as zero, then the rest of
// the packet through crcBody.
TEXT ·checksumPacketVector(SB), NOSPLIT, $0-28
	PACKET_ARGS
	JMP crcBody<>(SB)

// crcBody runs the CRC32c register AX (inverted, as the CRC32 instruction
// keeps it) over CX bytes at SI, stores the CRC at DI and returns to the
// caller of the function that jumped to it.
TEXT crcBody<>(SB), NOSPLIT|NOFRAME, $0
	CMPQ CX, $vectorMin
	JAE  vector
	MOVQ CX, DX
	XORL CX, CX
	JMP  crcScalar<>(SB)

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
	UPDATE_ARGS
	JMP crcBodyAVX2<>(SB)

// func checksumPacketAVX2(p []byte) uint32
//
// The SCTP common header with its checksum field as zero, then the rest of
// the packet through crcBodyAVX2.
TEXT ·checksumPacketAVX2(SB), NOSPLIT, $0-28
	PACKET_ARGS
	JMP crcBodyAVX2<>(SB)

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
	JMP  crcScalar<>(SB)

split:
	ANDQ $127, DX
	SUBQ DX, CX
	SHRQ $7, CX
	JMP  crcScalar<>(SB)

// crcScalar runs the CRC32c register AX over DX bytes at SI with the CRC32
// instruction, then over CX 128-byte blocks after them with foldAVX2 when CX
// is not zero, stores the CRC at DI and returns to the caller of the
// function that jumped to it: the whole of a short input, or the head of a
// long one for the AVX2 code.
TEXT crcScalar<>(SB), NOSPLIT|NOFRAME, $0
loop8:
	CMPQ   DX, $8
	JB     tail4
	CRC32Q (SI), AX
	ADDQ   $8, SI
	SUBQ   $8, DX
	JMP    loop8

tail4:
	TESTQ  $4, DX
	JZ     tail2
	CRC32L (SI), AX
	ADDQ   $4, SI

tail2:
	TESTQ  $2, DX
	JZ     tail1
	CRC32W (SI), AX
	ADDQ   $2, SI

tail1:
	TESTQ  $1, DX
	JZ     blocks
	CRC32B (SI), AX
	INCQ   SI

blocks:
	TESTQ CX, CX
	JNZ   fold
	NOTL  AX
	MOVL  AX, (DI)
	RET

fold:
	JMP foldAVX2<>(SB)

// FOLD4 moves the four accumulators Y0-Y3 forward by the distances of the
// constants in K0-K3 (for each lane, its first 8 bytes times the constant's
// first, its last 8 times its last, XORed), with Y4-Y7 as scratch: the
// eight multiplications first, so that they overlap.
#define FOLD4(K0, K1, K2, K3) \
	VPCLMULQDQ $0x00, K0, Y0, Y4 \
	VPCLMULQDQ $0x11, K0, Y0, Y0 \
	VPCLMULQDQ $0x00, K1, Y1, Y5 \
	VPCLMULQDQ $0x11, K1, Y1, Y1 \
	VPCLMULQDQ $0x00, K2, Y2, Y6 \
	VPCLMULQDQ $0x11, K2, Y2, Y2 \
	VPCLMULQDQ $0x00, K3, Y3, Y7 \
	VPCLMULQDQ $0x11, K3, Y3, Y3 \
	VPXOR      Y4, Y0, Y0 \
	VPXOR      Y5, Y1, Y1 \
	VPXOR      Y6, Y2, Y2 \
	VPXOR      Y7, Y3, Y3

// foldAVX2 runs the CRC32c register AX over CX (at least 2) 128-byte blocks
// at SI with four 256-bit accumulators, stores the CRC at DI and returns to
// the caller of the function that jumped to it.
TEXT foldAVX2<>(SB), NOSPLIT|NOFRAME, $0
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
	FOLD4(Y8, Y8, Y8, Y8)
	VPXOR (SI), Y0, Y0
	VPXOR 32(SI), Y1, Y1
	VPXOR 64(SI), Y2, Y2
	VPXOR 96(SI), Y3, Y3
	ADDQ  $128, SI
	DECQ  CX
	JNZ   loop128

	JMP reduceAVX2<>(SB)

// reduceAVX2 reduces the four accumulators Y0-Y3 of foldAVX2's blocks to
// the CRC, stores it at DI and returns to the caller of the function that
// jumped to it.
TEXT reduceAVX2<>(SB), NOSPLIT|NOFRAME, $0
	// Lane j of the eight moves (7-j)*16 bytes, onto the last one.
	VMOVDQU      ·crc32cReduce+128(SB), Y8
	VMOVDQU      ·crc32cReduce+160(SB), Y9
	VMOVDQU      ·crc32cReduce+192(SB), Y10
	VMOVDQU      ·crc32cReduce+224(SB), Y11
	FOLD4(Y8, Y9, Y10, Y11)
	VPXOR        Y1, Y0, Y0
	VPXOR        Y3, Y2, Y2
	VPXOR        Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPXOR        X1, X0, X0

	VMOVQ   X0, R8
	VPEXTRQ $1, X0, R9
	XORL    AX, AX
	CRC32Q  R8, AX
	CRC32Q  R9, AX
	VZEROUPPER
	NOTL    AX
	MOVL    AX, (DI)
	RET

// func updateCopyAVX2(crc uint32, dst, src []byte) uint32
//
// updateAVX2 over src that also stores every byte it loads at the same
// offset in dst: the head with the CRC32 instruction 8 bytes at a time,
// the 128-byte blocks through the registers the fold takes them into, so
// the copy costs stores and no second pass over src. len(dst) >= len(src)
// and the two do not overlap (UpdateCopy checks).
TEXT ·updateCopyAVX2(SB), NOSPLIT, $0-60
	MOVL crc+0(FP), AX
	NOTL AX
	MOVQ dst_base+8(FP), R13
	LEAQ ret+56(FP), DI
	MOVQ src_base+32(FP), SI
	MOVQ src_len+40(FP), CX

	// DX = the head, CX = the 128-byte blocks after it, as crcBodyAVX2.
	MOVQ CX, DX
	CMPQ CX, $avx2Min
	JAE  csplit
	XORL CX, CX
	JMP  cloop8

csplit:
	ANDQ $127, DX
	SUBQ DX, CX
	SHRQ $7, CX

cloop8:
	CMPQ   DX, $8
	JB     ctail4
	MOVQ   (SI), R8
	CRC32Q R8, AX
	MOVQ   R8, (R13)
	ADDQ   $8, SI
	ADDQ   $8, R13
	SUBQ   $8, DX
	JMP    cloop8

ctail4:
	TESTQ  $4, DX
	JZ     ctail2
	MOVL   (SI), R8
	CRC32L R8, AX
	MOVL   R8, (R13)
	ADDQ   $4, SI
	ADDQ   $4, R13

ctail2:
	TESTQ   $2, DX
	JZ      ctail1
	MOVWLZX (SI), R8
	CRC32W  R8, AX
	MOVW    R8, (R13)
	ADDQ    $2, SI
	ADDQ    $2, R13

ctail1:
	TESTQ   $1, DX
	JZ      cblocks
	MOVBLZX (SI), R8
	CRC32B  R8, AX
	MOVB    R8, (R13)
	INCQ    SI
	INCQ    R13

cblocks:
	TESTQ CX, CX
	JNZ   cfold
	NOTL  AX
	MOVL  AX, (DI)
	RET

cfold:
	VMOVD          AX, X4
	VMOVDQU        (SI), Y0
	VMOVDQU        32(SI), Y1
	VMOVDQU        64(SI), Y2
	VMOVDQU        96(SI), Y3
	VMOVDQU        Y0, (R13)
	VMOVDQU        Y1, 32(R13)
	VMOVDQU        Y2, 64(R13)
	VMOVDQU        Y3, 96(R13)
	VPXOR          Y4, Y0, Y0
	ADDQ           $128, SI
	ADDQ           $128, R13
	DECQ           CX
	VBROADCASTI128 ·crc32cFold128(SB), Y8

cloop128:
	PREFETCHT0 512(SI)
	PREFETCHT0 576(SI)
	VMOVDQU (SI), Y12
	VMOVDQU 32(SI), Y13
	VMOVDQU 64(SI), Y14
	VMOVDQU 96(SI), Y15
	FOLD4(Y8, Y8, Y8, Y8)
	VMOVDQU Y12, (R13)
	VMOVDQU Y13, 32(R13)
	VMOVDQU Y14, 64(R13)
	VMOVDQU Y15, 96(R13)
	VPXOR   Y12, Y0, Y0
	VPXOR   Y13, Y1, Y1
	VPXOR   Y14, Y2, Y2
	VPXOR   Y15, Y3, Y3
	ADDQ    $128, SI
	ADDQ    $128, R13
	DECQ    CX
	JNZ     cloop128

	JMP reduceAVX2<>(SB)
