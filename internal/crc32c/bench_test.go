package crc32c

import (
	"hash/crc32"
	"strconv"
	"testing"
)

// benchSizes are a common header, a SACK packet, a 1500-byte path's packet
// with and without UDP encapsulation, a jumbo frame's and a loopback
// packet.
var benchSizes = []int{12, 48, 1452, 1480, 9000, 65536}

// BenchmarkChecksum runs this package's Checksum and hash/crc32's side by
// side for each size.
func BenchmarkChecksum(b *testing.B) {
	for _, n := range benchSizes {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i * 7)
		}
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			b.Run("impl=crc32c", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					Checksum(p)
				}
			})
			b.Run("impl=hash-crc32", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					crc32.Checksum(p, castagnoli)
				}
			})
		})
	}
}

// BenchmarkUpdateCopy copies a packet's payload out of a larger buffer, as
// a sender copies from its send buffer, with the CRC: UpdateCopy against
// copy then Update. The source moves through 64 MiB, out of the caches
// since it was last read, as a send buffer's payloads are.
func BenchmarkUpdateCopy(b *testing.B) {
	const span = 64 << 20
	src := make([]byte, span)
	for i := range src {
		src[i] = byte(i * 7)
	}
	for _, n := range []int{256, 1452, 9000} {
		dst := make([]byte, n)
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			b.Run("impl=fused", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				off := 0
				for b.Loop() {
					UpdateCopy(0, dst, src[off:off+n])
					if off += n; off+n > span {
						off = 0
					}
				}
			})
			b.Run("impl=copy-then-crc", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				off := 0
				for b.Loop() {
					copy(dst, src[off:off+n])
					Update(0, dst)
					if off += n; off+n > span {
						off = 0
					}
				}
			})
		})
	}
}
