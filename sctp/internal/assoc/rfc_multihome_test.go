package assoc

import (
	"bytes"
	"net/netip"
	"slices"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// addrParam encodes an IPv4 or IPv6 Address parameter.
func addrParam(t testing.TB, s string) []byte {
	t.Helper()
	b, err := chunk.AppendAddrParam(nil, netip.MustParseAddr(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clientInitAck starts a handshake as client and answers the INIT with an
// INIT ACK carrying params; it returns the INIT the endpoint sent.
func (tc *testConn) clientInitAck(params ...[]byte) initInfo {
	tc.t.Helper()
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.a = a
	_, c := tc.wantChunk(chunk.TypeInit)
	in := initValue(tc.t, c)
	params = append(params, param(chunk.ParamStateCookie, []byte("peer cookie")))
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, params...))
	tc.wantChunk(chunk.TypeCookieEcho)
	return in
}

// RFC 9260 section 5.1.2: "If there are only IPv4/IPv6 addresses present
// in the received INIT or INIT ACK chunk, the receiver MUST derive and
// record all the transport addresses from the received chunk AND the
// source IP address that sent the INIT or INIT ACK chunk."
func TestInitAckAddressesRecordedWithSource(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.clientInitAck(addrParam(t, "192.0.2.20"), addrParam(t, "2001:db8::20"))
	for _, s := range []string{"192.0.2.2", "192.0.2.20", "2001:db8::20"} {
		if !tc.a.knowsPeerAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s not recorded as a peer address", s)
		}
	}
	if tc.a.stats.PeerAddrsIgnored != 0 {
		t.Errorf("%d addresses ignored", tc.a.stats.PeerAddrsIgnored)
	}
}

// Hostile input: an INIT ACK listing hundreds of addresses keeps
// maxPeerAddrs of them; the rest are ignored and counted.
func TestInitAckAddressesBounded(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	var params [][]byte
	for i := range 300 {
		params = append(params, addrParam(t, netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}).String()))
	}
	tc.clientInitAck(params...)
	if n := len(tc.a.peerAddrs); n != maxPeerAddrs {
		t.Fatalf("%d peer addresses recorded, want %d", n, maxPeerAddrs)
	}
	if got := tc.a.stats.PeerAddrsIgnored; got != 300-maxPeerAddrs {
		t.Fatalf("PeerAddrsIgnored %d, want %d", got, 300-maxPeerAddrs)
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
}

