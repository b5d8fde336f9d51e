package assoc

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The rules of RFC 5061's receiver and sender that the end-to-end ASCONF
// tests do not pin down: which CHUNKS list decides, the bound per ASCONF,
// which path carries the data after a deletion or a Set Primary, and what
// an ASCONF-ACK clears.

// asconfServerWith is asconfServer with the endpoint's configuration
// adjusted by adj (when not nil) and the peer listing peerChunks in its
// CHUNKS parameter.
func asconfServerWith(t *testing.T, adj func(*Config), peerChunks []byte) (*testConn, *testAuthPeer) {
	t.Helper()
	cfg := testConfig()
	cfg.DynamicAddrs = true
	if adj != nil {
		adj(&cfg)
	}
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer(peerChunks, chunk.HMACSHA1)
	ps := append(peer.params(), param(chunk.ParamSupportedExtensions,
		[]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck), byte(chunk.TypeAuth)}))
	tc.writePacket(0, tc.peerInit(ps...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	peer.learn(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	tc.ignoreHB = true
	return tc, peer
}

// TestASCONF5061OurChunkListDecides: RFC 5061 section 4.1.1, of the ASCONF
// chunk: "This chunk MUST be sent in an authenticated way by using the
// mechanism defined in [RFC4895]. If this chunk is received
// unauthenticated it MUST be silently discarded as described in
// [RFC4895]." RFC 4895 section 6.3: "The receiver has a list of chunk
// types that it expects to be received only after an AUTH-chunk. This
// list has been sent to the peer during the association setup." What we
// accept follows OUR list (which has ASCONF): a peer that does not ask us
// to authenticate the ASCONFs we send still has its authenticated ASCONF
// performed.
func TestASCONF5061OurChunkListDecides(t *testing.T) {
	tc, peer := asconfServerWith(t, nil, []byte{byte(chunk.TypeASCONFAck)})
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9"))))
	tc.readPackets()
	var res map[uint32]chunk.CauseCode
	for i := range tc.sent {
		if tc.sent[i].p.find(chunk.TypeASCONFAck) != nil {
			_, res = ackResults(t, &tc.sent[i])
		}
	}
	if res == nil || res[1] != 0 {
		t.Fatalf("authenticated ASCONF not answered with success: %v (stats %+v)", res, tc.a.stats.ASCONF)
	}
	if s := tc.a.stats.ASCONF; s.In != 1 || s.AddrsAdded != 1 {
		t.Fatalf("counters %+v", s)
	}
	// Unauthenticated, it is still discarded: our list has ASCONF.
	tc.sent = nil
	tc.writeChunks(asconfChunk(t, tc.peerTSN+1, asconfReq(t, chunk.ParamAddIPAddress, 2, "192.0.2.10")))
	tc.readPackets()
	if len(tc.sent) != 0 || tc.a.stats.ASCONF.In != 1 || tc.a.stats.Auth.Missing != 1 {
		t.Fatalf("unauthenticated ASCONF: sent %d, stats %+v %+v", len(tc.sent), tc.a.stats.ASCONF, tc.a.stats.Auth)
	}
}

// TestASCONFRequestsPerChunkBound: the requests of one ASCONF performed
// are bounded (maxASCONFParams, hostile peers); the one beyond the bound
// is answered "Operation Refused Due to Resource Shortage" (RFC 5061
// section 5.2: each request gets its own success or error indication),
// every one up to the bound is performed.
func TestASCONFRequestsPerChunkBound(t *testing.T) {
	tc, peer := asconfServer(t)
	var reqs [][]byte
	for i := range maxASCONFParams + 1 {
		reqs = append(reqs, asconfReq(t, chunk.ParamAddIPAddress, uint32(i+1), netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)}).String()))
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN, reqs...)))
	_, _, res := tc.wantASCONFAck(peer)
	for i := 1; i <= maxASCONFParams; i++ {
		if res[uint32(i)] != 0 {
			t.Fatalf("request %d of %d refused (%v): the first %d are performed", i, maxASCONFParams+1, res[uint32(i)], maxASCONFParams)
		}
	}
	if c := res[maxASCONFParams+1]; c != chunk.CauseResourceShortage {
		t.Fatalf("request %d: cause %v, want Resource Shortage", maxASCONFParams+1, c)
	}
	if n := tc.a.stats.ASCONF.AddrsAdded; n != maxASCONFParams {
		t.Fatalf("%d addresses added, want %d", n, maxASCONFParams)
	}
}

