package transfer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
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
// receiver.Charged).
const attackBuffer = 8 << 20

// streamsBuffer returns the receive buffer of BenchmarkPartialAttack with
// n streams: attackBuffer, and what the side objects of n streams holding
// a fragment each cost (see receiver.charged), so that the partial
// delivery point is reached as with few streams.
func streamsBuffer(n int) int { return attackBuffer + n*interleave.SideCost }

// renegeBuffer returns the receive buffer of BenchmarkRenegeAttack with n
// streams: attackBuffer and half what the side objects of n streams
// holding a fragment each cost, so that, as with few streams, the window
// fills before the TSN map.
func renegeBuffer(n int) int { return attackBuffer + n*interleave.SideCost/2 }

// attacker is the peer of BenchmarkPartialAttack.
type attacker struct {
	r     *receiver
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
		_, err = a.r.handleIData(epoch, &a.id)
	} else {
		a.d = Data{TSN: a.tsn, SID: uint16(a.sid), SSN: uint16(seq), PPID: 1, Flags: chunk.FlagBeginning, Payload: p}
		_, err = a.r.handleData(epoch, &a.d)
	}
	if err != nil {
		panic(err)
	}
	a.r.endPacket(epoch)
	a.tsn++
	a.sid = (a.sid + 1) % a.n
}

// setup makes a fresh receiver with a first fragment held on every stream
// and, on stream 0, later messages that take the held bytes past the
// partial delivery point (in large chunks, so that getting there costs
// few checks even where each check looks at every stream).
func (a *attacker) setup() {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: a.n, Interleaved: a.idata, Buffers: api.Buffers{RecvBuffer: streamsBuffer(a.n)}})
	if err != nil {
		panic(err)
	}
	a.r, a.tsn, a.sid = &e.recv, 1, 0
	one, big := []byte{1}, make([]byte, 60000)
	for range a.n {
		a.chunk(0, one) // the next message of each stream: a candidate
	}
	for a.mid = 1; a.r.held() < a.r.win.pdPoint; a.mid++ {
		a.sid = 0
		if a.r.window() < len(big) {
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
		if a.r.window() < 64<<10 {
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
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: a.n, Interleaved: a.idata, Buffers: api.Buffers{RecvBuffer: renegeBuffer(a.n)}})
	if err != nil {
		panic(err)
	}
	a.r, a.tsn, a.sid = &e.recv, 1, 0
	one, k := []byte{1}, make([]byte, 1000)
	for range a.n {
		a.chunk(1, one) // held for good: message 0 never comes
	}
	hole = a.tsn
	for a.r.window() >= 2*len(k) && uint32(a.tsn-hole) < tsnMapBits-2 {
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

// BenchmarkReorderAttack measures the receiver when the fragments of one
// stream come in an order that makes each find its place among many held
// on that stream (the work per chunk must not grow with the fragments
// held). The first fragment of ordered message 0 of stream 0
// never comes, so every later fragment of it waits; held fragments start
// at every other TSN of a range (placed in random order off the clock),
// and each op is one DATA chunk filling one of the holes between them, in
// random order or from the highest hole down (each just below the tail:
// the worst case for a walk from the head). The receiver is rebuilt off
// the clock when the holes are used up; fragments held grow from held to
// twice held (held=32768: I-DATA only).
//
// With I-DATA (idata/...) the fragments are placed by FSN, not TSN: the
// held ones at odd FSNs of ordered message 0, the holes at even FSNs, each
// chunk with the next TSN.
func BenchmarkReorderAttack(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, order := range []string{"random", "descending"} {
			helds := []int{1 << 10, 1 << 12, 1<<13 - 8}
			if idata {
				// I-DATA's fragments are placed by FSN and come with
				// consecutive TSNs: the TSN map does not bound them.
				helds = append(helds, 1<<15)
			}
			for _, held := range helds {
				name := fmt.Sprintf("%s/held=%d", order, held)
				if idata {
					name = "idata/" + name
				}
				b.Run(name, func(b *testing.B) {
					benchReorder(b, held, order == "random", idata)
				})
			}
		}
	}
}

var reorderPayload = [1]byte{1}

// reorderChunk sends the fragment at offset off of the held message:
// DATA at TSN off, I-DATA at FSN off with the next TSN.
func (a *attacker) reorderChunk(off TSN) (Verdict, error) {
	p := reorderPayload[:]
	if a.idata {
		a.id = IData{TSN: a.tsn, SID: 0, MID: 0, FSN: uint32(off), PPID: 1, Payload: p}
		a.tsn++
		return a.r.handleIData(epoch, &a.id)
	}
	a.d = Data{TSN: off, SID: 0, SSN: 0, PPID: 1, Payload: p}
	return a.r.handleData(epoch, &a.d)
}

// reorderSetup makes the receiver of BenchmarkReorderAttack holding held
// fragments and returns the TSNs of the holes, in the order to fill them.
func (a *attacker) reorderSetup(held int, random bool, rng *rand.Rand) []TSN {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{RecvBuffer: attackBuffer},
		Interleaved: a.idata, InterleaveFSN: interleave.FSNRFC})
	if err != nil {
		panic(err)
	}
	a.r, a.n, a.tsn = &e.recv, 1, 1
	// TSN 1 (the message's first fragment) never comes; the message's
	// middle fragments are at 2, 3, ...: the held ones at even offsets.
	first := TSN(2)
	held0 := rng.Perm(held)
	for _, i := range held0 {
		if v, err := a.reorderChunk(first + TSN(2*i)); v != Accepted || err != nil {
			panic(fmt.Sprint("setup chunk not accepted: ", v, err))
		}
		a.r.endPacket(epoch)
	}
	holes := make([]TSN, held-1)
	for i := range holes {
		holes[i] = first + TSN(2*i+1)
	}
	if random {
		rng.Shuffle(len(holes), func(i, j int) { holes[i], holes[j] = holes[j], holes[i] })
	} else {
		slices.Reverse(holes)
	}
	return holes
}

