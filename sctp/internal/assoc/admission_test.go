package assoc

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// fillBudget sends in-order DATA chunks to tc's association, left unread,
// until the endpoint's budget has less than an eighth left.
func fillBudget(t *testing.T, tc *testConn) {
	t.Helper()
	b := tc.ep.budget
	payload := make([]byte, 1400)
	tsn := tc.peerTSN
	for i := 0; b.Limit()-b.Used() >= b.Limit()/8; i++ {
		if i == 1000 {
			t.Fatalf("budget %d of %d used after 1000 chunks", b.Used(), b.Limit())
		}
		tc.writeChunks(dataChunk(3, tsn, 0, uint16(i), 0, payload))
		tsn++
		tc.readPackets()
		tc.sent = nil
	}
}

// RFC 9260 section 5.1: "If an endpoint receives an INIT, INIT ACK, or
// COOKIE ECHO chunk but decides not to establish the new association due to
// missing mandatory parameters in the received INIT or INIT ACK chunk,
// invalid parameter values, or lack of local resources, it SHOULD respond
// with an ABORT chunk." With the memory budget nearly spent (less than an
// eighth left), a valid COOKIE ECHO gets an ABORT with "Out of Resource",
// counted apart from MaxAssociations; once the data is gone the same
// COOKIE ECHO creates the association.
func TestCookieEchoOutOfResourceMemory(t *testing.T) {
	cfg := testConfig()
	cfg.MemoryBudget = 64 << 10
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	first := tc.a
	fillBudget(t, tc)

	tc.pport++
	tag, ck := tc.cookieFor(0x4242)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x4242 || c.flags&1 != 0 || firstCause(c.value()) != chunk.CauseOutOfResource {
		t.Fatalf("ABORT tag %08x flags %x cause %d, want tag 00004242, T clear, Out of Resource",
			p.p.vtag, c.flags, firstCause(c.value()))
	}
	s := tc.ep.Stats()
	if len(tc.ep.assocs) != 1 || s.MemoryRefused != 1 || s.AssocsRefused != 0 || tc.ep.budget.Refused() != 1 {
		t.Fatalf("%d associations, %d refused for memory, %d for the limit",
			len(tc.ep.assocs), s.MemoryRefused, s.AssocsRefused)
	}

	// The first association ends: its charge goes back, and the peer's
	// retransmitted COOKIE ECHO is admitted.
	if err := first.Abort(tc.now, nil); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	tc.sent = nil
	if u := tc.ep.budget.Used(); u != 0 {
		t.Fatalf("budget %d used after the association ended", u)
	}
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantChunk(chunk.TypeCookieAck)
}

// The limits are checked in order: MaxAssociations (ABORT, AssocsRefused),
// the memory budget (ABORT, MemoryRefused), the backlog (dropped).
func TestCookieEchoAdmissionOrder(t *testing.T) {
	cfg := testConfig()
	cfg.MemoryBudget = 64 << 10
	cfg.MaxAssociations = 1
	cfg.Backlog = 1
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	fillBudget(t, tc)
	tc.pport++
	tag, ck := tc.cookieFor(0x4343)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	_, c := tc.wantChunk(chunk.TypeAbort)
	s := tc.ep.Stats()
	if firstCause(c.value()) != chunk.CauseOutOfResource || s.AssocsRefused != 1 || s.MemoryRefused != 0 || s.BacklogDropped != 0 {
		t.Fatalf("cause %d, refused %d/%d, dropped %d; want Out of Resource, 1/0, 0",
			firstCause(c.value()), s.AssocsRefused, s.MemoryRefused, s.BacklogDropped)
	}
}

