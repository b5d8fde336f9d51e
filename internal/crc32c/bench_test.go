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
