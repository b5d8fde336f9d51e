package assoc

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 5.2.1: "Upon receipt of an INIT chunk in the COOKIE-WAIT
// state, an endpoint MUST respond with an INIT ACK chunk using the same
// parameters it sent in its original INIT chunk (including its Initiate
// Tag, unchanged)." and "After that, the endpoint MUST NOT change its state,
// the T1-init timer MUST be left running, and the corresponding TCB MUST NOT
// be destroyed."
func TestInitInCookieWait(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	_, ic := tc.wantChunk(chunk.TypeInit)
	ours := initValue(t, ic)
	t1 := a.timers.at[timerT1Init]
	tc.writePacket(0, tc.peerInit())
	p, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if p.p.vtag != tc.peerTag || in.tag != ours.tag || in.tsn != ours.tsn || in.os != ours.os || in.mis != ours.mis {
		t.Fatalf("INIT ACK tag %08x/%08x tsn %d, want our INIT's parameters", p.p.vtag, in.tag, in.tsn)
	}
	tc.wantState(stateCookieWait)
	if a.timers.at[timerT1Init] != t1 {
		t.Fatalf("T1-init changed")
	}
	// The peer echoes that cookie: action B of section 5.2.4 (M 0 A A).
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantState(stateEstablished)
	tc.wantEvent(api.EventUp)
	if a.peerTag != tc.peerTag || a.timers.running(timerT1Init) {
		t.Fatalf("peer tag %08x, T1-init running %v", a.peerTag, a.timers.running(timerT1Init))
	}
}

// RFC 9260 section 5.2.1: "Upon receipt of an INIT chunk in the
// COOKIE-ECHOED state, an endpoint MUST respond with an INIT ACK chunk using
// the same parameters it sent in its original INIT chunk (including its
// Initiate Tag, unchanged), provided that no new address has been added to
// the forming association." and "For an endpoint that is in the
// COOKIE-ECHOED state, it MUST populate its Tie-Tags within both the
// association TCB and inside the State Cookie".
func TestInitInCookieEchoed(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true // new addresses count only where they are used
	tc := newTestEndpoint(t, cfg)
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x5555, 65536, 100, 100, 9))
	p, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if p.p.vtag != 0x5555 || in.tag != a.localTag {
		t.Fatalf("INIT ACK tag %08x Initiate Tag %08x", p.p.vtag, in.tag)
	}
	var ck cookie
	if tc.ep.jar.openCookie(in.cookie, tc.peer, &ck) != cookieOK {
		t.Fatal("bad cookie")
	}
	if ck.localTie != a.localTag || ck.peerTie != tc.peerTag || a.localTie != a.localTag || a.peerTie != tc.peerTag {
		t.Fatalf("Tie-Tags cookie %08x/%08x TCB %08x/%08x", ck.localTie, ck.peerTie, a.localTie, a.peerTie)
	}
	tc.wantState(stateCookieEchoed)
	// A new address: "the entire INIT chunk MUST be discarded" and an
	// ABORT is sent.
	v4 := netip.MustParseAddr("198.51.100.9").As4()
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x6666, 65536, 100, 100, 9, param(chunk.ParamIPv4Address, v4[:])))
	p, c = tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x6666 || firstCause(c.value()) != chunk.CauseRestartNewAddresses {
		t.Fatalf("ABORT tag %08x cause %d", p.p.vtag, firstCause(c.value()))
	}
	tc.wantState(stateCookieEchoed)
}

