//go:build amd64 && !purego

package crc32c

// The code paths of Update, from the CPU's features.
const (
	noVector     = iota // hash/crc32
	vectorAVX2          // updateAVX2: VPCLMULQDQ on 256-bit registers
	vectorAVX512        // updateVector: VPCLMULQDQ on 512-bit registers, masked loads
)

// useVector is the code path Update runs; it is set once from the CPU's
// features (tests set it to run each path the CPU has).
var useVector = vectorSupported()

// updateAVX2 is Update in crc32c_amd64.s.
//
//go:noescape
func updateAVX2(crc uint32, p []byte) uint32

// checksumPacketAVX2 is ChecksumPacket in crc32c_amd64.s; len(p) >= 12.
//
//go:noescape
func checksumPacketAVX2(p []byte) uint32

// updateCopyAVX2 is UpdateCopy's AVX2 code in crc32c_amd64.s.
//
//go:noescape
func updateCopyAVX2(crc uint32, dst, src []byte) uint32

// updateVector is Update in crc32c_amd64.s.
//
//go:noescape
func updateVector(crc uint32, p []byte) uint32

// checksumPacketVector is ChecksumPacket in crc32c_amd64.s; len(p) >= 12.
//
//go:noescape
func checksumPacketVector(p []byte) uint32

// cpuid executes CPUID with EAX = leaf and ECX = subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns XCR0, the register state the operating system saves.
func xgetbv() (eax, edx uint32)

// vectorSupported returns the best code path the CPU has every
// instruction of and whose registers the operating system saves.
func vectorSupported() int {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return noVector
	}
	const (
		pclmulqdq = 1 << 1  // CPUID.1:ECX
		sse42     = 1 << 20 // CPUID.1:ECX
		osxsave   = 1 << 27 // CPUID.1:ECX
		avx       = 1 << 28 // CPUID.1:ECX
		avx2      = 1 << 5  // CPUID.7.0:EBX
		bmi2      = 1 << 8  // CPUID.7.0:EBX
		avx512f   = 1 << 16 // CPUID.7.0:EBX
		avx512bw  = 1 << 30 // CPUID.7.0:EBX
		avx512vl  = 1 << 31 // CPUID.7.0:EBX
		vpclmul   = 1 << 10 // CPUID.7.0:ECX
		// XCR0: SSE and AVX; then the opmask, the upper halves of ZMM0-15, ZMM16-31.
		avxState    = 1<<1 | 1<<2
		avx512State = avxState | 1<<5 | 1<<6 | 1<<7
	)
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(pclmulqdq|sse42|osxsave|avx) != pclmulqdq|sse42|osxsave|avx {
		return noVector
	}
	xcr0, _ := xgetbv()
	_, ebx7, ecx7, _ := cpuid(7, 0)
	if xcr0&avxState != avxState || ecx7&vpclmul == 0 {
		return noVector
	}
	if xcr0&avx512State == avx512State &&
		ebx7&(bmi2|avx512f|avx512bw|avx512vl) == bmi2|avx512f|avx512bw|avx512vl {
		return vectorAVX512
	}
	if ebx7&avx2 != 0 {
		return vectorAVX2
	}
	return noVector
}
