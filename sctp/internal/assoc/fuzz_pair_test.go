package assoc

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// linkMutator changes the packets crossing the simulated network as the
// fuzz input says, one operation per packet while the input lasts: pass,
// flip a bit, truncate, duplicate, replay an earlier packet, swap two
// chunks; the CRC is recomputed so that the endpoints parse the result.
// Bits are not flipped in the chunks whose corruption no receiver can
// detect and that change what the data is (DATA, SACK, SHUTDOWN and the
// others carrying TSNs, and the Initial TSN of INIT and INIT ACK): with
// the CRC recomputed, those would be forgeries of the peer's data, which
// no protocol without authentication resists.
type linkMutator struct {
	in     []byte
	replay [8][]byte
	n      int
}

func (m *linkMutator) byte() (byte, bool) {
	if len(m.in) == 0 {
		return 0, false
	}
	b := m.in[0]
	m.in = m.in[1:]
	return b, true
}

// chunkStarts returns the offsets of the chunks of pkt (at most 16).
func chunkStarts(pkt []byte) []int {
	var at []int
	for off := chunk.HeaderLen; off+4 <= len(pkt) && len(at) < 16; {
		at = append(at, off)
		l := int(binary.BigEndian.Uint16(pkt[off+2:]))
		if l < 4 {
			break
		}
		off += (l + 3) &^ 3
	}
	return at
}

// protected reports whether the byte at i of pkt belongs to a chunk whose
// bits the mutator leaves alone.
func protected(pkt []byte, i int) bool {
	if i < chunk.HeaderLen {
		return false
	}
	for _, off := range chunkStarts(pkt) {
		l := int(binary.BigEndian.Uint16(pkt[off+2:]))
		if i >= off && i < off+max(l, 4) {
			switch chunk.Type(pkt[off]) {
			case chunk.TypeData, chunk.TypeIData, chunk.TypeSack, chunk.TypeShutdown,
				chunk.TypeForwardTSN, chunk.TypeIForwardTSN, chunk.TypeReconfig:
				return true
			case chunk.TypeInit, chunk.TypeInitAck:
				// The Initial TSN: a peer told another one waits for a
				// TSN that never comes, while its HEARTBEAT ACKs keep the
				// association up (RFC 9260 section 8.1 resets the error
				// count on them).
				return i >= off+16 && i < off+20
			}
			return false
		}
	}
	return true // padding or beyond the chunks: keep the walk simple
}

// mutate returns the packets to deliver in place of pkt.
func (m *linkMutator) mutate(pkt []byte) [][]byte {
	op, ok := m.byte()
	if !ok {
		return [][]byte{pkt}
	}
	keep := append([]byte(nil), pkt...)
	m.replay[m.n%len(m.replay)] = keep
	m.n++
	arg, _ := m.byte()
	b := append([]byte(nil), pkt...)
	switch op % 7 {
	case 0, 1:
		return [][]byte{pkt}
	case 2: // flip a bit
		i := int(arg) * len(b) / 256
		if protected(b, i) {
			return [][]byte{pkt}
		}
		bit, _ := m.byte()
		b[i] ^= 1 << (bit % 8)
	case 3: // truncate
		b = b[:chunk.HeaderLen+int(arg)*(len(b)-chunk.HeaderLen)/256]
	case 4: // duplicate
		return [][]byte{pkt, b}
	case 5: // replay an earlier packet after this one
		if r := m.replay[int(arg)%len(m.replay)]; r != nil {
			return [][]byte{pkt, r}
		}
		return [][]byte{pkt}
	case 6: // swap two chunks
		at := chunkStarts(b)
		if len(at) < 2 {
			return [][]byte{pkt}
		}
		i := int(arg) % (len(at) - 1)
		end := len(b)
		if i+2 < len(at) {
			end = at[i+2]
		}
		first, second := b[at[i]:at[i+1]], b[at[i+1]:end]
		if len(first)%4 != 0 || len(second)%4 != 0 {
			return [][]byte{pkt}
		}
		sw := append(append([]byte(nil), second...), first...)
		copy(b[at[i]:], sw)
	}
	return [][]byte{finishPacket(b, 0)}
}

// FuzzAssocPair runs two cores over the simulated network with the packets
// between them mutated as the input says, moving messages both ways, then
// shutting down. Whatever the mutations: no panic; on each stream, only
// messages that were sent, whole, and the ordered ones in order; the
// memory budget never exceeded; and once the mutations end, the
// associations finish or abort within bounded virtual time.
func FuzzAssocPair(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 100, 3, 3, 50, 4, 9, 5, 3, 6, 1, 2, 200, 7})
	f.Add([]byte{4, 0, 4, 0, 5, 1, 5, 2, 6, 0, 6, 1, 3, 128, 2, 16, 1})
	r := rand.New(rand.NewPCG(1, 2))
	seed := make([]byte, 300)
	for i := range seed {
		seed[i] = byte(r.Uint32())
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			return
		}
		runMutatedPair(t, in)
	})
}