// RFC 9260 section 5.2.2: "The outbound SCTP packet containing this INIT ACK
// chunk MUST carry a Verification Tag value equal to the Initiate Tag found
// in the unexpected INIT chunk. And the INIT ACK chunk MUST contain a new
// Initiate Tag" and "the existing association, including its current state,
// and the corresponding TCB MUST NOT be changed."
func TestInitUnexpectedEstablished(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true // new addresses count only where they are used
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	a := tc.a
	localTag, peerTag := a.localTag, a.peerTag
	tag, ck := tc.cookieFor(0x7777)
	if tag == localTag {
		t.Fatalf("INIT ACK reused the association's tag")
	}
	var c cookie
	tc.ep.jar.openCookie(ck, tc.peer, &c)
	if c.localTie != localTag || c.peerTie != peerTag {
		t.Fatalf("Tie-Tags %08x/%08x, want %08x/%08x", c.localTie, c.peerTie, localTag, peerTag)
	}
	if a.localTag != localTag || a.peerTag != peerTag || a.state != stateEstablished {
		t.Fatalf("association changed")
	}
	// New addresses: "the endpoint MUST respond with an ABORT chunk,
	// copying the 'Initiate Tag' of the unexpected INIT chunk into the
	// 'Verification Tag' of the outbound packet carrying the ABORT chunk."
	v6 := netip.MustParseAddr("2001:db8::1").As16()
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x8888, 65536, 100, 100, 9, param(chunk.ParamIPv6Address, v6[:])))
	p, ab := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x8888 || firstCause(ab.value()) != chunk.CauseRestartNewAddresses {
		t.Fatalf("ABORT tag %08x cause %d", p.p.vtag, firstCause(ab.value()))
	}
	tc.wantState(stateEstablished)
}

