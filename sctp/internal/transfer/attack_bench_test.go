package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
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
		a.id = IData{TSN: a.tsn, SID: uint16(a.sid), MID: seq, PPID: 1, Flags: chunk.FlagBeginning, Payload: p}
		_, err = a.r.HandleIData(epoch, &a.id)
	} else {
		a.d = Data{TSN: a.tsn, SID: uint16(a.sid), SSN: uint16(seq), PPID: 1, Flags: chunk.FlagBeginning, Payload: p}
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

// BenchmarkRenegeAttack measures the receiver when every chunk makes it
// renege (RFC 9260 section 6.2: with the window full, a chunk below the
// highest TSN received makes it drop the highest TSN held for reordering):
// a fragment is held on every stream, the window is full of chunks with
// holes between them, and each op fills a hole. Each op is one chunk and
// one fragment dropped; its cost must not grow with the number of
// streams.
func BenchmarkRenegeAttack(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, n := range []int{64, 4096, 65535} {
			name := fmt.Sprintf("streams=%d", n)
			if idata {
				name = "idata/" + name
			}
			b.Run(name, func(b *testing.B) { benchRenege(b, n, idata) })
		}
	}
}

// renegeSetup makes the receiver of BenchmarkRenegeAttack and returns the
// first hole's TSN and how many holes there are.
func (a *attacker) renegeSetup() (hole TSN, holes int) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: a.n, Interleaved: a.idata, RecvBuffer: attackBuffer})
	if err != nil {
		panic(err)
	}
	a.r, a.tsn, a.sid = &e.Recv, 1, 0
	one, k := []byte{1}, make([]byte, 1000)
	for range a.n {
		a.chunk(1, one) // held for good: message 0 never comes
	}
	hole = a.tsn
	for a.r.Window() >= 2*len(k) && uint32(a.tsn-hole) < tsnMapBits-2 {
		a.tsn++ // a hole
		a.sid = 0
		a.chunk(uint32(a.tsn), k)
		holes++
	}
	return hole, holes
}

func benchRenege(b *testing.B, n int, idata bool) {
	a := &attacker{n: n, idata: idata}
	hole, holes := a.renegeSetup()
	k := make([]byte, 1000)
	dropped := a.r.stats.DroppedReneged
	b.ReportAllocs()
	b.ResetTimer()
	for i, used := 0, 0; i < b.N; i, used = i+1, used+1 {
		if used >= holes/3 {
			b.StopTimer()
			dropped -= a.r.stats.DroppedReneged
			hole, holes = a.renegeSetup()
			dropped += a.r.stats.DroppedReneged
			used = 0
			b.StartTimer()
		}
		a.tsn, a.sid = hole, 0
		a.chunk(uint32(hole), k)
		hole += 2
	}
	b.StopTimer()
	b.ReportMetric(float64(a.r.stats.DroppedReneged-dropped)/float64(b.N), "drops/op")
}