// addProbed is addConfirmed seeing the HEARTBEATs it answers.
func (tc *testConn) addProbed(peer *testAuthPeer, serial uint32, ip string, confirm bool) netip.AddrPort {
	tc.t.Helper()
	tc.ignoreHB = false
	defer func() { tc.ignoreHB = true }()
	return tc.addConfirmed(peer, serial, ip, confirm)
}

// dataDests sends msg and returns the destinations of the packets with
// DATA the endpoint sends at once.
func (tc *testConn) dataDests(msg string) []netip.AddrPort {
	tc.t.Helper()
	tc.readPackets()
	tc.sent = nil
	if err := tc.a.send(tc.now, 0, 0, false, []byte(msg)); err != nil {
		tc.t.Fatal(err)
	}
	tc.readPackets()
	var to []netip.AddrPort
	for _, sp := range tc.sent {
		if sp.p.find(chunk.TypeData) != nil {
			to = append(to, sp.to)
		}
	}
	tc.sent = nil
	return to
}

// TestASCONF5061DeleteInUseAddress: RFC 5061 section 5.3 (paraphrase of
// the Delete IP Address handling): the receiver stops using the deleted
// address; data that went there goes to another address of the peer. The
// peer deletes the confirmed primary that carries the data: the
// remaining address is the one in use and new DATA goes there.
func TestASCONF5061DeleteInUseAddress(t *testing.T) {
	tc, peer := asconfServer(t)
	b := tc.addProbed(peer, tc.peerTSN, "192.0.2.9", true)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamSetPrimaryAddress, 2, b.Addr().String()))))
	tc.wantASCONFAck(peer)
	if to := tc.dataDests("to the new primary"); len(to) != 1 || to[0] != b {
		t.Fatalf("DATA to %v, want the confirmed primary %v", to, b)
	}
	tc.writeChunks(sackChunk(uint32(tc.a.localTSN), 65536))
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+2,
		asconfReq(t, chunk.ParamDeleteIPAddress, 3, b.Addr().String()))))
	tc.wantASCONFAck(peer)
	ps := tc.a.Paths(nil)
	if len(ps) != 1 || !ps[0].InUse || ps[0].Addr != peerAddr {
		t.Fatalf("paths after deleting the address in use: %+v, want %v in use", ps, peerAddr)
	}
	if to := tc.dataDests("after the delete"); len(to) != 1 || to[0] != peerAddr {
		t.Fatalf("DATA to %v, want %v", to, peerAddr)
	}
}

// TestASCONF5061DeleteKeepsPrimary: deleting an address listed before the
// primary leaves the primary as it was (RFC 5061 section 5.3: a Delete IP
// Address removes that address, nothing else): with paths handshake, A
// and B and B primary, deleting A keeps B primary, in use, and carrying
// the data.
func TestASCONF5061DeleteKeepsPrimary(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.addProbed(peer, tc.peerTSN, "192.0.2.9", true)
	b := tc.addProbed(peer, tc.peerTSN+1, "192.0.2.10", true)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+2,
		asconfReq(t, chunk.ParamSetPrimaryAddress, 3, b.Addr().String()))))
	tc.wantASCONFAck(peer)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+3,
		asconfReq(t, chunk.ParamDeleteIPAddress, 4, "192.0.2.9"))))
	tc.wantASCONFAck(peer)
	ps := tc.a.Paths(nil)
	if len(ps) != 2 || ps[1].Addr != b || !ps[1].Primary || !ps[1].InUse || ps[0].Primary {
		t.Fatalf("paths %+v: %v must stay the primary in use", ps, b)
	}
	if to := tc.dataDests("to the primary"); len(to) != 1 || to[0] != b {
		t.Fatalf("DATA to %v, want the primary %v", to, b)
	}
}