// RFC 9260 section 5.2.3: "If an INIT ACK chunk is received by an endpoint
// in any state other than the COOKIE-WAIT or CLOSED state, the endpoint
// SHOULD discard the INIT ACK chunk."
func TestInitAckUnexpected(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.writeChunks(initChunk(chunk.TypeInitAck, 1, 65536, 100, 100, 1, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantIdle()
	tc.wantState(stateEstablished)
}

// RFC 9260 section 5.2.4 action A: "When the endpoint recognizes this
// potential 'restart', the existing session is treated the same as if it
// received an ABORT chunk followed by a new COOKIE ECHO chunk with the
// following exceptions: ... A RESTART notification SHOULD be sent to the ULP
// instead of a COMMUNICATION LOST notification." and "All the congestion
// control parameters (e.g., cwnd, ssthresh) related to this peer MUST be
// reset to their initial values".
func TestCookieEchoRestartA(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	a := tc.a
	if err := a.send(tc.now, 3, 7, false, []byte("unacknowledged")); err != nil {
		t.Fatal(err)
	}
	tc.wantChunk(chunk.TypeData)
	eng := a.data.eng
	// The peer restarts with a new tag.
	tag, ck := tc.cookieFor(0x9999)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, _ := tc.wantChunk(chunk.TypeCookieAck)
	if p.p.vtag != 0x9999 {
		t.Fatalf("COOKIE ACK tag %08x, want the new peer tag", p.p.vtag)
	}
	// "Any SCTP DATA chunks MAY be retained": the unacknowledged message
	// goes again, with the new association's first TSN.
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[1] != chunk.TypeData ||
		binary.BigEndian.Uint32(p.p.chunks[1].value()) != uint32(a.localTSN) {
		t.Fatalf("chunks %v after restart, want COOKIE ACK + DATA with TSN %d", ts, uint32(a.localTSN))
	}
	tc.wantEvent(api.EventRestart)
	tc.wantState(stateEstablished)
	if a.localTag != tag || a.peerTag != 0x9999 || a.data.eng == eng {
		t.Fatalf("TCB not reset: tags %08x/%08x, same engine %v", a.localTag, a.peerTag, a.data.eng == eng)
	}
	if tc.ep.tags[tag] != a || len(tc.ep.tags) != 1 {
		t.Fatalf("tag index not updated")
	}
}

// RFC 9260 section 5.2.4 action A: "If the endpoint is in the
// SHUTDOWN-ACK-SENT state and recognizes that the peer has restarted
// (Action A), it MUST NOT set up a new association but instead resend the
// SHUTDOWN ACK chunk and send an ERROR chunk with a "Cookie Received While
// Shutting Down" error cause to its peer."
func TestCookieEchoRestartInShutdownAckSent(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
	// An INIT in SHUTDOWN-ACK-SENT gets the SHUTDOWN ACK again (9.2), so
	// build the restart cookie while still ESTABLISHED: use a second
	// endpoint run. Simpler: craft the cookie with the endpoint's jar.
	ck := cookie{created: tc.now, life: tc.ep.cfg.CookieLife, peerPort: tc.pport, localPort: tc.lport,
		localTag: 0x1234, peerTag: 0x4321, localTie: tc.a.localTag, peerTie: tc.a.peerTag,
		localTSN: 1, peerTSN: 1, peerRwnd: 65536, localOS: 10, localMIS: 10, peerOS: 10, peerMIS: 10, peer: tc.peer}
	b := tc.ep.jar.appendCookie(nil, &ck)
	tc.writePacket(0x1234, chunkOf(chunk.TypeCookieEcho, 0, b))
	p := tc.wantPacket()
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[0] != chunk.TypeShutdownAck || ts[1] != chunk.TypeError {
		t.Fatalf("chunks %v, want SHUTDOWN ACK and ERROR", ts)
	}
	if firstCause(p.p.chunks[1].value()) != chunk.CauseCookieWhileShutdown {
		t.Fatalf("cause %d", firstCause(p.p.chunks[1].value()))
	}
	tc.wantState(stateShutdownAckSent)
}

// RFC 9260 section 5.2.4 action C: "In this case, the local endpoint's
// cookie has arrived late. ... The cookie SHOULD be silently discarded. The
// endpoint SHOULD NOT change states and SHOULD leave any timers running."
func TestCookieEchoLateC(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	oldTag, oldCookie := tc.cookieFor(tc.peerTag) // no TCB yet: Tie-Tags 0
	tc.connectServer()
	if oldTag == tc.a.localTag {
		t.Fatal("tags collide")
	}
	tc.writePacket(oldTag, chunkOf(chunk.TypeCookieEcho, 0, oldCookie))
	tc.wantIdle()
	tc.wantNoEvent()
	if tc.a.localTag == oldTag {
		t.Fatalf("late cookie changed the association")
	}
}

// RFC 9260 section 5.2.4 action D: "When both local and remote tags match,
// the endpoint SHOULD enter the ESTABLISHED state if it is in the
// COOKIE-ECHOED state. It SHOULD stop any T1-cookie timer that is running
// and send a COOKIE ACK chunk." A duplicate COOKIE ECHO (the COOKIE ACK was
// lost) is answered again, even after the cookie's lifespan: "If both
// Verification Tags in the State Cookie match the Verification Tags of the
// current association, consider the State Cookie valid (this is case E in
// Section 5.2), even if the lifespan is exceeded."
func TestCookieEchoDuplicateD(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit())
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	ck := append([]byte(nil), in.cookie...)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.a = tc.ep.assocs[assocKey{tc.peer, tc.lport, tc.pport}]
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	tc.advance(2 * tc.ep.cfg.CookieLife)
	tc.readPackets()
	tc.sent = nil
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantNoEvent()
	tc.wantState(stateEstablished)
}

// RFC 9260 section 5.2.4 step 3: "If the State Cookie is older than the
// lifespan carried in the State Cookie and the Verification Tags contained
// in the State Cookie do not match the current association's Verification
// Tags, the packet, including the COOKIE ECHO chunk and any DATA chunks,
// SHOULD be discarded. The endpoint also MUST transmit an ERROR chunk with a
// "Stale Cookie" error cause to the peer endpoint".
func TestCookieEchoStaleWithTCB(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tag, ck := tc.cookieFor(0x9999)
	tc.advance(2 * tc.ep.cfg.CookieLife)
	tc.readPackets()
	tc.sent = nil
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, _ := tc.wantChunk(chunk.TypeError)
	if p.p.vtag != 0x9999 {
		t.Fatalf("ERROR tag %08x", p.p.vtag)
	}
	tc.wantNoEvent()
}

// RFC 9260 section 5.2.5: "At any state other than COOKIE-ECHOED, an
// endpoint SHOULD silently discard a received COOKIE ACK chunk."
func TestCookieAckDuplicate(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantIdle()
	tc.wantNoEvent()
}

// RFC 9260 section 5.2.6: "If the association is in the COOKIE-ECHOED
// state, the endpoint MAY elect one of the following three alternatives.
// ... Send a new INIT chunk to the endpoint, adding a Cookie Preservative
// parameter requesting an extension to the life time of the State Cookie."
// and "In all cases, if the association is not in the COOKIE-ECHOED state,
// the ERROR chunk SHOULD be silently discarded."
func TestStaleCookieError(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writeChunks(chunkOf(chunk.TypeError, 0, cause(chunk.CauseStaleCookie, u32(3000))))
	_, c := tc.wantChunk(chunk.TypeInit)
	tc.wantState(stateCookieWait)
	var pres uint32
	walkParams(c.value()[16:], func(typ chunk.ParamType, val, _ []byte) bool {
		if typ == chunk.ParamCookiePreservative {
			pres = uint32(val[0])<<24 | uint32(val[1])<<16 | uint32(val[2])<<8 | uint32(val[3])
		}
		return true
	})
	if pres < 3 || pres > 1003 {
		t.Fatalf("Cookie Preservative %d ms, want staleness plus at most 1 s", pres)
	}
	// In ESTABLISHED the same ERROR is discarded.
	tc2 := newTestEndpoint(t, testConfig())
	tc2.connectClient()
	tc2.writeChunks(chunkOf(chunk.TypeError, 0, cause(chunk.CauseStaleCookie, u32(3000))))
	tc2.wantIdle()
	tc2.wantState(stateEstablished)
}

// A setup collision where the peer's INIT carries another Initial TSN than
// its INIT ACK did: after action B of section 5.2.4 the association must
// expect the TSNs of the INIT the accepted cookie answered ("The endpoint
// SHOULD stay in or enter the ESTABLISHED state, but it MUST update its
// peer's Verification Tag from the State Cookie").
func TestCollisionPeerTSNFromCookie(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	a.send(tc.now, 0, 0, false, []byte("x")) // not yet: no engine
	tc.writeChunks(initChunk(chunk.TypeInitAck, 0x1111, 65536, 100, 100, 500, param(chunk.ParamStateCookie, []byte("c"))))
	if err := a.send(tc.now, 0, 0, false, []byte("queued early")); err != nil {
		t.Fatal(err)
	}
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x2222, 65536, 100, 100, 9000))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie), dataChunk(3, 9000, 0, 0, 0, []byte("hi")))
	p, _ := tc.wantChunk(chunk.TypeCookieAck)
	var cum uint32
	var sawData bool
	for _, ch := range p.p.chunks {
		switch ch.typ {
		case chunk.TypeSack:
			cum = binary.BigEndian.Uint32(ch.value())
		case chunk.TypeData:
			sawData = true
		}
	}
	if cum != 9000 || !sawData || p.p.vtag != 0x2222 {
		t.Fatalf("chunks %v, SACK cum %d, tag %08x: want cum 9000, the queued DATA and the new tag",
			chunkTypes(&p.p), cum, p.p.vtag)
	}
	tc.wantState(stateEstablished)
}

// RFC 9260 section 5.2.4 action A: "Any SCTP DATA chunks MAY be retained".
// The messages kept across a peer restart go out again as they were
// written: an unordered one keeps its U flag (it was once re-queued as
// ordered).
func TestCookieEchoRestartKeepsUnordered(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	a := tc.a
	if err := a.send(tc.now, 4, 8, true, []byte("unordered")); err != nil {
		t.Fatal(err)
	}
	tc.wantChunk(chunk.TypeData)
	tag, ck := tc.cookieFor(0x9999)
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	p, _ := tc.wantChunk(chunk.TypeCookieAck)
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[1] != chunk.TypeData {
		t.Fatalf("chunks %v after restart, want COOKIE ACK + DATA", ts)
	}
	if flags := p.p.chunks[1].flags; flags&0x04 == 0 {
		t.Fatalf("DATA flags %#x after restart: the U bit is lost", flags)
	}
}