func benchReorder(b *testing.B, held int, random, idata bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := &attacker{idata: idata}
	holes := a.reorderSetup(held, random, rng)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(holes) == 0 {
			b.StopTimer()
			holes = a.reorderSetup(held, random, rng)
			b.StartTimer()
		}
		v, err := a.reorderChunk(holes[0])
		holes = holes[1:]
		if v != Accepted || err != nil {
			b.Fatal("chunk not accepted: ", v, err)
		}
		a.r.endPacket(epoch)
	}
}

// BenchmarkForwardFlood measures the receiver under a flood of FORWARD-TSN
// chunks (RFC 3758) while every inbound stream holds a fragment (the
// work per packet must not grow with the streams in use). Each op is
// one FORWARD-TSN: out of date (its New Cumulative TSN at the cumulative
// TSN, which the receiver still applies), or moving the cumulative TSN on
// by one, with no stream entry or naming the next stream. One FORWARD-TSN
// is applied before the clock starts: the first looks at the fragments
// held once (each fragment is looked at by one FORWARD-TSN).
//
// With I-DATA (idata/...) the flood is of I-FORWARD-TSN chunks (RFC 8260
// section 2.3.1), the entry naming ordered MID 0.
func BenchmarkForwardFlood(b *testing.B) {
	for _, idata := range []bool{false, true} {
		for _, mode := range []string{"stale", "advance", "advance+entry"} {
			for _, n := range []int{64, 4096, 65535} {
				name := fmt.Sprintf("%s/streams=%d", mode, n)
				if idata {
					name = "idata/" + name
				}
				b.Run(name, func(b *testing.B) { benchForwardFlood(b, n, mode, idata) })
			}
		}
	}
}

func benchForwardFlood(b *testing.B, n int, mode string, idata bool) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: n, Buffers: api.Buffers{RecvBuffer: streamsBuffer(n)}, PartialReliability: true, Interleaved: idata})
	if err != nil {
		b.Fatal(err)
	}
	a := &attacker{r: &e.recv, n: n, tsn: 1, idata: idata}
	one := []byte{1}
	for range n {
		a.chunk(1, one) // held for good: message 0 never comes
	}
	cum := a.tsn - 1
	var buf []byte
	var entry [1]chunk.StreamSSN
	var ientry [1]chunk.StreamMID
	forward := func(i int) {
		es, ies := entry[:0], ientry[:0]
		if mode != "stale" {
			cum++
		}
		if mode == "advance+entry" {
			entry[0] = chunk.StreamSSN{SID: uint16(i % n), SSN: 0}
			ientry[0] = chunk.StreamMID{SID: uint16(i % n), MID: 0}
			es, ies = entry[:], ientry[:]
		}
		if idata {
			buf, _ = chunk.AppendIForwardTSN(buf[:0], cum, ies)
		} else {
			buf, _ = chunk.AppendForwardTSN(buf[:0], cum, es)
		}
		it := chunk.Chunks(buf)
		c, _ := it.Next()
		var err error
		if idata {
			err = a.r.handleIForwardTSN(epoch, c)
		} else {
			err = a.r.handleForwardTSN(epoch, c)
		}
		if err != nil {
			b.Fatal(err)
		}
		a.r.endPacket(epoch)
	}
	forward(0)
	held := a.r.held()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		forward(i + 1)
	}
	b.StopTimer()
	if a.r.held() > held {
		b.Fatalf("held %d bytes, %d before", a.r.held(), held)
	}
}

