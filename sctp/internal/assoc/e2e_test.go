package assoc

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/simnet"
	"github.com/usctp/usctp/sctp/internal/transfer"

	"github.com/usctp/usctp/internal/testsupport"
)

// pair is two endpoints joined by a simulated network, each with one
// association to the other, driven by a discrete-event loop on a virtual
// clock: deliver the packets due, run the timers due, let the applications
// act, send what the endpoints produce, jump to the next event.
type pair struct {
	t      testing.TB
	now    time.Time
	net    *simnet.Network
	eps    [2]*Endpoint
	addrs  [2]netip.AddrPort
	links  [2]int // links[i]: from side i to the other side
	as     [2]*Assoc
	buf    []byte
	events [2][]Event
	trace  uint64 // hash of everything that happened, for determinism
	// admit, when set, may refuse a packet arriving at side to (a
	// receiver that drops whole packets, as Linux does when its buffer
	// cannot hold one): it is freed undelivered.
	admit func(to int, data []byte) bool

	// Bounds of step, so that a bug which keeps the endpoints busy fails
	// the test in seconds instead of spinning until the package timeout:
	// steps taken, and steps in a row at the same virtual time.
	steps, stalled int

	// gather: flush polls with PollGather into a buffer of stale bytes
	// and fills the holes before sending (gather_test.go); wire hashes
	// every packet sent.
	gather bool
	holes  []chunk.Hole
	wire   uint64
	holed  int // packets with holes
	// next: flush polls each endpoint's packets after the first with
	// PollNext, as the shell does (pollrun_test.go); runs counts the
	// packets PollNext built as part of a run.
	next bool
	runs int
	// onStep, when set, runs at the start of every step.
	onStep func(*pair)
}

// Step budgets of a pair: the longest test takes under 20,000 steps, and
// every step moves the virtual clock when the endpoints make progress.
const (
	maxSteps   = 500_000
	maxStalled = 1_000
)

func newPair(t testing.TB, seed uint64, link simnet.LinkConfig) *pair {
	p := &pair{t: t, now: t0, net: simnet.New(seed), buf: make([]byte, 0, 2048)}
	p.addrs = [2]netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")}
	for i := range 2 {
		cfg := Config{Rand: newTestRand(byte(seed) + byte(i)), MTU: 1452, OutStreams: 64, InStreams: 64,
			Buffers: api.Buffers{RecvBuffer: 256 << 10}}
		p.eps[i] = NewEndpoint(cfg, p.now)
		p.links[i] = p.net.AddLink(link)
	}
	return p
}

// flush sends every packet the endpoints have now.
func (p *pair) flush() {
	for i, ep := range p.eps {
		for n := 0; ; n++ {
			pk, ok := p.poll(ep, n > 0 && p.next)
			if !ok {
				break
			}
			if pk.MayFragment {
				p.net.SendFragmentable(p.now, p.links[i], pk.Data)
			} else {
				p.net.Send(p.now, p.links[i], pk.Data)
			}
		}
	}
}

// step advances to the next event and processes it. It reports false when
// nothing is left to happen.
func (p *pair) step() bool {
	if p.onStep != nil {
		p.onStep(p)
	}
	p.flush()
	next, ok := p.net.Next()
	for _, ep := range p.eps {
		if d := ep.Deadline(); !d.IsZero() && (!ok || d.Before(next)) {
			next, ok = d, true
		}
	}
	if !ok {
		return false
	}
	p.steps++
	if next.After(p.now) {
		p.now, p.stalled = next, 0
	} else if p.stalled++; p.stalled > maxStalled {
		p.t.Fatalf("no progress: %d steps at virtual time %v", p.stalled, p.now.Sub(t0))
	}
	if p.steps > maxSteps {
		p.t.Fatalf("not done after %d steps (%v of virtual time)", p.steps, p.now.Sub(t0))
	}
	// The packets due now arrive as one receive batch, as from one
	// recvmmsg call: one SACK per batch (endpoint_batch.go).
	for _, ep := range p.eps {
		ep.BeginBatch()
	}
	for pk := p.net.Pop(p.now); pk != nil; pk = p.net.Pop(p.now) {
		to := 1
		if pk.Link == p.links[1] {
			to = 0
		}
		if pk.TooBig {
			// A Packet Too Big goes back to the sender of the quoted
			// packet; the link MTU is a packet size, the notice an IP
			// MTU.
			p.eps[1-to].Notice(p.now, Notice{To: p.addrs[to], Kind: NoticeTooBig, Quote: pk.Data, MTU: pk.MTU + maxOverhead})
			p.net.Free(pk)
			continue
		}
		if p.admit != nil && !p.admit(to, pk.Data) {
			p.net.Free(pk)
			continue
		}
		p.eps[to].receive(p.now, p.addrs[1-to], pk.Data)
		p.net.Free(pk)
	}
	for _, ep := range p.eps {
		ep.EndBatch()
	}
	for i, ep := range p.eps {
		ep.Expire(p.now)
		n := len(p.events[i])
		ep.drainInto(&p.events[i])
		for _, e := range p.events[i][n:] {
			p.trace = p.trace*31 + uint64(e.Kind) + uint64(p.now.UnixNano())
		}
	}
	return true
}

