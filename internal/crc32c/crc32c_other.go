//go:build !amd64 || purego

package crc32c

// The code paths of Update: only hash/crc32 here.
const (
	noVector = iota
	vectorAVX2
	vectorAVX512
)

// useVector is noVector: hash/crc32 serves every input.
var useVector = noVector

// updateVector is never called where useVector is noVector.
func updateVector(crc uint32, p []byte) uint32 { panic("crc32c: no vector code") }

// checksumPacketVector is never called where useVector is noVector.
func checksumPacketVector(p []byte) uint32 { panic("crc32c: no vector code") }

// updateAVX2 is never called where useVector is noVector.
func updateAVX2(crc uint32, p []byte) uint32 { panic("crc32c: no vector code") }

// checksumPacketAVX2 is never called where useVector is noVector.
func checksumPacketAVX2(p []byte) uint32 { panic("crc32c: no vector code") }

// updateCopyAVX2 is never called where useVector is noVector.
func updateCopyAVX2(crc uint32, dst, src []byte) uint32 { panic("crc32c: no vector code") }
