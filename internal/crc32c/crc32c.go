package crc32c

import "hash/crc32"

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
