// Package crc32c computes CRC32c, the Castagnoli CRC that checks every SCTP
// packet (RFC 9260 appendix B), with the same results as hash/crc32 and its
// Castagnoli table. ChecksumPacket computes an SCTP packet's checksum with
// the checksum field taken as zero in one call, so that a small packet
// pays for one call and not three.
//
// On amd64 CPUs with AVX-512 (F, BW, VL), VPCLMULQDQ, BMI2 and SSE4.2, an
// input of 64 bytes or more is folded with carry-less multiplication: four
// 512-bit accumulators take 256 bytes a turn, several times what the CRC32
// instruction's dependent chain takes, and the cost of a 1500-byte packet
// is mostly the final reduction. The input is cut into blocks from its
// end, so only the first block is partial: it is loaded with the missing
// bytes masked off, so that nothing outside the input is read, and its
// first fold moves it less far. There is no tail to finish byte by byte.
// Inputs under 64 bytes, such as SACK packets and common headers, take
// the CRC32 instruction alone, which costs less than setting up the vector
// registers. The constants, powers of x modulo the polynomial, come from
// gen_tables.go.
//
// On amd64 CPUs with VPCLMULQDQ, AVX2 and SSE4.2 but not AVX-512 (AMD Zen
// 3, Intel before Ice Lake), an input of 256 bytes or more runs the CRC32
// instruction over its first len mod 128 bytes, which needs no masked
// load, and folds the rest with four 256-bit accumulators, 128 bytes a
// turn: a 1500-byte packet in about two thirds of hash/crc32's time, 64
// KiB a tenth faster, where the CRC32 instruction's three chains already
// keep up with the multiplier.
//
// UpdateCopy copies its input while it computes the CRC: on the AVX2 code
// the bytes loaded into the registers for the fold are stored from them,
// so a payload copied into a packet and checksummed is read from memory
// once. Elsewhere it is a copy, then Update.
//
// Everywhere else (other architectures, CPUs without those features, the
// purego build tag) it calls hash/crc32.
package crc32c

//go:generate go run gen_tables.go
