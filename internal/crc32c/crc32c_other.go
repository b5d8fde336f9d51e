//go:build !amd64 || purego

package crc32c

// useVector is false: hash/crc32 serves every input.
var useVector = false

// updateVector is never called where useVector is false.
func updateVector(crc uint32, p []byte) uint32 { panic("crc32c: no vector code") }

// checksumPacketVector is never called where useVector is false.
func checksumPacketVector(p []byte) uint32 { panic("crc32c: no vector code") }