// drainInto appends the endpoint's events to *evs, but for the room
// reports for stream writers (the shell's business).
func (ep *Endpoint) drainInto(evs *[]Event) {
	for {
		e := ep.NextEvent()
		if e == nil {
			return
		}
		if !e.Room {
			*evs = append(*evs, *e)
		}
	}
}

// connect establishes the association from side 0 to side 1.
func (p *pair) connect() {
	a, err := p.eps[0].connect(p.now, p.addrs[1], 5000, 5001)
	if err != nil {
		p.t.Fatal(err)
	}
	p.as[0] = a
	for p.as[1] == nil || p.as[0].state != stateEstablished {
		if !p.step() {
			p.t.Fatal("handshake stalled")
		}
		for _, e := range p.events[1] {
			if e.Kind == api.EventUp {
				p.as[1] = e.Assoc
			}
		}
		if p.now.Sub(t0) > time.Minute {
			p.t.Fatalf("no association after a minute: %v / %v", p.as[0].state, p.as[1])
		}
	}
}

// message returns the content of message seq of stream sid sent by side.
func message(side int, sid uint16, seq uint32, buf []byte) []byte {
	r := rand.New(rand.NewPCG(uint64(side)<<48|uint64(sid)<<32|uint64(seq), 1))
	n := 8 + r.IntN(3000)
	buf = buf[:0]
	buf = append(buf, byte(side))
	buf = binary.BigEndian.AppendUint16(buf, sid)
	buf = binary.BigEndian.AppendUint32(buf, seq)
	buf = append(buf, byte(r.IntN(4))) // 0: unordered
	for len(buf) < n {
		buf = append(buf, byte(r.Uint32()))
	}
	return buf
}

func unordered(msg []byte) bool { return msg[7] == 0 }

// flowState tracks one direction's messages.
type flowState struct {
	nextSend [64]uint32 // next seq per stream
	sent     int
	nextRecv [64]uint32 // next ordered seq expected per stream
	seen     map[uint64]bool
	received int
}

// TestEndToEnd runs two full associations over the simulated network at
// 0%, 1% and 10% loss (with duplication, reordering and jitter): handshake,
// messages on many streams both ways, ordered and unordered, then a
// graceful shutdown. Every message must arrive exactly once and intact,
// ordered messages in order per stream, and the run must be deterministic.
func TestEndToEnd(t *testing.T) {
	for _, tt := range []struct {
		name string
		link simnet.LinkConfig
		msgs int
	}{
		{"loss0", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: time.Millisecond}, 3000},
		{"loss1", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.01}, 2000},
		{"loss10", simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10, Dup: 0.02, Reorder: 0.05}, 600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.msgs
			switch {
			case *e2eMB > 0:
				n = *e2eMB << 20 / 1512 // messages average 1512 bytes
			case testsupport.RaceEnabled || testing.Short():
				n /= 4
			}
			r1 := runEndToEnd(t, 1, tt.link, n)
			r2 := runEndToEnd(t, 1, tt.link, n)
			if r1 != r2 {
				t.Fatalf("two runs with the same seed differ: %x vs %x", r1, r2)
			}
		})
	}
}

func runEndToEnd(t testing.TB, seed uint64, link simnet.LinkConfig, perSide int) uint64 {
	return runEndToEndWith(t, seed, link, perSide, (*pair).connect)
}

