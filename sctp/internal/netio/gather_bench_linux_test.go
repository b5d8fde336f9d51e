package netio

import (
	"fmt"
	"testing"
)

// BenchmarkWriteHoles measures the sender's cost of a GSO send of 40
// packets of a 28-byte header and a payload of size bytes, the payload
// copied into the packet buffer (copy) or sent from where it is as a hole
// (hole). Nothing reads the receiving socket: once its buffer is full the
// kernel drops the datagrams after the sender's work is done. With
// perf stat -e instructions it gives the size from which a hole costs
// less than a copy (the shell's gatherMin).
func BenchmarkWriteHoles(b *testing.B) {
	for _, size := range []int{64, 128, 256, 512, 1024, 1424} {
		for _, hole := range []bool{false, true} {
			name := "copy"
			if hole {
				name = "hole"
			}
			b.Run(fmt.Sprintf("size=%d/%s", size, name), func(b *testing.B) {
				tx, rx := udpPair(b, false, UDPConfig{})
				const n = 40
				pkts := newPackets(n, 2048)
				payloads := make([][]byte, n)
				holes := make([]Hole, n)
				for i := range pkts {
					fill(pkts[i:i+1], i, 28+size, rx.LocalAddr())
					payloads[i] = make([]byte, size)
				}
				b.SetBytes(int64(n * size))
				b.ReportAllocs()
				for b.Loop() {
					for i := range pkts {
						p := &pkts[i]
						if hole {
							holes[i] = Hole{At: 28, Data: payloads[i]}
							p.Holes = holes[i : i+1]
						} else {
							copy(p.Buf[28:], payloads[i])
						}
					}
					if k, err := tx.WriteBatch(pkts); k != n {
						b.Fatal(k, err)
					}
				}
			})
		}
	}
}
