package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkResetFlood measures the receiver under a flood of RE-CONFIG
// requests resetting every inbound stream (RFC 6525: an Outgoing SSN Reset
// Request naming no stream, performed at once) while every stream in use
// holds state: each delivered a message (its next SSN or MID is 1) and
// holds the first fragment of an unordered message (a partial delivery
// candidate; an ordered one would hold up the messages of the new
// numbering, whose TSNs come after it). Each op is one reset of all streams and one whole message on the
// next stream (SSN or MID 0 after the reset), read at once; its cost must
// not grow with the streams in use.
func BenchmarkResetFlood(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, n := range []int{1, 1024, 65535} {
			name := fmt.Sprintf("streams=%d", n)
			if idata {
				name = "idata/" + name
			}
			b.Run(name, func(b *testing.B) { benchResetFlood(b, n, idata) })
		}
	}
}

// resetSend sends one fragment of message seq on stream sid with flags (B,
// E and U bits) and payload p.
func (a *attacker) resetSend(sid uint16, seq uint32, flags uint8, p []byte) {
	var v Verdict
	var err error
	if a.idata {
		a.id = IData{TSN: a.tsn, SID: sid, MID: seq, PPID: 1, Flags: flags, Payload: p}
		v, err = a.r.handleIData(epoch, &a.id)
	} else {
		a.d = Data{TSN: a.tsn, SID: sid, SSN: uint16(seq), PPID: 1, Flags: flags, Payload: p}
		v, err = a.r.handleData(epoch, &a.d)
	}
	if v != Accepted || err != nil {
		panic(fmt.Sprint("chunk not accepted: ", v, err))
	}
	a.r.endPacket(epoch)
	a.tsn++
}

func benchResetFlood(b *testing.B, n int, idata bool) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: n, Interleaved: idata, Buffers: api.Buffers{RecvBuffer: streamsBuffer(n)}})
	if err != nil {
		b.Fatal(err)
	}
	a := &attacker{r: &e.recv, idata: idata, n: n, tsn: 1}
	one, buf := []byte{1}, make([]byte, 16)
	const whole = chunk.FlagBeginning | chunk.FlagEnd
	for sid := range n {
		a.resetSend(uint16(sid), 0, whole, one)
		a.resetSend(uint16(sid), 1, chunk.FlagBeginning|chunk.FlagUnordered, one)
	}
	for a.r.reasm.Ready() > 0 {
		if _, _, err := a.r.read(buf); err != nil {
			b.Fatal(err)
		}
	}
	a.r.ResetIncoming(nil) // the first reset looks at every stream used
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.r.ResetIncoming(nil)
		sid := uint16(i % n)
		a.resetSend(sid, 0, whole, one)
		if _, _, err := a.r.readStream(sid, buf); err != nil {
			b.Fatal(err)
		}
	}
}
