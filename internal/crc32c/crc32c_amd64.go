//go:build amd64 && !purego

package crc32c

// useVector says whether Update runs updateVector; it is set once from the
// CPU's features (tests clear it to run the fallback).
var useVector = vectorSupported()

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

// vectorSupported reports whether the CPU has every instruction
// updateVector uses and the operating system saves the AVX-512 registers.
func vectorSupported() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	const (
		pclmulqdq = 1 << 1  // CPUID.1:ECX
		sse42     = 1 << 20 // CPUID.1:ECX
		osxsave   = 1 << 27 // CPUID.1:ECX
		avx       = 1 << 28 // CPUID.1:ECX
		bmi2      = 1 << 8  // CPUID.7.0:EBX
		avx512f   = 1 << 16 // CPUID.7.0:EBX
		avx512bw  = 1 << 30 // CPUID.7.0:EBX
		avx512vl  = 1 << 31 // CPUID.7.0:EBX
		vpclmul   = 1 << 10 // CPUID.7.0:ECX
		// XCR0: SSE, AVX, opmask, the upper halves of ZMM0-15, ZMM16-31.
		avx512State = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	)
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(pclmulqdq|sse42|osxsave|avx) != pclmulqdq|sse42|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&avx512State != avx512State {
		return false
	}
	_, ebx7, ecx7, _ := cpuid(7, 0)
	return ebx7&(bmi2|avx512f|avx512bw|avx512vl) == bmi2|avx512f|avx512bw|avx512vl &&
		ecx7&vpclmul != 0
}
