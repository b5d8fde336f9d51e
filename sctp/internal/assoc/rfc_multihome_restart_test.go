package assoc

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Restart and collision with multi-homed peers (RFC 9260 sections 5.2.1
// to 5.2.4) and the lookup of an association from any of the peer's
// addresses (lookup.go).

// writeFrom sends one packet from the test peer's address from.
func (tc *testConn) writeFrom(from netip.AddrPort, vtag uint32, chunks ...[]byte) {
	tc.t.Helper()
	b := appendHeader(nil, tc.pport, tc.lport, vtag)
	for _, c := range chunks {
		b = append(b, c...)
	}
	tc.ep.receive(tc.now, from, finishPacket(b, 0))
	tc.drainEvents()
}

// mhServer sets up an association with the endpoint as a multi-homed
// server: the peer's INIT lists peerAddr2, whose path is confirmed.
func mhServer(t *testing.T) *testConn {
	t.Helper()
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	tc.writePacket(0, tc.peerInit(addrParam(t, peerAddr2.Addr().String())))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		t.Fatal("no association")
	}
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	tc.confirmPath2()
	return tc
}

// confirmPath2 answers the HEARTBEAT to peerAddr2 from there.
func (tc *testConn) confirmPath2() {
	tc.t.Helper()
	tc.advanceToTimer()
	p, hb := tc.wantChunk(chunk.TypeHeartbeat)
	if p.to != peerAddr2 {
		tc.t.Fatalf("HEARTBEAT to %v, want %v", p.to, peerAddr2)
	}
	tc.writeFrom(peerAddr2, tc.a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, hb.value()))
	if i := tc.a.pathAt(peerAddr2); i < 0 || tc.a.paths[i].state != api.PathActive {
		tc.t.Fatalf("path %v not confirmed: %+v", peerAddr2, tc.a.paths)
	}
	tc.events = tc.events[:0]
}

// causeAddrs returns the addresses listed in the first error cause of an
// ABORT or ERROR chunk value.
func causeAddrs(t *testing.T, v []byte) []netip.Addr {
	t.Helper()
	it := chunk.Causes(v)
	c, ok := it.Next()
	if !ok {
		t.Fatal("no error cause")
	}
	var out []netip.Addr
	pit := chunk.Params(c.Value)
	for {
		p, ok := pit.Next()
		if !ok {
			break
		}
		ip, err := p.Addr()
		if err != nil {
			t.Fatalf("cause parameter %v: %v", p.Type, err)
		}
		out = append(out, ip.Unmap())
	}
	return out
}

