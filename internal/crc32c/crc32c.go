package crc32c

import "hash/crc32"

// castagnoli is hash/crc32's table of the Castagnoli polynomial, for the
// inputs the vector code does not take.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Update returns the CRC32c of p appended to the data whose CRC32c is crc,
// as crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p) does.
func Update(crc uint32, p []byte) uint32 {
	if useVector {
		return updateVector(crc, p)
	}
	return crc32.Update(crc, castagnoli, p)
}

// Checksum returns the CRC32c of p, as crc32.Checksum(p,
// crc32.MakeTable(crc32.Castagnoli)) does.
func Checksum(p []byte) uint32 { return Update(0, p) }

// zero4 stands for an SCTP packet's checksum field.
var zero4 [4]byte

// ChecksumPacket returns the CRC32c of an SCTP packet as RFC 9260 appendix
// B defines it: over all of p with the checksum field, bytes 8 to 11 of the
// common header, taken as zero. It does not modify p. p must hold the
// 12-byte common header; ChecksumPacket panics if it is shorter.
func ChecksumPacket(p []byte) uint32 {
	_ = p[11]
	if useVector {
		return checksumPacketVector(p)
	}
	c := crc32.Update(0, castagnoli, p[:8])
	c = crc32.Update(c, castagnoli, zero4[:])
	return crc32.Update(c, castagnoli, p[12:])
}