// runEndToEndWith is runEndToEnd with the association set up by connect.
func runEndToEndWith(t testing.TB, seed uint64, link simnet.LinkConfig, perSide int, connect func(*pair)) uint64 {
	p := newPair(t, seed, link)
	connect(p)
	var flows [2]flowState
	for i := range flows {
		flows[i].seen = make(map[uint64]bool)
	}
	out := make([]byte, 0, 4096)
	rbuf := make([]byte, 64<<10)
	h := fnv.New64a()
	rng := rand.New(rand.NewPCG(seed, 2))
	shutdown := false
	for steps := 0; ; steps++ {
		for side := range 2 {
			a := p.as[side]
			f := &flows[side]
			// Send until the buffer is full.
			for f.sent < perSide && a.state == stateEstablished {
				sid := uint16(rng.IntN(int(a.outStreams)))
				msg := message(side, sid, f.nextSend[sid], out)
				err := a.send(p.now, sid, uint32(sid), unordered(msg), msg)
				if errors.Is(err, api.ErrWouldBlock) {
					break
				}
				if err != nil {
					t.Fatalf("side %d send: %v", side, err)
				}
				f.nextSend[sid]++
				f.sent++
			}
			// Read everything delivered to this side (sent by the other).
			rf := &flows[1-side]
			for a.data.eng != nil && a.data.eng.Readable() {
				n, info, err := a.read(rbuf)
				if err != nil {
					t.Fatalf("side %d read: %v", side, err)
				}
				if !info.EOR {
					t.Fatalf("message larger than the read buffer")
				}
				msg := rbuf[:n]
				h.Write(msg[:8])
				checkMessage(t, 1-side, msg, info, rf)
			}
		}
		if !shutdown && flows[0].received == perSide && flows[1].received == perSide {
			shutdown = true
			p.as[0].Shutdown(p.now)
		}
		if shutdown && p.as[0].closed && p.as[1].closed {
			break
		}
		if !p.step() {
			t.Fatalf("network idle before the end: sent %d/%d received %d/%d, states %v %v",
				flows[0].sent, flows[1].sent, flows[0].received, flows[1].received, p.as[0].state, p.as[1].state)
		}
		if p.now.Sub(t0) > 2*time.Hour {
			t.Fatalf("not done after 2 hours of virtual time: received %d and %d of %d",
				flows[0].received, flows[1].received, perSide)
		}
	}
	for side := range 2 {
		var up, down bool
		for _, e := range p.events[side] {
			if e.Quiet {
				continue
			}
			switch e.Kind {
			case api.EventUp:
				up = true
			case api.EventShutdown:
				down = true
			case api.EventDown, api.EventRestart:
				t.Fatalf("side %d: unexpected event %v", side, eventString(&e))
			}
		}
		if !up || !down {
			t.Fatalf("side %d: up %v shutdown complete %v", side, up, down)
		}
	}
	s0, s1 := p.eps[0].Stats(), p.eps[1].Stats()
	t.Logf("%d messages each way in %v virtual; side 0: %d packets out, %d retransmits, %d fast, %d T3; side 1: %d packets out, %d retransmits",
		perSide, p.now.Sub(t0).Round(time.Millisecond), s0.PacketsOut, s0.Retransmits, s0.FastRetransmit, s0.T3Expiries,
		s1.PacketsOut, s1.Retransmits)
	return h.Sum64() ^ p.trace ^ uint64(p.now.UnixNano())
}

func checkMessage(t testing.TB, from int, msg []byte, info transfer.RecvInfo, f *flowState) {
	t.Helper()
	if len(msg) < 8 || int(msg[0]) != from {
		t.Fatalf("message from the wrong side or too short: %x", msg[:min(len(msg), 16)])
	}
	sid := binary.BigEndian.Uint16(msg[1:])
	seq := binary.BigEndian.Uint32(msg[3:])
	want := message(from, sid, seq, nil)
	if string(want) != string(msg) {
		t.Fatalf("message %d/%d corrupted (len %d, want %d)", sid, seq, len(msg), len(want))
	}
	if info.SID != sid || info.PPID != uint32(sid) || info.Unordered != unordered(msg) {
		t.Fatalf("message %d/%d: info %+v", sid, seq, info)
	}
	key := uint64(sid)<<32 | uint64(seq)
	if f.seen[key] {
		t.Fatalf("message %d/%d delivered twice", sid, seq)
	}
	f.seen[key] = true
	f.received++
	if !unordered(msg) {
		// Ordered messages of a stream arrive in sequence (unordered ones
		// are skipped in the count).
		for f.nextRecv[sid] < seq && f.seen[uint64(sid)<<32|uint64(f.nextRecv[sid])] {
			f.nextRecv[sid]++
		}
		for f.nextRecv[sid] < seq && unordered(message(from, sid, f.nextRecv[sid], nil)) {
			f.nextRecv[sid]++
		}
		if f.nextRecv[sid] != seq {
			t.Fatalf("stream %d: ordered message %d delivered, expected %d next", sid, seq, f.nextRecv[sid])
		}
		f.nextRecv[sid] = seq + 1
	}
}

var _ = fmt.Sprint

// e2eMB makes TestEndToEnd move about that many megabytes each way (the
// issue's 100 MB run: go test -run TestEndToEnd -e2e.mb 100).
var e2eMB = flag.Int("e2e.mb", 0, "TestEndToEnd: megabytes to move each way (0: a quick run)")