// Associations created from a COOKIE ECHO and not accepted yet are bounded
// by Backlog: a COOKIE ECHO beyond it is dropped without an answer and
// counted, and the peer's retransmission is served once one is accepted
// (RFC 9260 section 5.1 lets the peer retransmit its COOKIE ECHO on
// T1-cookie expiry).
func TestCookieEchoBeyondBacklogDropped(t *testing.T) {
	cfg := testConfig()
	cfg.Backlog = 1
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	first := tc.a
	if tc.ep.pending != 1 {
		t.Fatalf("%d pending, want 1", tc.ep.pending)
	}
	tc.pport++
	tag, ck := tc.cookieFor(0x4444)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantIdle()
	if len(tc.ep.assocs) != 1 || tc.ep.Stats().BacklogDropped != 1 {
		t.Fatalf("%d associations, %d dropped", len(tc.ep.assocs), tc.ep.Stats().BacklogDropped)
	}
	first.Accept(tc.now)
	tc.readPackets()
	tc.sent = nil
	if tc.ep.pending != 0 {
		t.Fatalf("%d pending after Accept", tc.ep.pending)
	}
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantChunk(chunk.TypeCookieAck)
	if tc.ep.pending != 1 || len(tc.ep.assocs) != 2 {
		t.Fatalf("%d pending, %d associations", tc.ep.pending, len(tc.ep.assocs))
	}
	// An association that ends before it is accepted frees its place.
	tc.writePacket(tag, chunkOf(chunk.TypeAbort, 0, nil))
	if tc.ep.pending != 0 {
		t.Fatalf("%d pending after the peer aborted", tc.ep.pending)
	}
}

// sackRwnd returns the a_rwnd of the next packet, which must hold a SACK.
func sackRwnd(t *testing.T, tc *testConn) uint32 {
	t.Helper()
	for {
		p := tc.wantPacket()
		for _, c := range p.p.chunks {
			if c.typ == chunk.TypeSack {
				return binary.BigEndian.Uint32(c.value()[4:])
			}
		}
	}
}

// An association not accepted yet advertises a receive window of at most
// 64 KiB; when it is accepted it gets the configured receive buffer and
// the larger window goes to the peer at once.
func TestPendingAssocSmallWindow(t *testing.T) {
	cfg := testConfig()
	cfg.Backlog = 4
	cfg.RecvBuffer = 1 << 20
	tc := newTestEndpoint(t, cfg)
	tc.ignoreHB = true
	tc.connectServer()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("hello")))
	if w := sackRwnd(t, tc); w > pendingRecvBuffer {
		t.Fatalf("a_rwnd %d before Accept, want at most %d", w, pendingRecvBuffer)
	}
	tc.a.Accept(tc.now)
	if w := sackRwnd(t, tc); w < 1<<19 {
		t.Fatalf("a_rwnd %d after Accept, want the 1 MiB buffer's", w)
	}
	// Without a backlog (the core alone, as the tests drive it) there is
	// nothing to accept: the configured buffer from the start.
	tc2 := newTestEndpoint(t, Config{Rand: newTestRand(8), Buffers: api.Buffers{RecvBuffer: 1 << 20}})
	tc2.connectServer()
	tc2.writeChunks(dataChunk(3, tc2.peerTSN, 0, 0, 0, []byte("hello")))
	if w := sackRwnd(t, tc2); w < 1<<19 {
		t.Fatalf("a_rwnd %d without a backlog", w)
	}
}

// The INIT ACK of an endpoint with a backlog announces the window the
// association will really have until it is accepted (64 KiB), not the
// configured buffer; Accept sends the larger window at once, even with
// nothing received yet. Without a backlog it announces the configured
// buffer.
func TestPendingAssocInitAckWindow(t *testing.T) {
	initAckRwnd := func(tc *testConn) uint32 {
		t.Helper()
		tc.writePacket(0, tc.peerInit())
		_, c := tc.wantChunk(chunk.TypeInitAck)
		in := initValue(t, c)
		tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
		tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
		tc.wantChunk(chunk.TypeCookieAck)
		return binary.BigEndian.Uint32(c.value()[4:])
	}
	cfg := testConfig()
	cfg.Backlog = 4
	cfg.RecvBuffer = 1 << 20
	tc := newTestEndpoint(t, cfg)
	tc.ignoreHB = true
	if w := initAckRwnd(tc); w != pendingRecvBuffer {
		t.Fatalf("INIT ACK a_rwnd %d with a backlog, want %d", w, pendingRecvBuffer)
	}
	tc.a.Accept(tc.now)
	if w := sackRwnd(t, tc); w < 1<<19 {
		t.Fatalf("a_rwnd %d after Accept, want the 1 MiB buffer's", w)
	}
	tc2 := newTestEndpoint(t, Config{Rand: newTestRand(8), Buffers: api.Buffers{RecvBuffer: 1 << 20}})
	if w := initAckRwnd(tc2); w != 1<<20 {
		t.Fatalf("INIT ACK a_rwnd %d without a backlog, want %d", w, 1<<20)
	}
}

