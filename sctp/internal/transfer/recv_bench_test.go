package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkReceive measures the receiving half alone: DATA chunks of
// messages arriving in order on ten streams (one chunk a packet, as a
// sender cuts them), each packet's messages read at once, a SACK every
// second packet. It isolates what BenchmarkMessages spends in HandleData,
// reassembly and Read from the sender's share. size=1452 takes two chunks
// a message (1424 + 28 bytes), size=1024 one.
func BenchmarkReceive(b *testing.B) {
	for _, size := range []int{1452, 1024} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchReceive(b, size) })
	}
}

func benchReceive(b *testing.B, size int) {
	const streams, frag = 10, 1424
	cfg := Config{LocalTSN: 1, PeerTSN: 1, OutStreams: streams, InStreams: streams, PeerRwnd: api.DefaultBuffer}
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	r := &e.recv
	payload := make([]byte, frag)
	rbuf := make([]byte, 4096)
	sack := make([]byte, 0, 2048)
	var ssn [streams]uint16
	tsn := uint32(1)
	now := epoch
	packets := 0
	message := func(i int) {
		sid := uint16(i % streams)
		for off := 0; off < size; off += frag {
			n := min(frag, size-off)
			var flags uint8
			if off == 0 {
				flags |= 0x02 // B
			}
			if off+n == size {
				flags |= 0x01 // E
			}
			d := Data{TSN: TSN(tsn), SID: sid, SSN: ssn[sid], PPID: 7, Flags: flags, Payload: payload[:n]}
			tsn++
			if _, err := r.handleData(now, &d); err != nil {
				b.Fatal(err)
			}
			r.endPacket(now)
			packets++
			for {
				if _, _, err := r.read(rbuf); err != nil {
					break
				}
			}
			if r.acks.due(now) {
				sack = r.appendSACK(now, sack[:0], DefaultMTU-12)
			}
		}
		ssn[sid]++
	}
	for i := range 1000 {
		message(i)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		message(i)
	}
}