func runMutatedPair(t *testing.T, in []byte) {
	const perSide = 40
	now := t0
	net := simnet.New(1)
	addrs := [2]netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")}
	var eps [2]*Endpoint
	var links [2]int
	for i := range 2 {
		eps[i] = NewEndpoint(Config{Rand: newTestRand(byte(i + 1)), OutStreams: 8, InStreams: 8,
			Timers:  api.Timers{MaxRetransmits: 4, RTOMax: 10 * time.Second, HeartbeatInterval: 5 * time.Second},
			Buffers: api.Buffers{RecvBuffer: 64 << 10}, Limits: api.Limits{MemoryBudget: 256 << 10}}, now)
		links[i] = net.AddLink(simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond})
	}
	m := &linkMutator{in: in}
	var as [2]*Assoc
	a0, err := eps[0].connect(now, addrs[1], 5000, 5001)
	if err != nil {
		t.Fatal(err)
	}
	as[0] = a0
	var flows [2]flowState
	for i := range flows {
		flows[i].seen = make(map[uint64]bool)
	}
	out := make([]byte, 0, 4096)
	rbuf := make([]byte, 64<<10)
	buf := make([]byte, 0, 2048)
	rng := rand.New(rand.NewPCG(3, 4))
	var cleanSince time.Time
	shutdown := false
	for steps := 0; ; steps++ {
		if steps > 200_000 {
			t.Fatalf("not done after %d steps", steps)
		}
		// The applications: send, read, shut down when all is read.
		for side := range 2 {
			a := as[side]
			if a == nil {
				continue
			}
			f := &flows[side]
			for f.sent < perSide && a.state == stateEstablished {
				sid := uint16(rng.IntN(int(a.outStreams)))
				msg := message(side, sid, f.nextSend[sid], out)
				err := a.send(now, sid, uint32(sid), unordered(msg), msg)
				if errors.Is(err, api.ErrWouldBlock) {
					break
				}
				if err != nil {
					t.Fatalf("side %d send: %v", side, err)
				}
				f.nextSend[sid]++
				f.sent++
			}
			rf := &flows[1-side]
			for {
				e := a.data.eng
				if e == nil {
					e = a.data.kept
				}
				if e == nil || !e.Readable() {
					break
				}
				n, info, err := a.read(rbuf)
				if err != nil {
					break
				}
				if !info.EOR {
					t.Fatalf("message larger than the read buffer")
				}
				checkMessage(t, 1-side, rbuf[:n], info, rf)
			}
		}
		if !shutdown && as[1] != nil && flows[0].received == perSide && flows[1].received == perSide {
			shutdown = true
			as[0].Shutdown(now)
		}
		if as[0].closed && (as[1] == nil || as[1].closed) {
			if len(in) == 0 && (!shutdown || flows[0].received != perSide || flows[1].received != perSide) {
				t.Fatalf("clean run ended with %d and %d of %d messages, shutdown %v",
					flows[0].received, flows[1].received, perSide, shutdown)
			}
			t.Logf("received %d and %d of %d; shutdown %v; %v virtual", flows[0].received, flows[1].received, perSide, shutdown, now.Sub(t0))
			return
		}
		// The network: send, jump to the next event, deliver (mutated).
		for i, ep := range eps {
			for {
				po, ok := ep.Poll(now, buf[:0])
				b := po.Data
				if !ok {
					break
				}
				net.Send(now, links[i], b)
			}
		}
		next, ok := net.Next()
		for _, ep := range eps {
			if d := ep.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
				next, ok = d, true
			}
		}
		if !ok {
			t.Fatalf("idle before the end: states %v %v", as[0].state, as[1])
		}
		if next.After(now) {
			now = next
		}
		if len(m.in) == 0 && cleanSince.IsZero() {
			cleanSince = now
		}
		if !cleanSince.IsZero() && now.Sub(cleanSince) > time.Hour {
			t.Fatalf("not finished an hour after the mutations ended: states %v %v, received %d and %d",
				as[0].state, as[1], flows[0].received, flows[1].received)
		}
		for pk := net.Pop(now); pk != nil; pk = net.Pop(now) {
			to := 1
			if pk.Link == links[1] {
				to = 0
			}
			for _, b := range m.mutate(pk.Data) {
				eps[to].receive(now, addrs[1-to], b)
			}
			net.Free(pk)
		}
		for i, ep := range eps {
			ep.Expire(now)
			for {
				e := ep.NextEvent()
				if e == nil {
					break
				}
				switch {
				case e.Kind == api.EventRestart:
					// A peer restart may deliver a message again (those
					// not acknowledged are requeued): the checks end.
					return
				case i == 1 && e.Kind == api.EventUp && as[1] == nil:
					as[1] = e.Assoc
				case i == 1 && e.Kind == api.EventUp && e.Assoc != as[1]:
					// A second association on side 1: its first must
					// have ended (a replay of its own ABORT with the T
					// bit carries its peer's tag and is accepted, RFC
					// 9260 section 8.5.1), and side 0's retransmitted
					// COOKIE ECHO made another. Like a restart, it may
					// lose or deliver again what the first took: the
					// checks end.
					if !as[1].closed {
						t.Fatalf("side 1: a second association up while the first is %v", as[1].state)
					}
					return
				}
			}
			if b := ep.budget; b.Used() > b.Limit() {
				t.Fatalf("side %d: budget %d used of %d", i, b.Used(), b.Limit())
			}
		}
	}
}