// TestEndToEndCollision: both sides call ASSOCIATE at the same moment (RFC
// 9260 section 5.2.1, the INIT collision). Two real cores must end with one
// association each, whose tags agree, and move data both ways.
func TestEndToEndCollision(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.05}
		p := newPair(t, seed, link)
		var err error
		if p.as[0], err = p.eps[0].connect(p.now, p.addrs[1], 5000, 5001); err != nil {
			t.Fatal(err)
		}
		if p.as[1], err = p.eps[1].connect(p.now, p.addrs[0], 5001, 5000); err != nil {
			t.Fatal(err)
		}
		for p.as[0].state != stateEstablished || p.as[1].state != stateEstablished {
			if !p.step() || p.now.Sub(t0) > 5*time.Minute {
				t.Fatalf("seed %d: states %v %v", seed, p.as[0].state, p.as[1].state)
			}
		}
		a0, a1 := p.as[0], p.as[1]
		if seed == 1 {
			s0, s1 := p.eps[0].Stats(), p.eps[1].Stats()
			t.Logf("INIT ACKs sent %d/%d, COOKIE ECHOs %d/%d, COOKIE ACKs %d/%d", s0.ChunksOut[chunk.TypeInitAck], s1.ChunksOut[chunk.TypeInitAck],
				s0.ChunksOut[chunk.TypeCookieEcho], s1.ChunksOut[chunk.TypeCookieEcho], s0.ChunksOut[chunk.TypeCookieAck], s1.ChunksOut[chunk.TypeCookieAck])
		}
		if a0.peerTag != a1.localTag || a1.peerTag != a0.localTag {
			t.Fatalf("seed %d: tags %08x/%08x vs %08x/%08x", seed, a0.localTag, a0.peerTag, a1.localTag, a1.peerTag)
		}
		if len(p.eps[0].assocs) != 1 || len(p.eps[1].assocs) != 1 {
			t.Fatalf("seed %d: %d and %d associations", seed, len(p.eps[0].assocs), len(p.eps[1].assocs))
		}
		for i := range 2 {
			if err := p.as[i].send(p.now, 0, 0, false, []byte("after the collision")); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]byte, 100)
		got := [2]bool{}
		for !got[0] || !got[1] {
			if !p.step() || p.now.Sub(t0) > 10*time.Minute {
				t.Fatalf("seed %d: data did not arrive", seed)
			}
			for i := range 2 {
				if p.as[i].data.eng.Readable() {
					n, _, _ := p.as[i].read(buf)
					got[i] = string(buf[:n]) == "after the collision"
				}
			}
		}
		for i := range 2 {
			for _, e := range p.events[i] {
				if !e.Quiet && (e.Kind == api.EventDown || e.Kind == api.EventRestart) {
					t.Fatalf("seed %d side %d: %v", seed, i, e.Kind)
				}
			}
		}
	}
}

// TestEndToEndRestart: side 1 crashes (its endpoint is replaced, all state
// lost) and associates again from the same address and port. Side 0 must
// detect the restart (RFC 9260 section 5.2.4 action A), tell its user with a
// RESTART notification and carry on with the new tags.
func TestEndToEndRestart(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond}
	p := newPair(t, 3, link)
	p.connect()
	old := p.as[0]
	oldPeerTag := old.peerTag
	// Crash side 1: a new endpoint with other random tags.
	p.eps[1] = NewEndpoint(Config{Rand: newTestRand(99), MTU: 1452, OutStreams: 64, InStreams: 64}, p.now)
	a1, err := p.eps[1].connect(p.now, p.addrs[0], 5001, 5000)
	if err != nil {
		t.Fatal(err)
	}
	p.as[1] = a1
	p.events = [2][]Event{}
	for a1.state != stateEstablished {
		if !p.step() || p.now.Sub(t0) > time.Minute {
			t.Fatalf("restart handshake stalled: %v", a1.state)
		}
	}
	var restarted bool
	for _, e := range p.events[0] {
		restarted = restarted || e.Kind == api.EventRestart && e.Assoc == old
	}
	if !restarted || old.closed || old.peerTag == oldPeerTag || old.peerTag != a1.localTag || a1.peerTag != old.localTag {
		t.Fatalf("restart: event %v, closed %v, tags %08x/%08x vs %08x/%08x", restarted, old.closed,
			old.localTag, old.peerTag, a1.localTag, a1.peerTag)
	}
	if err := old.send(p.now, 1, 0, false, []byte("welcome back")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	for !a1.data.eng.Readable() {
		if !p.step() || p.now.Sub(t0) > 2*time.Minute {
			t.Fatal("no data after the restart")
		}
	}
	if n, _, _ := a1.read(buf); string(buf[:n]) != "welcome back" {
		t.Fatalf("read %q", buf[:n])
	}
}