// A churn of 1,000 associations, each holding received data and each
// ending one of the ways an association leaves the endpoint (ABORT from
// the peer, local ABORT, graceful shutdown, restart then ABORT, failure
// after retransmissions), returns the memory budget to zero, and nothing
// stays counted as not accepted.
func TestBudgetChurnReturnsToZero(t *testing.T) {
	cfg := testConfig()
	cfg.InitRate = -1
	cfg.Backlog = 2000
	cfg.MaxRetransmits = 2
	cfg.HeartbeatInterval = -1
	tc := newTestEndpoint(t, cfg)
	b := tc.ep.budget
	for i := range 1000 {
		tc.pport = uint16(1000 + i)
		tc.peerTag = uint32(0x10000 + i)
		tc.events = nil
		tc.connectServer()
		a := tc.a
		if i%2 == 0 {
			a.Accept(tc.now)
		}
		tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, make([]byte, 300)))
		tc.writeChunks(dataChunk(3, tc.peerTSN+2, 0, 2, 0, make([]byte, 300))) // held for ordering
		tc.readPackets()
		tc.sent = nil
		if b.Used() == 0 {
			t.Fatalf("association %d: nothing charged to the budget", i)
		}
		switch i % 5 {
		case 0: // the peer aborts
			tc.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
		case 1: // we abort
			a.Abort(tc.now, nil)
		case 2: // graceful shutdown by the peer
			tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(a.localTSN)-1)))
			tc.wantChunk(chunk.TypeShutdownAck)
			tc.writeChunks(chunkOf(chunk.TypeShutdownComplete, 0, nil))
		case 3: // the peer restarts: the old data is gone, then aborts
			tag, ck := tc.cookieFor(uint32(0x20000 + i))
			tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
			tc.wantChunk(chunk.TypeCookieAck)
			if u := b.Used(); u != 0 {
				t.Fatalf("association %d: %d bytes still charged after the peer's restart", i, u)
			}
			tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, make([]byte, 300)))
			tc.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
		case 4: // a message never acknowledged: failure after retransmissions
			if err := a.send(tc.now, 0, 0, false, []byte("lost")); err != nil {
				t.Fatal(err)
			}
			tc.readPackets()
			for n := 0; !a.closed; n++ {
				if n == 20 {
					t.Fatalf("association %d still up after %d timeouts", i, n)
				}
				tc.advanceToTimer()
				tc.readPackets()
				tc.sent = nil
			}
		}
		tc.readPackets()
		tc.sent = nil
		if !a.closed {
			t.Fatalf("association %d (path %d) not closed", i, i%5)
		}
		if u := b.Used(); u != 0 {
			t.Fatalf("association %d (path %d): %d bytes still charged", i, i%5, u)
		}
		// What stays readable is no longer charged: reading it changes
		// nothing.
		buf := make([]byte, 1000)
		a.Read(buf)
		if u := b.Used(); u != 0 {
			t.Fatalf("association %d: reading after the end charged %d bytes", i, u)
		}
	}
	if len(tc.ep.assocs) != 0 || tc.ep.pending != 0 {
		t.Fatalf("%d associations, %d pending left", len(tc.ep.assocs), tc.ep.pending)
	}
}

// initFrom sends an INIT from the address from and reports whether the
// endpoint answered it with an INIT ACK.
func initFrom(tc *testConn, from netip.AddrPort) bool {
	tc.t.Helper()
	b := appendHeader(nil, tc.pport, tc.lport, 0)
	b = append(b, initChunk(chunk.TypeInit, 0x5151, 65536, 10, 10, 1)...)
	tc.ep.receive(tc.now, from, finishPacket(b, 0))
	answered := false
	for {
		po, ok := tc.ep.Poll(tc.now, nil)
		pkt := po.Data
		if !ok {
			return answered
		}
		var p inPacket
		if parsePacket(pkt, &p, false) == parseOK && p.chunks[0].typ == chunk.TypeInitAck {
			answered = true
		}
	}
}