// BenchmarkSequenceAttack measures the receiver when a peer sends the
// fragments of I-DATA messages in sequence and never their end (the work
// per chunk must not grow with the fragments held): each op is
// the next fragment (1 byte) of a message that already has held fragments
// in sequence, so a receiver that looks for the message's end from its
// start walks them all. "ordered": one ordered message; "unordered": two
// unordered messages of one stream whose fragments alternate. The
// receiver is rebuilt off the clock when the fragments held reach twice
// held.
func BenchmarkSequenceAttack(b *testing.B) {
	for _, mode := range []string{"ordered", "unordered"} {
		for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
			b.Run(fmt.Sprintf("%s/held=%d", mode, held), func(b *testing.B) {
				benchSequence(b, held, mode == "unordered")
			})
		}
	}
}

// seqAttacker is the peer of BenchmarkSequenceAttack.
type seqAttacker struct {
	r     *receiver
	tsn   TSN
	fsn   [2]uint32 // next FSN of each message
	n     int       // fragments sent
	uo    bool
	chunk IData
}

func (a *seqAttacker) send() {
	m := 0
	if a.uo {
		m = a.n % 2
	}
	flags := uint8(0)
	if a.fsn[m] == 0 {
		flags = chunk.FlagBeginning
	}
	if a.uo {
		flags |= chunk.FlagUnordered
	}
	a.chunk = IData{TSN: a.tsn, SID: 0, MID: uint32(m), FSN: a.fsn[m], PPID: 1, Flags: flags, Payload: reorderPayload[:]}
	if v, err := a.r.handleIData(epoch, &a.chunk); v != Accepted || err != nil {
		panic(fmt.Sprint("chunk not accepted: ", v, err))
	}
	a.r.endPacket(epoch)
	a.tsn++
	a.fsn[m]++
	a.n++
}

func (a *seqAttacker) setup(held int) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{RecvBuffer: attackBuffer},
		Interleaved: true, InterleaveFSN: interleave.FSNRFC})
	if err != nil {
		panic(err)
	}
	*a = seqAttacker{r: &e.recv, tsn: 1, uo: a.uo}
	for range held {
		a.send()
	}
}

func benchSequence(b *testing.B, held int, uo bool) {
	a := &seqAttacker{uo: uo}
	a.setup(held)
	if a.r.reasm.InPartial(0) {
		b.Fatal("partial delivery started during the setup")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a.n >= 2*held {
			b.StopTimer()
			a.setup(held)
			b.StartTimer()
		}
		a.send()
	}
}

// BenchmarkAmbiguityAttack measures the I-DATA receiver with the FSN
// convention left to detect (FSNAuto, the default) when a peer keeps it
// undecided: the second fragment (FSN 1) of a message comes after a TSN
// hole that is never filled, so the receiver cannot tell RFC 8260's
// numbering from Linux's, and each op is one more fragment of that message
// while every other inbound stream holds a fragment. The cost per chunk
// must not grow with the streams in use.
func BenchmarkAmbiguityAttack(b *testing.B) {
	for _, n := range []int{64, 4096, 65535} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			a := &attacker{n: n, idata: true}
			var fsn uint32
			setup := func() {
				e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: n, Interleaved: true, Buffers: api.Buffers{RecvBuffer: streamsBuffer(n)}})
				if err != nil {
					panic(err)
				}
				a.r, a.tsn, a.sid = &e.recv, 1, 1%n
				for range n - 1 {
					a.chunk(1, reorderPayload[:]) // held: message 0 never comes
				}
				a.sid = 0
				a.chunk(0, reorderPayload[:]) // stream 0's next message starts
				a.tsn++                       // a hole that is never filled
				fsn = 1
			}
			send := func() {
				a.id = IData{TSN: a.tsn, SID: 0, MID: 0, FSN: fsn, Payload: reorderPayload[:]}
				if v, err := a.r.handleIData(epoch, &a.id); v != Accepted || err != nil {
					panic(fmt.Sprint("chunk not accepted: ", v, err))
				}
				a.r.endPacket(epoch)
				a.tsn++
				fsn++
			}
			setup()
			send()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Start over before the window fills, or before the next
				// TSN leaves the TSN map's window above the hole (with
				// few streams that comes first).
				if a.r.window() < 64<<10 || !a.r.tsns.inWindow(a.tsn) {
					b.StopTimer()
					setup()
					send()
					b.StartTimer()
				}
				send()
			}
		})
	}
}

