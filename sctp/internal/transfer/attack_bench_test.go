package transfer

import (
	"fmt"
	"testing"
)

// BenchmarkPartialAttack measures the receiver under the attack of issue
// 23: a peer sends ordered first fragments (B bit, no E bit) spread over
// every inbound stream until the held bytes pass the partial delivery
// point, so every stream holds a message partial delivery could start
// with, then goes on sending fragments that never complete (one per op, on
// the next stream, each past the point). Each op is one DATA (or I-DATA)
// chunk; its cost must not grow with the number of streams. When the
// window gets short the receiver is rebuilt off the clock.
func BenchmarkPartialAttack(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, n := range []int{64, 4096, 65535} {
			name := fmt.Sprintf("streams=%d", n)
			if idata {
				name = "idata/" + name
			}
			b.Run(name, func(b *testing.B) { benchAttack(b, n, idata) })
		}
	}
}

// attackBuffer is the receive buffer of BenchmarkPartialAttack: large
// enough to hold a fragment on each of 65535 streams within the memory
// limit (each costs a fragment record and a buffer, see
// Receiver.Charged).
const attackBuffer = 8 << 20

// attacker is the peer of BenchmarkPartialAttack.
type attacker struct {
	r     *Receiver
	idata bool
	n     int
	tsn   TSN
	sid   int
	d     Data
	id    IData
	mid   uint32
}

// chunk sends one fragment on the next stream: a first fragment of ordered
// message seq (0 is the next in order, later ones wait) with payload p.
func (a *attacker) chunk(seq uint32, p []byte) {
	var err error
	if a.idata {
		a.id = IData{TSN: a.tsn, SID: uint16(a.sid), MID: seq, PPID: 1, Flags: FlagBegin, Payload: p}
		_, err = a.r.HandleIData(epoch, &a.id)
	} else {
		a.d = Data{TSN: a.tsn, SID: uint16(a.sid), SSN: uint16(seq), PPID: 1, Flags: FlagBegin, Payload: p}
		_, err = a.r.HandleData(epoch, &a.d)
	}
	if err != nil {
		panic(err)
	}
	a.r.EndPacket(epoch)
	a.tsn++
	a.sid = (a.sid + 1) % a.n
}

// setup makes a fresh receiver with a first fragment held on every stream
// and, on stream 0, later messages that take the held bytes past the
// partial delivery point (in large chunks, so that getting there costs
// few checks even where each check looks at every stream).
func (a *attacker) setup() {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: a.n, Interleaved: a.idata, RecvBuffer: attackBuffer})
	if err != nil {
		panic(err)
	}
	a.r, a.tsn, a.sid = &e.Recv, 1, 0
	one, big := []byte{1}, make([]byte, 60000)
	for range a.n {
		a.chunk(0, one) // the next message of each stream: a candidate
	}
	for a.mid = 1; a.r.Held() < a.r.pdPoint; a.mid++ {
		a.sid = 0
		if a.r.Window() < len(big) {
			panic("the window closed before the partial delivery point")
		}
		a.chunk(a.mid, big) // later messages of stream 0: held, waiting
	}
	a.sid = 1 % a.n
}

func benchAttack(b *testing.B, n int, idata bool) {
	a := &attacker{n: n, idata: idata}
	a.setup()
	one := []byte{1}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a.r.Window() < 64<<10 {
			b.StopTimer()
			a.setup()
			b.StartTimer()
		}
		a.chunk(a.mid, one)
		if a.sid == 0 {
			a.mid++
		}
	}
}
