package chunk

import (
	"testing"
)

// The benchmarks use a full-size DATA packet, a 1452-byte message: what a
// 1500-byte MTU leaves for user data after IPv4 (20), the common header
// (12) and the DATA chunk header (16); and a SACK with 4 gap blocks and 2
// duplicate TSNs.

func BenchmarkParseData(b *testing.B) {
	pkt := dataPacket(make([]byte, 1452))
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = parseDataPacket(pkt)
	}
}

func BenchmarkParseDataNoChecksum(b *testing.B) {
	pkt := dataPacket(make([]byte, 1452))
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := ParsePacket(pkt)
		it := p.Walk()
		c, _ := it.Next()
		d, _ := ParseData(c)
		sinkTSN = d.TSN
	}
}

func BenchmarkEncodeData(b *testing.B) {
	payload := make([]byte, 1452)
	buf := make([]byte, 0, 1500)
	b.SetBytes(int64(len(dataPacket(payload))))
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = len(encodeDataPacket(buf, payload))
	}
}

func BenchmarkParseSack(b *testing.B) {
	pkt := sackPacket()
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = parseSackPacket(pkt)
	}
}

func BenchmarkEncodeSack(b *testing.B) {
	buf := make([]byte, 0, 1500)
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = len(encodeSackPacket(buf))
	}
}

func BenchmarkCRC32c(b *testing.B) {
	pkt := dataPacket(make([]byte, 1452))
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = int(Checksum(pkt))
	}
}