// BenchmarkIForwardAttack measures the I-DATA receiver when a peer holds
// many fragments on one stream and alternates one more fragment with one
// I-FORWARD-TSN (the work per chunk must not grow with the fragments
// held). The fragments held are those of BenchmarkSequenceAttack
// (one ordered message, or two unordered ones, in sequence and never
// ended). Each op is two chunks: the next fragment in sequence, then an
// I-FORWARD-TSN whose New Cumulative TSN is that fragment's TSN (so the
// stream has a fragment a receiver must judge) and whose entry skips
// nothing held ("nothing": an unordered MID far from those held) or one
// message ("one": each op also sends the first fragment of a new unordered
// message first, which the entry then skips; "whole": each op also sends
// a whole unordered message in one chunk first, which is delivered at
// once). The time is per op.
func BenchmarkIForwardAttack(b *testing.B) {
	for _, mode := range []string{"ordered/nothing", "unordered/nothing", "ordered/one", "unordered/one", "ordered/whole"} {
		for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
			b.Run(fmt.Sprintf("%s/held=%d", mode, held), func(b *testing.B) {
				benchIForward(b, held, strings.HasPrefix(mode, "unordered"), strings.TrimLeft(mode, "ordered/un"))
			})
		}
	}
}

func benchIForward(b *testing.B, held int, uo bool, extra string) {
	one := extra == "one"
	a := &seqAttacker{uo: uo}
	a.setup(held)
	var buf []byte
	var entry [1]chunk.StreamMID
	// The unordered MIDs of the skipped messages, 2^31 or more past those
	// held (0 and 1), which serial arithmetic reads as behind them.
	victim := uint32(1<<31 + 1<<20)
	op := func() {
		skip := uint32(1<<31 + 1<<20) // serially after nothing held
		if one {
			victim++
			c := IData{TSN: a.tsn, SID: 0, MID: victim, PPID: 1, Flags: chunk.FlagBeginning | chunk.FlagUnordered, Payload: reorderPayload[:]}
			if v, err := a.r.handleIData(epoch, &c); v != Accepted || err != nil {
				b.Fatal("chunk not accepted: ", v, err)
			}
			a.r.endPacket(epoch)
			a.tsn++
			skip = victim
		}
		if extra == "whole" {
			c := IData{TSN: a.tsn, SID: 0, MID: 7, PPID: 1, Flags: chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered, Payload: reorderPayload[:]}
			if v, err := a.r.handleIData(epoch, &c); v != Accepted || err != nil {
				b.Fatal("chunk not accepted: ", v, err)
			}
			a.r.endPacket(epoch)
			a.tsn++
			if f := a.r.reasm.Pop(); f != nil {
				a.r.reasm.Pool().Put(f)
			}
		}
		a.send()
		entry[0] = chunk.StreamMID{SID: 0, Unordered: true, MID: skip}
		buf, _ = chunk.AppendIForwardTSN(buf[:0], a.tsn-1, entry[:])
		it := chunk.Chunks(buf)
		c, _ := it.Next()
		if err := a.r.handleIForwardTSN(epoch, c); err != nil {
			b.Fatal(err)
		}
		a.r.endPacket(epoch)
	}
	op()
	if a.r.reasm.InPartial(0) {
		b.Fatal("partial delivery started during the setup")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a.n >= 2*held {
			b.StopTimer()
			a.setup(held)
			b.StartTimer()
		}
		op()
	}
	b.StopTimer()
	if a.r.held() < held || (one && a.r.held() > 2*held+8) {
		b.Fatalf("held %d bytes: the skipped messages stayed", a.r.held())
	}
}

