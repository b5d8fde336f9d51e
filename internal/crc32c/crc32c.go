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