// TestASCONF5061DeleteKeepsOthersProbe: RFC 9260 section 5.4 (paraphrase:
// an UNCONFIRMED address is probed with a HEARTBEAT as soon as the
// association allows). Deleting one added address does not lose the
// HEARTBEAT already due to another one: it goes at once.
func TestASCONF5061DeleteKeepsOthersProbe(t *testing.T) {
	tc, peer := asconfServer(t)
	a := tc.addProbed(peer, tc.peerTSN, "192.0.2.9", true)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamAddIPAddress, 2, "192.0.2.10"))))
	tc.wantASCONFAck(peer)
	b := netip.MustParseAddrPort("192.0.2.10:9899")
	due := false
	for range 5 {
		tc.advanceToTimer() // the timers only: nothing is sent yet
		if i := tc.a.pathAt(b); i >= 0 && tc.a.pend.pathHB&(1<<i) != 0 {
			due = true
			break
		}
	}
	if !due {
		t.Fatalf("no HEARTBEAT came due for %v", b)
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+2,
		asconfReq(t, chunk.ParamDeleteIPAddress, 3, a.Addr().String()))))
	tc.ignoreHB = false
	tc.readPackets()
	for _, sp := range tc.sent {
		if sp.to == b && sp.p.find(chunk.TypeHeartbeat) != nil {
			return
		}
	}
	t.Fatalf("no HEARTBEAT to %v after another address was deleted", b)
}

// TestASCONF5061SetPrimaryInactive: RFC 5061 section 5.3 (paraphrase): a
// Set Primary Address makes the address the primary; RFC 9260 section
// 6.4: "When its peer is multi-homed, an endpoint SHOULD send fresh
// transmissions to the primary path ... if the primary path is not in the
// ACTIVE state, the endpoint SHOULD send to an active path instead". An
// address the peer refused (inactive) becomes the primary, yet the data
// stays on the active path until it answers.
func TestASCONF5061SetPrimaryInactive(t *testing.T) {
	tc, peer := asconfServer(t)
	b := tc.addProbed(peer, tc.peerTSN, "192.0.2.9", true)
	quote := appendHeader(nil, tc.lport, tc.pport, tc.a.peerTag)
	quote = append(quote, chunkOf(chunk.TypeHeartbeat, 0, make([]byte, 20))...)
	tc.ep.Notice(tc.now, Notice{To: b, Kind: NoticeRefused, Quote: quote})
	if i := tc.a.pathIndex(b.Addr()); i < 0 || tc.a.paths[i].state != api.PathInactive {
		t.Fatalf("refused path: %+v", tc.a.Paths(nil))
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamSetPrimaryAddress, 2, b.Addr().String()))))
	tc.wantASCONFAck(peer)
	ps := tc.a.Paths(nil)
	if len(ps) != 2 || !ps[1].Primary || ps[1].InUse || !ps[0].InUse {
		t.Fatalf("paths %+v: the inactive primary must not carry the data", ps)
	}
	if to := tc.dataDests("while the primary is down"); len(to) != 1 || to[0] != peerAddr {
		t.Fatalf("DATA to %v, want the active %v", to, peerAddr)
	}
}

// TestASCONF5061AckClearsErrorCount: RFC 5061 section 5.1 counts each
// retransmission of an ASCONF against Association.Max.Retrans, and an
// ASCONF-ACK is the peer's answer: RFC 9260 section 8.1 "The counter
// MUST be reset each time ... a HEARTBEAT ACK chunk is received from the
// peer endpoint" applies to it as to any answer (paraphrase of RFC 5061
// section 5.3's acknowledgement handling). Three retransmissions, an
// ASCONF-ACK, and two more retransmissions of the next ASCONF leave the
// association up with Association.Max.Retrans 3.
func TestASCONF5061AckClearsErrorCount(t *testing.T) {
	tc, peer := asconfServerWith(t, func(c *Config) { c.MaxRetransmits = 3 },
		[]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)})
	op, err := tc.a.AddLocalAddr(tc.now, netip.MustParseAddr("192.0.2.77"))
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := tc.wantChunk(chunk.TypeAuth)
	m, err := chunk.ParseASCONF(chunkOfRx(sp.p.find(chunk.TypeASCONF)))
	if err != nil {
		t.Fatal(err)
	}
	expire := func(n int) {
		t.Helper()
		for range n {
			tc.advance(tc.a.ascOut.rto)
			tc.readPackets()
			tc.sent = nil
		}
	}
	expire(3)
	ack := chunk.ASCONF{Ack: true, Serial: m.Serial}
	ab, _ := ack.Append(nil)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, ab))
	if e := tc.wantAnswer(op); e.Err != nil {
		t.Fatalf("answer %+v", e)
	}
	if _, err := tc.a.SetPeerPrimary(tc.now, netip.MustParseAddr("192.0.2.77")); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	tc.sent = nil
	expire(3)
	tc.wantState(stateEstablished)
	if tc.a.stats.ASCONF.Retransmits != 6 {
		t.Fatalf("%d retransmissions, want 6", tc.a.stats.ASCONF.Retransmits)
	}
}