// BenchmarkIForwardPassAttack measures the I-DATA receiver under two more
// I-FORWARD-TSN patterns (the work per chunk must not grow with the
// fragments held). Stream 0 holds held first fragments of ordered
// messages whose message 0 never comes, so they stay.
//
//   - sparse: the fragments held are above the cumulative TSN, on every
//     other TSN; each op is one more such fragment at the top and one
//     I-FORWARD-TSN that passes exactly one hole and one fragment (which
//     stays, in sequence). held is bounded by the TSN map (16384 TSNs).
//   - mixed: as sparse, but held/2 more fragments at or below the
//     cumulative TSN, looked at by an I-FORWARD-TSN, lie between those
//     above it in the order of MIDs (odd MIDs looked at, even ones
//     above), so that no subtree of a stream's tree holds only one kind.
//   - renege: the fragments held are at or below the cumulative TSN
//     (looked at by an I-FORWARD-TSN), and the window is full of 1000-byte
//     fragments above it on every other TSN; each op fills the lowest
//     hole, which makes the receiver renege the highest fragment held, and
//     sends an I-FORWARD-TSN past the next hole.
//   - pastend: the fragments held are at or below the cumulative TSN
//     (looked at by an I-FORWARD-TSN); each op is an unordered message of
//     two fragments and one more past its end (sent first), so that the
//     message is delivered with a fragment of it left behind, and an
//     I-FORWARD-TSN past them (which finds the fragment left dead).
//
// The time is per op (two chunks; pastend: four).
func BenchmarkIForwardPassAttack(b *testing.B) {
	for _, mode := range []string{"sparse", "mixed", "renege", "pastend"} {
		helds := []int{1 << 10, 1 << 12, 1<<13 - 8}
		if mode == "renege" || mode == "pastend" {
			helds = append(helds, 1<<15)
		}
		for _, held := range helds {
			b.Run(fmt.Sprintf("%s/held=%d", mode, held), func(b *testing.B) {
				benchIForwardPass(b, held, mode)
			})
		}
	}
}

// passAttacker is the peer of BenchmarkIForwardPassAttack.
type passAttacker struct {
	r     *receiver
	mid   uint32 // next MID
	top   TSN    // next TSN at the top
	hole  TSN    // lowest hole
	holes int    // holes left to use
	buf   []byte
	c     IData
}

// send sends the first fragment of the next ordered message of stream 0
// with TSN t.
func (a *passAttacker) send(b *testing.B, t TSN, p []byte) {
	a.c = IData{TSN: t, SID: 0, MID: a.mid, PPID: 1, Flags: chunk.FlagBeginning, Payload: p}
	a.mid++
	if v, err := a.r.handleIData(epoch, &a.c); v != Accepted || err != nil {
		b.Fatal("chunk not accepted: ", v, err)
	}
	a.r.endPacket(epoch)
}

// forward sends an I-FORWARD-TSN with New Cumulative TSN cum and no
// entries.
func (a *passAttacker) forward(b *testing.B, cum TSN) {
	a.buf, _ = chunk.AppendIForwardTSN(a.buf[:0], cum, nil)
	it := chunk.Chunks(a.buf)
	c, _ := it.Next()
	if err := a.r.handleIForwardTSN(epoch, c); err != nil {
		b.Fatal(err)
	}
	a.r.endPacket(epoch)
}

func (a *passAttacker) setup(b *testing.B, held int, mode string) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{RecvBuffer: attackBuffer},
		Interleaved: true, InterleaveFSN: interleave.FSNRFC})
	if err != nil {
		b.Fatal(err)
	}
	*a = passAttacker{r: &e.recv, mid: 1, buf: a.buf}
	one := reorderPayload[:]
	if mode == "mixed" {
		h := held / 2
		for i := range h {
			a.mid = uint32(2*i + 1)
			a.send(b, TSN(i+1), one) // in sequence: the cumulative TSN follows
		}
		for i := range h {
			a.mid = uint32(2*i + 2)
			a.send(b, TSN(h+2+2*i), one) // TSN h+1, h+3, ... never come
		}
		a.forward(b, TSN(h+2)) // the stream is looked at once
		a.top, a.hole = TSN(3*h+2), TSN(h+3)
		return
	}
	if mode == "pastend" {
		for i := range held {
			a.send(b, TSN(i+1), one)
		}
		a.send(b, TSN(held+2), one)
		a.forward(b, TSN(held+1)) // the stream is looked at once
		a.top = TSN(held + 3)
		return
	}
	if mode == "sparse" {
		// TSN 1, 3, 5, ... never come.
		for i := range held {
			a.send(b, TSN(2*i+2), one)
		}
		a.top, a.hole = TSN(2*held+2), 1
		return
	}
	for i := range held {
		a.send(b, TSN(i+1), one) // in sequence: the cumulative TSN follows
	}
	a.send(b, TSN(held+2), one)
	a.forward(b, TSN(held+1)) // the stream is looked at once
	k := make([]byte, 1000)
	a.hole = TSN(held + 3)
	for t := a.hole + 1; a.r.window() >= 2*len(k) && uint32(t-a.hole) < tsnMapBits-2; t += 2 {
		a.send(b, t, k)
		a.holes++
	}
}