// Hostile input: addresses a remote peer cannot own (unspecified,
// multicast, broadcast, loopback from a non-loopback source) are ignored
// and counted; the association comes up with the others.
func TestInitAckUnownableAddressesIgnored(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	bad := []string{"0.0.0.0", "::", "127.0.0.1", "::1", "224.0.0.5", "ff02::1", "255.255.255.255"}
	params := [][]byte{addrParam(t, "192.0.2.30")}
	for _, s := range bad {
		params = append(params, addrParam(t, s))
	}
	tc.clientInitAck(params...)
	for _, s := range bad {
		if slices.Contains(tc.a.peerAddrs, netip.MustParseAddr(s)) {
			t.Errorf("%s recorded as a peer address", s)
		}
	}
	if !tc.a.knowsPeerAddr(netip.MustParseAddr("192.0.2.30")) {
		t.Error("the good address was not recorded")
	}
	if got := tc.a.stats.PeerAddrsIgnored; got != uint64(len(bad)) {
		t.Fatalf("PeerAddrsIgnored %d, want %d", got, len(bad))
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
}

// A peer on a loopback address may list other loopback addresses.
func TestInitAckLoopbackFromLoopback(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.peer = netip.MustParseAddrPort("127.0.0.1:9899")
	tc.clientInitAck(addrParam(t, "127.0.0.2"))
	if !tc.a.knowsPeerAddr(netip.MustParseAddr("127.0.0.2")) || tc.a.stats.PeerAddrsIgnored != 0 {
		t.Fatalf("127.0.0.2 from a loopback peer: recorded %v, ignored %d", tc.a.peerAddrs, tc.a.stats.PeerAddrsIgnored)
	}
}

// The endpoint's own addresses: listed in INIT and INIT ACK when it has
// several (section 5.1.2 above, from the sender's side); with one the
// chunks are byte for byte those of an endpoint without the list.
func TestHandshakeListsLocalAddresses(t *testing.T) {
	local := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	initOf := func(addrs []netip.Addr) ([]byte, initInfo) {
		cfg := testConfig()
		cfg.LocalAddrs = addrs
		tc := newTestEndpoint(t, cfg)
		a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
		if err != nil {
			t.Fatal(err)
		}
		tc.a = a
		_, c := tc.wantChunk(chunk.TypeInit)
		return append([]byte(nil), c.raw...), initValue(t, c)
	}
	initAckOf := func(addrs []netip.Addr) ([]byte, initInfo) {
		cfg := testConfig()
		cfg.LocalAddrs = addrs
		tc := newTestEndpoint(t, cfg)
		tc.writePacket(0, tc.peerInit())
		_, c := tc.wantChunk(chunk.TypeInitAck)
		return append([]byte(nil), c.raw...), initValue(t, c)
	}
	for name, get := range map[string]func([]netip.Addr) ([]byte, initInfo){"INIT": initOf, "INIT ACK": initAckOf} {
		_, in := get(local)
		if got := in.addrs[:in.naddrs]; !slices.Equal(got, local) {
			t.Errorf("%s lists %v, want %v", name, got, local)
		}
		none, in0 := get(nil)
		one, in1 := get(local[:1])
		if in0.naddrs != 0 || in1.naddrs != 0 {
			t.Errorf("%s with one address lists %d", name, in1.naddrs)
		}
		if name == "INIT" && !bytes.Equal(none, one) {
			// (An INIT ACK's cookie differs per endpoint secret.)
			t.Errorf("%s with one local address differs from the INIT without the list", name)
		}
	}
}

// The server side of a multi-homed association: the client's other
// address, listed in its INIT, travels in the State Cookie (the server
// keeps no state before COOKIE ECHO), becomes an unconfirmed path, and is
// confirmed by the HEARTBEAT ACK of the HEARTBEAT sent to it (RFC 9260
// section 5.4: "For the receiver of the COOKIE ECHO chunk, the only
// CONFIRMED address is the address to which the packet containing the
// INIT ACK chunk was sent.").
func TestServerMultihomeAddressFromCookie(t *testing.T) {
	cfg := testConfig()
	cfg.Multihoming = true
	tc := newTestEndpoint(t, cfg)
	tc.writePacket(0, tc.peerInit(addrParam(t, peerAddr2.Addr().String())))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if len(in.cookie) != cookieLen+1+16 {
		t.Fatalf("cookie of %d bytes, want the address in it", len(in.cookie))
	}
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		t.Fatal("no association")
	}
	tc.wantChunk(chunk.TypeCookieAck)
	if len(tc.a.paths) != 2 || tc.a.paths[1].addr != peerAddr2 || tc.a.paths[1].state != api.PathUnconfirmed {
		t.Fatalf("paths %+v", tc.a.paths)
	}
	tc.advanceToTimer()
	p, hb := tc.wantChunk(chunk.TypeHeartbeat)
	if p.to != peerAddr2 {
		t.Fatalf("HEARTBEAT sent to %v, want %v", p.to, peerAddr2)
	}
	// The peer answers from its second address.
	b := appendHeader(nil, tc.pport, tc.lport, tc.a.localTag)
	b = appendHeartbeatAck(b, hb.value())
	tc.ep.receive(tc.now, peerAddr2, finishPacket(b, 0))
	if tc.a.paths[1].state != api.PathActive || tc.a.stats.PathsConfirmed != 1 {
		t.Fatalf("path after the HEARTBEAT ACK: %v", tc.a.paths[1].state)
	}
}

// Without Config.Paths.Multihoming the cookie carries no addresses and the
// association has one path, whatever the INIT lists.
func TestServerWithoutMultihomeCookieUnchanged(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(addrParam(t, peerAddr2.Addr().String())))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	if in := initValue(t, c); len(in.cookie) != cookieLen {
		t.Fatalf("cookie of %d bytes", len(in.cookie))
	}
}
