package transfer

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// FuzzIDataReceiver feeds the receiver arbitrary I-DATA chunks (TSN,
// stream, MID, FSN or PPID, flags, length), I-FORWARD-TSNs and reads (in
// arrival order or stream by stream): no
// panic, and the bytes held never exceed the receive buffer by more than
// one chunk.
func FuzzIDataReceiver(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 10, 1, 1, 0, 1, 1, 10, 2, 1, 0, 2, 1, 10})
	f.Add([]byte{0, 0, 0, 0, 2, 200, 1, 0, 0, 0, 0, 200, 2, 0, 0, 1, 1, 200, 255, 3, 9, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := Config{PeerTSN: 1, OutStreams: 4, InStreams: 4, Buffers: api.Buffers{RecvBuffer: 4000}, Interleaved: true}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := epoch
		buf := make([]byte, 700)
		payload := make([]byte, 256)
		for len(b) >= 6 {
			if b[0] == 255 { // an I-FORWARD-TSN with one entry
				c := chunkOfBytes(1+uint32(b[1]), uint16(b[2]%5), b[3]&1 != 0, uint32(b[4]%4)-1)
				e.HandleIForwardTSN(now, c)
				b = b[6:]
				continue
			}
			d := IData{TSN: 1 + TSN(b[0]), SID: uint16(b[1] % 5), MID: uint32(b[2]%4) - 1,
				FSN: uint32(b[3] % 4), PPID: uint32(b[3]), Flags: b[4] & 0xf, Payload: payload[:b[5]]}
			b = b[6:]
			e.HandleIData(now, &d)
			e.EndPacket(now)
			if e.SACKDue(now) {
				e.AppendSACK(now, nil, 1400)
			}
			switch len(b) % 3 {
			case 0:
				for {
					if _, _, err := e.Read(buf); err != nil {
						break
					}
				}
			case 1:
				for sid := range uint16(5) {
					for {
						if _, _, err := e.ReadStream(4-sid, buf); err != nil {
							break
						}
					}
				}
			}
			if e.RecvHeld() > cfg.RecvBuffer+DefaultMTU {
				t.Fatalf("held %d over the buffer", e.RecvHeld())
			}
		}
	})
}

func chunkOfBytes(cum uint32, sid uint16, unordered bool, mid uint32) chunk.Chunk {
	b, _ := chunk.AppendIForwardTSN(nil, chunk.TSN(cum), []chunk.StreamMID{{SID: sid, Unordered: unordered, MID: mid}})
	it := chunk.Chunks(b)
	c, _ := it.Next()
	return c
}