// RFC 9260 section 5.2.2: "Before responding, the endpoint MUST check to
// see if the unexpected INIT adds new addresses to the association." A
// multi-homed peer that restarts may send its INIT from any of its
// addresses: the INIT from its second address, listing the first, is the
// association's (not a new one), and its restart completes with the same
// association, whose paths are set up again from the cookie.
func TestRestartFromOtherPeerAddress(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	oldLocal, oldPeer := a.localTag, a.peerTag
	tc.writeFrom(peerAddr2, 0, initChunk(chunk.TypeInit, 0x5151, 65536, 100, 100, 77, addrParam(t, peerAddr.Addr().String())))
	p, c := tc.wantChunk(chunk.TypeInitAck)
	if p.to != peerAddr2 || p.p.vtag != 0x5151 {
		t.Fatalf("INIT ACK to %v tag %08x, want %v tag 5151", p.to, p.p.vtag, peerAddr2)
	}
	in := initValue(t, c)
	var ck cookie
	if tc.ep.jar.openCookie(in.cookie, peerAddr2, &ck) != cookieOK || ck.localTie != oldLocal || ck.peerTie != oldPeer {
		t.Fatalf("cookie Tie-Tags %08x/%08x, want the association's %08x/%08x", ck.localTie, ck.peerTie, oldLocal, oldPeer)
	}
	tc.writeFrom(peerAddr2, in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.wantEvent(api.EventRestart)
	if len(tc.ep.assocs) != 2 || tc.ep.tags[in.tag] != a || a.peerTag != 0x5151 {
		t.Fatalf("restart made another association: %d index entries, tag owner %p (want %p)", len(tc.ep.assocs), tc.ep.tags[in.tag], a)
	}
	if len(a.paths) != 2 || a.paths[1].addr != peerAddr2 || a.paths[1].state != api.PathUnconfirmed {
		t.Fatalf("paths after the restart: %+v", a.paths)
	}
	if a.stats.Restarts != 1 {
		t.Fatalf("Restarts %d", a.stats.Restarts)
	}
}

// RFC 9260 section 5.2.2: "If new addresses are added to the association,
// the endpoint MUST respond with an ABORT chunk, copying the 'Initiate Tag'
// of the unexpected INIT chunk into the 'Verification Tag' of the outbound
// packet carrying the ABORT chunk. In the ABORT chunk, the error cause
// MUST be set to "Restart of an Association with New Addresses". The error
// SHOULD list the addresses that were added to the restarting
// association." The cause lists the new addresses only: not the known
// ones, and not those the peer cannot own (which are ignored as at the
// handshake).
func TestRestartNewAddressesListed(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	tc.writePacket(0, initChunk(chunk.TypeInit, 0x6161, 65536, 100, 100, 77,
		addrParam(t, peerAddr2.Addr().String()), addrParam(t, "198.51.100.7"), addrParam(t, "127.0.0.1"), addrParam(t, "2001:db8::7")))
	p, ab := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x6161 || ab.tBit() || firstCause(ab.value()) != chunk.CauseRestartNewAddresses {
		t.Fatalf("ABORT tag %08x T %v cause %v", p.p.vtag, ab.tBit(), firstCause(ab.value()))
	}
	want := []netip.Addr{netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("2001:db8::7")}
	if got := causeAddrs(t, ab.value()); !slices.Equal(got, want) {
		t.Fatalf("cause lists %v, want %v", got, want)
	}
	tc.wantIdle()
	tc.wantState(stateEstablished)
	if a.stats.RestartsRefused != 1 || a.peerTag != tc.peerTag {
		t.Fatalf("RestartsRefused %d, peer tag %08x", a.stats.RestartsRefused, a.peerTag)
	}
}

// The source address of a restart INIT counts (section 5.1.2: the peer's
// addresses are those listed "AND the source IP address that sent the INIT
// or INIT ACK chunk"): an INIT from a new address that lists a known one
// is found, and refused with the source in the cause.
func TestRestartFromNewSourceRefused(t *testing.T) {
	tc := mhServer(t)
	src := netip.MustParseAddrPort("192.0.2.77:9899")
	tc.writeFrom(src, 0, initChunk(chunk.TypeInit, 0x7171, 65536, 100, 100, 77, addrParam(t, peerAddr.Addr().String())))
	p, ab := tc.wantChunk(chunk.TypeAbort)
	if p.to != src || p.p.vtag != 0x7171 || firstCause(ab.value()) != chunk.CauseRestartNewAddresses {
		t.Fatalf("ABORT to %v tag %08x cause %v", p.to, p.p.vtag, firstCause(ab.value()))
	}
	if got := causeAddrs(t, ab.value()); !slices.Equal(got, []netip.Addr{src.Addr()}) {
		t.Fatalf("cause lists %v, want the source", got)
	}
	if len(tc.ep.assocs) != 2 {
		t.Fatalf("%d index entries", len(tc.ep.assocs))
	}
}

// Without Config.Paths.Multihoming the association uses the one address of its
// key and never the others a peer lists, so a restart INIT that lists
// addresses (as a Linux client on a host with several does) adds none:
// the restart goes on (INIT ACK with the Tie-Tags) instead of being
// refused for ever.
func TestRestartSingleHomedListedAddressesAddNothing(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(addrParam(t, "198.51.100.1"), addrParam(t, "198.51.100.2")))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	tc.wantChunk(chunk.TypeCookieAck)
	tag, ck := tc.cookieFor(0x8181, addrParam(t, "198.51.100.1"), addrParam(t, "198.51.100.2"))
	tc.writePacket(tag, chunkOf(chunk.TypeCookieEcho, 0, ck))
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	tc.wantEvent(api.EventRestart)
	if tc.a.peerTag != 0x8181 {
		t.Fatalf("peer tag %08x after restart", tc.a.peerTag)
	}
}