// RFC 9260 section 5.1 asks the responder of an INIT to keep no state, and
// its INIT ACK is several times the INIT's size: answered without limit,
// INITs with a forged source address make the endpoint a reflector. The
// endpoint answers at most InitRate INITs a second per source (/32 or /64)
// after a burst of twice that, drops and counts the rest, and still answers
// other sources.
func TestInitFloodRateLimited(t *testing.T) {
	cfg := testConfig()
	cfg.InitRate = 10
	tc := newTestEndpoint(t, cfg)
	flooder := netip.MustParseAddrPort("198.51.100.7:9899")
	answered := 0
	for range 1000 {
		if initFrom(tc, flooder) {
			answered++
		}
	}
	if answered != 20 || tc.ep.Stats().RateLimited != 980 {
		t.Fatalf("%d of 1000 INITs answered, %d limited; want the burst of 20", answered, tc.ep.Stats().RateLimited)
	}
	// Another host is still answered; so is the flooder, at the rate.
	if !initFrom(tc, peerAddr) {
		t.Fatal("INIT from a second source not answered during the flood")
	}
	answered = 0
	for range 100 { // one second, 10 ms apart
		tc.now = tc.now.Add(10 * time.Millisecond)
		if initFrom(tc, flooder) {
			answered++
		}
	}
	if answered < 9 || answered > 11 {
		t.Fatalf("%d INITs answered in a second at 100/s, want about 10", answered)
	}
	// The same /64 is one source in IPv6.
	tc2 := newTestEndpoint(t, cfg)
	answered = 0
	for i := range 100 {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: byte(i)})
		if initFrom(tc2, netip.AddrPortFrom(a, 9899)) {
			answered++
		}
	}
	if answered != 20 {
		t.Fatalf("%d INITs from one /64 answered, want 20", answered)
	}
}

// RFC 9260 section 8.4 (8): "The receiver SHOULD respond to the sender of
// the OOTB packet with an ABORT chunk." The answers to out-of-the-blue
// packets are limited as INIT ACKs are (they reflect too); a negative
// InitRate turns the limit off.
func TestOOTBAnswersRateLimited(t *testing.T) {
	for _, rate := range []int{10, -1} {
		cfg := testConfig()
		cfg.InitRate = rate
		tc := newTestEndpoint(t, cfg)
		aborts, completes := 0, 0
		for i := range 100 {
			c := dataChunk(3, 1, 0, 0, 0, []byte("x"))
			if i%2 == 1 {
				c = chunkOf(chunk.TypeShutdownAck, 0, nil)
			}
			tc.writePacket(0x1234, c)
			tc.readPackets()
			for _, p := range tc.sent {
				switch p.p.chunks[0].typ {
				case chunk.TypeAbort:
					aborts++
				case chunk.TypeShutdownComplete:
					completes++
				}
			}
			tc.sent = nil
		}
		want := 20
		if rate < 0 {
			want = 100
		}
		if aborts+completes != want || aborts == 0 || completes == 0 {
			t.Fatalf("InitRate %d: %d ABORTs and %d SHUTDOWN COMPLETEs for 100 OOTB packets, want %d in all",
				rate, aborts, completes, want)
		}
		if rate > 0 && tc.ep.Stats().RateLimited != 80 {
			t.Fatalf("%d limited, want 80", tc.ep.Stats().RateLimited)
		}
	}
}

// handshakeFrom sends an INIT from the address from with SCTP source port
// port and, if the endpoint answers it, the COOKIE ECHO of its INIT ACK;
// it reports whether the INIT was answered (the association is then up).
func handshakeFrom(tc *testConn, from netip.AddrPort, port uint16) bool {
	tc.t.Helper()
	b := appendHeader(nil, port, tc.lport, 0)
	b = append(b, initChunk(chunk.TypeInit, 0x5151, 65536, 10, 10, 1)...)
	tc.ep.receive(tc.now, from, finishPacket(b, 0))
	tc.readPackets()
	var in initInfo
	for _, p := range tc.sent {
		if p.p.chunks[0].typ == chunk.TypeInitAck {
			in = initValue(tc.t, &p.p.chunks[0])
		}
	}
	tc.sent = nil
	if in.cookie == nil {
		return false
	}
	b = appendHeader(nil, port, tc.lport, in.tag)
	b = append(b, chunkOf(chunk.TypeCookieEcho, 0, in.cookie)...)
	tc.ep.receive(tc.now, from, finishPacket(b, 0))
	tc.readPackets()
	up := false
	for _, p := range tc.sent {
		up = up || p.p.chunks[0].typ == chunk.TypeCookieAck
	}
	tc.sent = nil
	if !up {
		tc.t.Fatalf("no COOKIE ACK to the COOKIE ECHO from %v port %d", from, port)
	}
	return true
}