func benchIForwardPass(b *testing.B, held int, mode string) {
	renege := mode == "renege"
	a := &passAttacker{}
	a.setup(b, held, mode)
	k := make([]byte, 1000)
	reneged := a.r.stats.DroppedReneged
	var umid uint32
	op := func() {
		if mode == "pastend" {
			// TSN a.top never comes: the I-FORWARD-TSN passes it.
			umid++
			for i, c := range [...]IData{
				{TSN: a.top + 1, MID: umid, FSN: 5, Flags: chunk.FlagUnordered},
				{TSN: a.top + 2, MID: umid, PPID: 1, Flags: chunk.FlagUnordered | chunk.FlagBeginning},
				{TSN: a.top + 3, MID: umid, FSN: 1, Flags: chunk.FlagUnordered | chunk.FlagEnd},
			} {
				a.c = c
				a.c.Payload = reorderPayload[:]
				if v, err := a.r.handleIData(epoch, &a.c); v != Accepted || err != nil {
					b.Fatal("chunk ", i, " not accepted: ", v, err)
				}
				a.r.endPacket(epoch)
			}
			for f := a.r.reasm.Pop(); f != nil; f = a.r.reasm.Pop() {
				a.r.reasm.Pool().Put(f)
			}
			a.forward(b, a.top+3)
			a.top += 4
			return
		}
		if renege {
			a.send(b, a.hole, k) // fills the lowest hole: the receiver reneges
			a.forward(b, a.hole+2)
			a.hole += 4
			a.holes -= 3 // two used, one lost with the fragment reneged at the top
			return
		}
		a.send(b, a.top, reorderPayload[:])
		a.top += 2
		a.forward(b, a.hole+1)
		a.hole += 2
	}
	op()
	if a.r.reasm.InPartial(0) {
		b.Fatal("partial delivery started during the setup")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i, used := 0, 0; i < b.N; i, used = i+1, used+1 {
		if (renege && a.holes < 8) || (mode != "renege" && mode != "pastend" && used >= held/2) {
			b.StopTimer()
			reneged -= a.r.stats.DroppedReneged
			a.setup(b, held, mode)
			reneged += a.r.stats.DroppedReneged
			used = 0
			b.StartTimer()
		}
		op()
	}
	b.StopTimer()
	if a.r.held() < held/2 {
		b.Fatalf("held %d bytes, want at least %d", a.r.held(), held/2)
	}
	if mode == "pastend" && a.r.held() > held+8 {
		b.Fatalf("held %d bytes: the fragments left past their message's end stayed", a.r.held())
	}
	if renege {
		b.ReportMetric(float64(a.r.stats.DroppedReneged-reneged)/float64(b.N), "reneged/op")
	}
}

// BenchmarkIForwardCoverAttack measures the I-DATA receiver under the two
// patterns that would send a stream to a look at every fragment it holds
// at the next I-FORWARD-TSN. Stream 0 holds held first fragments of
// ordered messages whose message 0 never comes, at or below the cumulative
// TSN (looked at by an I-FORWARD-TSN), and message held+1, looked at too;
// the window is full of 1000-byte fragments just below a high TSN X.
//
//   - misnumbered: message held+1 has its first fragment and FSN 2 at or
//     below the cumulative TSN, and FSN 1 (numbered before FSN 2, sent
//     after it) at X, the highest TSN held, filling what is left of the
//     window. Each op sends a first fragment of a new message at the
//     cumulative TSN + 1, which makes the receiver renege FSN 1 (RFC 9260
//     section 6.2), resends FSN 1 at X, and sends an I-FORWARD-TSN to the
//     new cumulative TSN: three chunks.
//   - fsn0: message held+1 has its first fragment, FSN 1 and FSN 2 at or
//     below the cumulative TSN. Each op sends a late end fragment of it
//     numbered 0 (which RFC 8260 gives to none but the first) at X, filling
//     the window, then a first fragment of a new message at the cumulative
//     TSN + 1, which makes the receiver renege it, and an I-FORWARD-TSN:
//     three chunks.
//   - long, longfsn0: as misnumbered and fsn0, but the fragments held are
//     those of message 1 (the one whose fragments leave), in sequence:
//     these measure the completeness walk after the cut (interleave's
//     unlinkOne and flagTail).
//
// The time is per op (three chunks).
func BenchmarkIForwardCoverAttack(b *testing.B) {
	for _, mode := range []string{"misnumbered", "fsn0", "long", "longfsn0"} {
		for _, held := range []int{1 << 10, 1 << 12, 1 << 13, 1 << 15} {
			b.Run(fmt.Sprintf("%s/held=%d", mode, held), func(b *testing.B) {
				benchIForwardCover(b, held, mode)
			})
		}
	}
}

// coverAttacker is the peer of BenchmarkIForwardCoverAttack.
type coverAttacker struct {
	passAttacker
	mode  string
	m     uint32 // the message whose fragments leave
	x     TSN    // the high TSN
	floor TSN    // the lowest filler's TSN
	cum   TSN
	ops   int        // since the setup
	top   [2048]byte // the fragment at X's payload
}

// frag sends one fragment of message m of stream 0 (ordered).
func (a *coverAttacker) frag(b *testing.B, t TSN, fsn uint32, flags uint8, p []byte) {
	a.c = IData{TSN: t, SID: 0, MID: a.m, FSN: fsn, Flags: flags, Payload: p}
	if flags&chunk.FlagBeginning != 0 {
		a.c.FSN, a.c.PPID = 0, 1
	}
	if v, err := a.r.handleIData(epoch, &a.c); v != Accepted || err != nil {
		b.Fatal("chunk TSN ", t, " FSN ", fsn, " not accepted: ", v, err, " x ", a.x, " cum ", a.cum, " held ", a.r.held(), " window ", a.r.window())
	}
	a.r.endPacket(epoch)
}

// fill returns a payload as large as the window takes without reneging
// (k must be at least that long), so that any chunk after it makes the
// receiver renege.
func (a *coverAttacker) fill(b *testing.B, k []byte) []byte {
	n := min(a.r.window(), len(k))
	for n > 0 && a.r.full(n) {
		n--
	}
	if n == 0 || !a.r.full(n+1) {
		b.Fatal("the window cannot be filled with one fragment: ", n)
	}
	return k[:n]
}

func (a *coverAttacker) setup(b *testing.B, held int, k []byte) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 1, InStreams: 1, Buffers: api.Buffers{RecvBuffer: attackBuffer},
		Interleaved: true, InterleaveFSN: interleave.FSNRFC})
	if err != nil {
		b.Fatal(err)
	}
	*a = coverAttacker{passAttacker: passAttacker{r: &e.recv, mid: 1, buf: a.buf}, mode: a.mode}
	one := reorderPayload[:]
	t := TSN(1)
	fsn0 := strings.HasSuffix(a.mode, "fsn0")
	if strings.HasPrefix(a.mode, "long") {
		a.m, a.mid = 1, 2
		a.frag(b, t, 0, chunk.FlagBeginning, one)
		first := 2 // FSN 1 comes at X
		if fsn0 {
			first = 1
		}
		for i := range held {
			a.frag(b, t+1+TSN(i), uint32(first+i), 0, one)
		}
		t += TSN(held) + 1
	} else {
		for range held {
			a.send(b, t, one)
			t++
		}
		a.m = a.mid
		a.mid++
		a.frag(b, t, 0, chunk.FlagBeginning, one)
		if a.mode == "fsn0" {
			a.frag(b, t+1, 1, 0, one)
			t++
		}
		a.frag(b, t+1, 2, 0, one)
		t += 2
	}
	a.cum = t - 1
	a.x = a.cum + tsnMapBits - 16
	a.floor = a.x
	for a.r.window() >= 2*len(k) {
		a.floor--
		a.send(b, a.floor, k)
	}
	if !fsn0 {
		a.frag(b, a.x, 1, 0, a.fill(b, a.top[:])) // FSN 1 above what the look passes
	}
	a.forward(b, a.cum)
}