// RFC 9260 section 5.2.1, collision with a multi-homed peer: "Upon receipt
// of an INIT chunk in the COOKIE-ECHOED state, an endpoint MUST respond
// with an INIT ACK chunk using the same parameters it sent in its original
// INIT chunk (including its Initiate Tag, unchanged), provided that no new
// address has been added to the forming association." The peer's INIT
// comes from its second address (listed in its INIT ACK) and lists the
// first: it is found, and answered with our original tag. The INIT ACK
// goes to the address we sent our INIT to (5.2.1's rules, paraphrased:
// only to an address the upper layer gave and the INIT reports).
func TestCollisionFromOtherPeerAddress(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	tc.clientInitAck(addrParam(t, peerAddr2.Addr().String()))
	a := tc.a
	tc.writeFrom(peerAddr2, 0, initChunk(chunk.TypeInit, 0x9191, 65536, 100, 100, 9, addrParam(t, peerAddr.Addr().String())))
	p, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if p.p.vtag != 0x9191 || in.tag != a.localTag || p.to != peerAddr {
		t.Fatalf("INIT ACK to %v tag %08x Initiate Tag %08x, want %v, 9191, %08x", p.to, p.p.vtag, in.tag, peerAddr, a.localTag)
	}
	if a.localTie != a.localTag || a.peerTie != tc.peerTag {
		t.Fatalf("Tie-Tags %08x/%08x", a.localTie, a.peerTie)
	}
	tc.wantState(stateCookieEchoed)
	// The same INIT adding an address: discarded, ABORT listing it.
	tc.writeFrom(peerAddr2, 0, initChunk(chunk.TypeInit, 0x9292, 65536, 100, 100, 9,
		addrParam(t, peerAddr.Addr().String()), addrParam(t, "203.0.113.5")))
	p, ab := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != 0x9292 || !slices.Equal(causeAddrs(t, ab.value()), []netip.Addr{netip.MustParseAddr("203.0.113.5")}) {
		t.Fatalf("ABORT tag %08x lists %v", p.p.vtag, causeAddrs(t, ab.value()))
	}
	tc.wantState(stateCookieEchoed)
	// The COOKIE ACK from the second address is taken by its tag.
	tc.writeFrom(peerAddr2, a.localTag, chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
}

// The INIT ACK may come from another address of the peer than the one the
// INIT went to: it carries our tag and lists that address, so it is the
// answer to our INIT (section 5.1.2 records its source too).
func TestInitAckFromOtherPeerAddress(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	// Not listing the address the INIT went to: not ours.
	tc.writeFrom(peerAddr2, a.localTag, initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		param(chunk.ParamStateCookie, []byte("c"))))
	tc.readPackets()
	tc.sent = nil
	tc.wantState(stateCookieWait)
	tc.writeFrom(peerAddr2, a.localTag, initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		addrParam(t, peerAddr.Addr().String()), param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.wantState(stateCookieEchoed)
	if !slices.Contains(a.peerAddrs, peerAddr2.Addr()) {
		t.Fatalf("source %v not recorded: %v", peerAddr2, a.peerAddrs)
	}
}

// Hostile input: an INIT listing hundreds of addresses to a multi-homed
// server: the cookie holds maxPeerAddrs of them at most, the rest (and
// those the peer cannot own) are counted, and the association has at most
// maxPeerAddrs+1 paths.
func TestInitAddressesBoundedServer(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	var params [][]byte
	for i := range 400 {
		params = append(params, addrParam(t, netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}).String()))
	}
	params = append(params[:10], append([][]byte{addrParam(t, "127.0.0.1"), addrParam(t, "0.0.0.0")}, params[10:]...)...)
	tc.writePacket(0, tc.peerInit(params...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if len(in.cookie) > cookieLen+1+16*maxPeerAddrs {
		t.Fatalf("cookie of %d bytes", len(in.cookie))
	}
	if got := tc.ep.stats.PeerAddrsIgnored; got != 402-maxPeerAddrs+2 {
		t.Fatalf("PeerAddrsIgnored %d, want %d", got, 402-maxPeerAddrs+2)
	}
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	a := tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if a == nil || len(a.paths) > maxPeerAddrs+1 || len(a.paths) < 2 {
		t.Fatalf("association %v with %d paths", a != nil, len(a.paths))
	}
}
