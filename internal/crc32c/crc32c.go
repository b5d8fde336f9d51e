package crc32c

import (
	"hash/crc32"
	"unsafe"
)

// castagnoli is hash/crc32's table of the Castagnoli polynomial, for the
// inputs the vector code does not take.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Update returns the CRC32c of p appended to the data whose CRC32c is crc,
// as crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p) does.
func Update(crc uint32, p []byte) uint32 {
	switch useVector {
	case vectorAVX512:
		return updateVector(crc, p)
	case vectorAVX2:
		return updateAVX2(crc, p)
	}
	return crc32.Update(crc, castagnoli, p)
}

// UpdateCopy copies src to dst, as copy(dst, src) does, and returns
// Update(crc, src). On CPUs that take the AVX2 code the two go together in
// one pass over src: the bytes loaded for the CRC are stored in dst from
// the same registers, so a payload copied into a packet is read once. It
// panics if dst is shorter than src or the two overlap.
func UpdateCopy(crc uint32, dst, src []byte) uint32 {
	if len(dst) < len(src) {
		panic("crc32c: UpdateCopy into a shorter slice")
	}
	if len(src) == 0 {
		return crc
	}
	if overlap(dst[:len(src)], src) {
		panic("crc32c: UpdateCopy of overlapping slices")
	}
	if useVector == vectorAVX2 {
		return updateCopyAVX2(crc, dst, src)
	}
	copy(dst, src)
	return Update(crc, src)
}

// FusesCopy reports whether UpdateCopy copies and computes the CRC in one
// pass on this CPU, and not a copy then Update.
func FusesCopy() bool { return useVector == vectorAVX2 }

// overlap reports whether a and b, both non-empty, share memory.
func overlap(a, b []byte) bool {
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// Checksum returns the CRC32c of p, as crc32.Checksum(p,
// crc32.MakeTable(crc32.Castagnoli)) does.
func Checksum(p []byte) uint32 { return Update(0, p) }

// ChecksumPacket returns the CRC32c of an SCTP packet as RFC 9260 appendix
// B defines it: over all of p with the checksum field, bytes 8 to 11 of the
// common header, taken as zero. It does not modify p. p must hold the
// 12-byte common header; ChecksumPacket panics if it is shorter.
func ChecksumPacket(p []byte) uint32 {
	_ = p[11]
	switch useVector {
	case vectorAVX512:
		return checksumPacketVector(p)
	case vectorAVX2:
		return checksumPacketAVX2(p)
	}
	c := crc32.Update(0, castagnoli, p[:8])
	return crc32.Update(zero4(c), castagnoli, p[12:])
}

// zero4 returns the CRC32c crc extended by four zero bytes, the checksum
// field, a table step per byte as hash/crc32's simple update takes it: a
// call into hash/crc32 for them costs more than the four steps.
func zero4(crc uint32) uint32 {
	crc = ^crc
	for range 4 {
		crc = castagnoli[byte(crc)] ^ crc>>8
	}
	return ^crc
}