func benchIForwardCover(b *testing.B, held int, mode string) {
	k := make([]byte, 1000) // the fillers'; the fragment at X takes up to 2000
	a := &coverAttacker{mode: mode}
	a.setup(b, held, k)
	one := reorderPayload[:]
	fsn0 := strings.HasSuffix(mode, "fsn0")
	op := func() {
		if fsn0 {
			a.frag(b, a.x, 0, chunk.FlagEnd, a.fill(b, a.top[:]))
		}
		a.cum++
		a.send(b, a.cum, one) // the window is full: the fragment at X goes
		if !fsn0 {
			a.frag(b, a.x, 1, 0, a.fill(b, a.top[:]))
		}
		a.forward(b, a.cum)
		a.ops++
	}
	reneged := a.r.stats.DroppedReneged
	op()
	if a.r.reasm.InPartial(0) {
		b.Fatal("partial delivery started during the setup")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Each op takes one byte of the window (left at 1000 or more
		// by the setup) and one TSN below the fillers.
		if a.ops >= 512 || a.cum+2 >= a.floor {
			b.StopTimer()
			reneged -= a.r.stats.DroppedReneged
			a.setup(b, held, k)
			reneged += a.r.stats.DroppedReneged
			b.StartTimer()
		}
		op()
	}
	b.StopTimer()
	if a.r.held() < held {
		b.Fatalf("held %d bytes, want at least %d: message %d was dropped", a.r.held(), held, a.m)
	}
	if got := float64(a.r.stats.DroppedReneged-reneged) / float64(b.N+1); got < 0.99 || got > 1.01 {
		b.Fatalf("%.2f fragments reneged per op, want 1", got)
	}
}

// BenchmarkOutResetFlood measures the sender under a flood of RE-CONFIG
// requests resetting every one of our outbound streams after every stream
// in use sent a message (its next SSN or MID is 1): "in", a peer's
// Incoming SSN Reset Request naming no stream, which we perform with an
// Outgoing SSN Reset Request of every stream (RFC 6525 section 5.2.3;
// beginOutgoingReset, ready, finishOutgoingReset); "assoc", a peer's
// SSN/TSN Reset Request (section 5.2.4; readyForTSNReset, resetTSN). Each
// op is one request and
// one message on the next stream, sent and acknowledged (a stream used
// again, numbered from 0). "waiting" is one packet's check whether our
// reset of every stream may leave (ready) while every stream still
// holds a message from before it, the peer's window closed. No cost may
// grow with the streams in use.
func BenchmarkOutResetFlood(b *testing.B) {
	for _, kind := range []string{"in", "assoc", "waiting"} {
		for _, idata := range []bool{false, true} {
			for _, n := range []int{1, 1024, 65535} {
				name := fmt.Sprintf("%s/streams=%d", kind, n)
				if idata {
					name = fmt.Sprintf("%s/idata/streams=%d", kind, n)
				}
				b.Run(name, func(b *testing.B) { benchOutResetFlood(b, kind, n, idata) })
			}
		}
	}
}

// outSender drives a sender for BenchmarkOutResetFlood.
type outSender struct {
	s    *sender
	pkt  []byte
	sack SACK
}

// queue queues a 1-byte message on each of sids.
func (o *outSender) queue(b *testing.B, sids ...uint16) {
	for _, sid := range sids {
		if err := o.s.enqueue(sid, 1, false, []byte{1}); err != nil {
			b.Fatal(err)
		}
	}
}

// send queues a 1-byte message on each of sids, cuts them and has the
// peer acknowledge everything.
func (o *outSender) send(b *testing.B, sids ...uint16) {
	o.queue(b, sids...)
	for o.s.queue.unsent > 0 || o.s.ledger.outstanding() > 0 {
		for {
			var n int
			if o.pkt, n = o.s.appendData(epoch, o.pkt[:0], 1200); n == 0 {
				break
			}
		}
		o.sack = SACK{CumTSNAck: o.s.ledger.nextTSN - 1, ARwnd: attackBuffer}
		if _, err := o.s.handleSACK(epoch, &o.sack); err != nil {
			b.Fatal(err)
		}
	}
}

func benchOutResetFlood(b *testing.B, kind string, n int, idata bool) {
	e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: n, InStreams: 1, Interleaved: idata,
		PeerRwnd: attackBuffer, Buffers: api.Buffers{SendBuffer: attackBuffer}})
	if err != nil {
		b.Fatal(err)
	}
	o := &outSender{s: &e.send, pkt: make([]byte, 0, 1500)}
	all := make([]uint16, n)
	for sid := range all {
		all[sid] = uint16(sid)
	}
	o.send(b, all...)
	if kind == "waiting" {
		// Every stream holds a message not yet cut (the peer's window
		// closed).
		o.queue(b, all...)
		o.s.beginOutgoingReset(nil)
		if o.s.resets.ready() {
			b.Fatal("ready with every stream holding a message")
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if o.s.resets.ready() {
				b.Fatal("ready with every stream holding a message")
			}
		}
		return
	}
	request := func() {
		if kind == "assoc" {
			if !o.s.readyForTSNReset() {
				b.Fatal("not quiet")
			}
			o.s.resetTSN(o.s.ledger.nextTSN)
			return
		}
		o.s.beginOutgoingReset(nil)
		if !o.s.resets.ready() {
			b.Fatal("not ready with nothing queued")
		}
		o.s.finishOutgoingReset(nil, true)
	}
	request() // the first reset looks at every stream used
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		request()
		o.send(b, uint16(i%n))
	}
}