// The rate limit of INIT answers is by pressure. With the shell's numbers
// (InitRate 100, a reserve of 1,000), one host can start 1,200
// associations at once, and a host whose INIT ACKs come back as COOKIE
// ECHOs gets its answers back, so it can do it again: what limits is the
// answers nobody confirms. A flood of INITs from a forged source spends
// the reserve; then every source is held to its burst (200) and rate
// again, but a host that completes its handshakes is still served.
func TestInitRateByPressure(t *testing.T) {
	cfg := testConfig()
	cfg.InitRate, cfg.InitReserve = 100, 1000
	tc := newTestEndpoint(t, cfg)
	host := netip.MustParseAddrPort("192.0.2.10:9899")
	for i := range 1000 {
		if !handshakeFrom(tc, host, uint16(10000+i)) {
			t.Fatalf("INIT %d of a burst of 1,000 not answered", i)
		}
	}
	// The same again, at the same instant: the 1,000 were confirmed.
	for i := range 1000 {
		if !handshakeFrom(tc, host, uint16(20000+i)) {
			t.Fatalf("INIT %d of a second burst not answered", i)
		}
	}
	if s := tc.ep.Stats(); s.RateLimited != 0 || s.AssocsUp != 2000 {
		t.Fatalf("RateLimited %d, AssocsUp %d; want 0, 2000", s.RateLimited, s.AssocsUp)
	}
	// INITs nobody confirms: the burst and the reserve, then nothing.
	answered := 0
	for range 5000 {
		if initFrom(tc, netip.MustParseAddrPort("198.51.100.7:9899")) {
			answered++
		}
	}
	if answered != 1200 || tc.ep.Stats().RateLimited != 3800 {
		t.Fatalf("forged source: %d of 5,000 answered, %d limited; want 1,200", answered, tc.ep.Stats().RateLimited)
	}
	// Under pressure another source gets its burst of 200, not more.
	answered = 0
	for range 1000 {
		if initFrom(tc, netip.MustParseAddrPort("198.51.100.8:9899")) {
			answered++
		}
	}
	if answered != 200 {
		t.Fatalf("under pressure: %d of 1,000 answered, want the burst of 200", answered)
	}
	// The host that confirms its answers still gets them one by one.
	for i := range 500 {
		if !handshakeFrom(tc, host, uint16(30000+i)) {
			t.Fatalf("handshake %d of a confirming host under pressure not answered", i)
		}
	}
}

// A flood of INITs from one forged source, and from many, stays within the
// documented bounds with the shell's numbers (InitRate 100, reserve
// 1,000): over ten seconds one source gets its burst, the reserve and
// 100 a second (2,200); twenty sources get twenty bursts and rates and
// the reserve at most once (26,000), not twenty times.
func TestInitFloodBoundedByPressure(t *testing.T) {
	cfg := testConfig()
	cfg.InitRate, cfg.InitReserve = 100, 1000
	tc := newTestEndpoint(t, cfg)
	victim := netip.MustParseAddrPort("198.51.100.7:9899")
	answered := 0
	for range 10_000 { // 1,000 INITs a second for 10 s
		tc.now = tc.now.Add(time.Millisecond)
		if initFrom(tc, victim) {
			answered++
		}
	}
	if answered > 2200 || answered < 2199 {
		t.Fatalf("one forged source: %d INITs answered in 10 s, want 200 + 1,000 + 10 x 100", answered)
	}
	tc = newTestEndpoint(t, cfg)
	answered = 0
	for range 1000 { // 20 sources, 2,000 INITs a second each, for 10 s
		tc.now = tc.now.Add(10 * time.Millisecond)
		for s := range 20 {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, 0, byte(s)}), 9899)
			for range 20 {
				if initFrom(tc, from) {
					answered++
				}
			}
		}
	}
	if most := 20*(200+10*100) + 1000 + 10*100; answered > most {
		t.Fatalf("20 forged sources: %d INITs answered in 10 s, more than %d", answered, most)
	}
	if least := 20 * (200 + 10*100 - 1); answered < least {
		t.Fatalf("20 forged sources: %d INITs answered in 10 s, fewer than without a reserve (%d)", answered, least)
	}
}
