package assoc

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// asconfServer establishes an association with an endpoint that accepts
// the peer's ASCONF (Config.Extensions.DynamicAddrs); the test peer offers AUTH and
// ASCONF, as Linux does with auth_enable and addip_enable.
func asconfServer(t *testing.T) (*testConn, *testAuthPeer) {
	t.Helper()
	cfg := testConfig()
	cfg.DynamicAddrs = true
	tc := newTestEndpoint(t, cfg)
	peer := newTestAuthPeer([]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)}, chunk.HMACSHA1)
	ps := append(peer.params(), param(chunk.ParamSupportedExtensions,
		[]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck), byte(chunk.TypeAuth)}))
	tc.writePacket(0, tc.peerInit(ps...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	if in.ext&extASCONF == 0 {
		t.Fatal("INIT ACK does not list ASCONF")
	}
	var chk []byte
	walkParams(c.raw[20:], func(typ chunk.ParamType, val, raw []byte) bool {
		if typ == chunk.ParamChunkList {
			chk = val
		}
		return true
	})
	if string(chk) != string([]byte{byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)}) {
		t.Fatalf("CHUNKS %x: ASCONF and ASCONF-ACK must be authenticated", chk)
	}
	peer.learn(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	tc.ignoreHB = true
	return tc, peer
}

// asconfChunk builds an ASCONF with serial and request parameters.
func asconfChunk(t *testing.T, serial uint32, reqs ...[]byte) []byte {
	t.Helper()
	m := chunk.ASCONF{Serial: serial}
	m.Address = chunk.Param{Type: chunk.ParamIPv4Address, Value: []byte{192, 0, 2, 2}}
	for _, r := range reqs {
		m.Params = append(m.Params, r...)
	}
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func asconfReq(t *testing.T, typ chunk.ParamType, corr uint32, ip string) []byte {
	t.Helper()
	b, err := chunk.AppendASCONFAddrParam(nil, typ, corr, netip.MustParseAddr(ip))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ackResults returns the ASCONF-ACK of a packet: its serial and, per
// correlation id, 0 for success or the error cause code.
func ackResults(t *testing.T, sp *sentPacket) (uint32, map[uint32]chunk.CauseCode) {
	t.Helper()
	for i := range sp.p.chunks {
		c := &sp.p.chunks[i]
		if c.typ != chunk.TypeASCONFAck {
			continue
		}
		m, err := chunk.ParseASCONF(chunkOfRx(c))
		if err != nil {
			t.Fatal(err)
		}
		res := map[uint32]chunk.CauseCode{}
		it := m.Walk()
		for p, ok := it.Next(); ok; p, ok = it.Next() {
			q, err := chunk.ParseASCONFParam(p)
			if err != nil {
				t.Fatal(err)
			}
			res[q.CorrelationID] = 0
			if q.Type == chunk.ParamErrorCauseIndication {
				res[q.CorrelationID] = chunk.CauseCode(binary.BigEndian.Uint16(q.Causes))
			}
		}
		return m.Serial, res
	}
	t.Fatalf("no ASCONF-ACK in %v", chunkTypes(&sp.p))
	return 0, nil
}

// wantASCONFAck reads the next packet, which must carry an authenticated
// ASCONF-ACK (the peer listed ASCONF-ACK in its CHUNKS).
func (tc *testConn) wantASCONFAck(peer *testAuthPeer) (*sentPacket, uint32, map[uint32]chunk.CauseCode) {
	tc.t.Helper()
	sp, _ := tc.wantChunk(chunk.TypeAuth)
	peer.checkAuth(tc.t.(*testing.T), sp, 0)
	s, r := ackResults(tc.t.(*testing.T), sp)
	return sp, s, r
}

// TestASCONF5061AddSetPrimaryDelete: the peer adds an address, makes it
// primary and deletes it again. RFC 5061 (paraphrases): the ASCONF's
// Sequence Number starts at the sender's Initial TSN; each request gets a
// success or an error indication with its correlation ID in the
// ASCONF-ACK; an added address is not used before it is confirmed (RFC
// 9260 section 5.4: HEARTBEAT with a nonce, HEARTBEAT ACK).
func TestASCONF5061AddSetPrimaryDelete(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9"),
		asconfReq(t, chunk.ParamSetPrimaryAddress, 2, "192.0.2.9"))))
	_, serial, res := tc.wantASCONFAck(peer)
	if serial != tc.peerTSN || res[1] != 0 || res[2] != 0 || len(res) != 2 {
		t.Fatalf("ASCONF-ACK serial %d results %v", serial, res)
	}
	tc.wantAddrEvent(api.AddrAdded)
	if e := tc.wantAddrEvent(api.AddrMadePrimary); e.Addr.IP != netip.MustParseAddr("192.0.2.9") {
		t.Fatalf("primary event for %v", e.Addr)
	}
	ps := tc.a.Paths(nil)
	if len(ps) != 2 || ps[1].State != api.PathUnconfirmed || !ps[1].Primary || ps[0].InUse != true {
		t.Fatalf("paths %+v: the new address must be unconfirmed and not in use yet", ps)
	}
	// Delete it, from the handshake's address.
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamDeleteIPAddress, 3, "192.0.2.9"))))
	if _, _, res := tc.wantASCONFAck(peer); res[3] != 0 {
		t.Fatalf("delete: %v", res)
	}
	tc.wantAddrEvent(api.AddrRemoved)
	if ps := tc.a.Paths(nil); len(ps) != 1 || !ps[0].Primary {
		t.Fatalf("paths after delete %+v", ps)
	}
	if s := tc.a.stats.ASCONF; s.In != 2 || s.AddrsAdded != 1 || s.AddrsDeleted != 1 {
		t.Fatalf("counters %+v", s)
	}
}

// TestASCONF5061Refusals: "Request to Delete Last Remaining IP Address",
// "Request to Delete Source IP Address", and an address the peer cannot
// own or that belongs to another association (a hijack attempt) refused
// with "Request Refused - No Authorization"; the association is unharmed.
func TestASCONF5061Refusals(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamDeleteIPAddress, 1, "192.0.2.2"),
		asconfReq(t, chunk.ParamAddIPAddress, 2, "127.0.0.1"),
		asconfReq(t, chunk.ParamAddIPAddress, 3, "192.0.2.7"),
		asconfReq(t, chunk.ParamDeleteIPAddress, 4, "192.0.2.2"))))
	_, _, res := tc.wantASCONFAck(peer)
	want := map[uint32]chunk.CauseCode{1: chunk.CauseDeleteLastAddress, 2: chunk.CauseNoAuthorization, 3: 0, 4: chunk.CauseDeleteSourceAddress}
	for k, v := range want {
		if res[k] != v {
			t.Fatalf("results %v, want %v", res, want)
		}
	}
	// Another association's peer address cannot be added.
	other := tc.ep.newAssoc(assocKey{peer: netip.MustParseAddrPort("198.51.100.1:9899"), localPort: tc.lport, peerPort: tc.pport})
	tc.ep.assocs[other.key] = other
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamAddIPAddress, 5, "198.51.100.1"))))
	if _, _, res := tc.wantASCONFAck(peer); res[5] != chunk.CauseNoAuthorization {
		t.Fatalf("hijack: %v", res)
	}
	delete(tc.ep.assocs, other.key)
	tc.wantState(stateEstablished)
}

// TestASCONF5061Unauthenticated: RFC 5061 section 4.1.1, of the ASCONF
// chunk: "This chunk MUST be sent in an authenticated way by using the
// mechanism defined in [RFC4895]. If this chunk is received
// unauthenticated it MUST be silently discarded as described in
// [RFC4895]." Forged or missing
// AUTH: nothing is performed, no ASCONF-ACK, counted.
func TestASCONF5061Unauthenticated(t *testing.T) {
	tc, peer := asconfServer(t)
	add := asconfChunk(t, tc.peerTSN, asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9"))
	tc.writeChunks(add)
	forged := peer.sign(0, chunk.HMACSHA1, add)
	forged[10] ^= 0x40
	tc.writeChunks(forged)
	tc.readPackets()
	if len(tc.sent) != 0 || len(tc.a.Paths(nil)) != 1 {
		t.Fatalf("unauthenticated ASCONF performed: sent %d packets, paths %+v", len(tc.sent), tc.a.Paths(nil))
	}
	if s := tc.a.stats; s.Auth.Missing != 1 || s.Auth.BadHMAC != 1 || s.ASCONF.In != 0 {
		t.Fatalf("counters %+v %+v", s.Auth, s.ASCONF)
	}
}

// TestASCONF5061Serials: a retransmitted ASCONF (the serial just
// processed) is answered again from the cached ASCONF-ACK without being
// performed twice; an old or a future serial is dropped and counted. RFC
// 5061 section 5.2: "E2) If the value found in the Sequence Number is
// less than the ('Peer- Sequence-Number' + 1), simply skip to the next
// ASCONF, and include in the outbound response packet any previously
// cached ASCONF-ACK response that was sent and saved that matches the
// Sequence Number ..." "E5) Otherwise, the ASCONF Chunk is
// discarded since it must be either a stale packet or from an attacker."
func TestASCONF5061Serials(t *testing.T) {
	tc, peer := asconfServer(t)
	add := peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN, asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9")))
	tc.writeChunks(add)
	sp1, _, _ := tc.wantASCONFAck(peer)
	tc.writeChunks(add)
	sp2, _, _ := tc.wantASCONFAck(peer)
	if string(sp1.raw) != string(sp2.raw) {
		t.Fatal("the retransmission got another ASCONF-ACK")
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+5, asconfReq(t, chunk.ParamAddIPAddress, 2, "192.0.2.10"))))
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN-3, asconfReq(t, chunk.ParamAddIPAddress, 3, "192.0.2.11"))))
	tc.readPackets()
	if len(tc.sent) != 0 {
		t.Fatalf("answered a bad serial: %v", chunkTypes(&tc.sent[0].p))
	}
	if s := tc.a.stats.ASCONF; s.In != 1 || s.Retransmitted != 1 || s.BadSerial != 2 || s.AddrsAdded != 1 {
		t.Fatalf("counters %+v", s)
	}
}

// TestASCONFFlood: a peer (with the key) that keeps adding addresses gets
// at most 32 paths; the rest are refused with "Operation Refused Due to
// Resource Shortage", and the association goes on.
func TestASCONFFlood(t *testing.T) {
	tc, peer := asconfServer(t)
	serial := tc.peerTSN
	refused := 0
	for i := range 20 {
		var reqs [][]byte
		for j := range 16 {
			reqs = append(reqs, asconfReq(t, chunk.ParamAddIPAddress, uint32(j), netip.AddrFrom4([4]byte{10, 1, byte(i), byte(j + 1)}).String()))
		}
		tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, serial, reqs...)))
		serial++
		_, _, res := tc.wantASCONFAck(peer)
		for _, c := range res {
			if c == chunk.CauseResourceShortage {
				refused++
			}
		}
	}
	if n := len(tc.a.Paths(nil)); n != maxPeerAddrs || refused != 20*16-(maxPeerAddrs-1) {
		t.Fatalf("%d paths, %d refused", n, refused)
	}
	tc.wantState(stateEstablished)
}

// TestASCONFPathLifecycle: an added address is probed with a HEARTBEAT and
// used only once the HEARTBEAT ACK confirms it; made primary, it takes the
// new data; deleted while that data is in flight, the data is sent again
// to the remaining address.
func TestASCONFPathLifecycle(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.ignoreHB = false
	newAddr := netip.MustParseAddrPort("192.0.2.9:9899")
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9"),
		asconfReq(t, chunk.ParamSetPrimaryAddress, 2, "192.0.2.9"))))
	tc.ep.Expire(tc.now) // the new path's first HEARTBEAT is due now
	tc.readPackets()
	var hb *rxChunk
	for i := range tc.sent {
		sp := &tc.sent[i]
		if c := sp.p.find(chunk.TypeHeartbeat); c != nil && sp.to == newAddr {
			hb = c
		}
	}
	if hb == nil {
		t.Fatal("no HEARTBEAT to the added address")
	}
	tc.sent = nil
	if err := tc.a.send(tc.now, 0, 0, false, []byte("before confirmation")); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	for _, sp := range tc.sent {
		if sp.p.find(chunk.TypeData) != nil && sp.to == newAddr {
			t.Fatal("DATA sent to an unconfirmed address")
		}
	}
	tc.sent = nil
	tc.writeChunks(sackChunk(uint32(tc.a.localTSN), 65536))
	tc.peer = newAddr
	tc.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, hb.value()))
	tc.peer = peerAddr
	if ps := tc.a.Paths(nil); ps[1].State != api.PathActive || !ps[1].InUse {
		t.Fatalf("paths %+v: the confirmed primary must carry the data", ps)
	}
	tc.readPackets()
	tc.sent = nil
	if err := tc.a.send(tc.now, 0, 0, false, []byte("in flight")); err != nil {
		t.Fatal(err)
	}
	sp, _ := tc.wantChunk(chunk.TypeData)
	if sp.to != newAddr {
		t.Fatalf("DATA to %v, want the new primary %v", sp.to, newAddr)
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamDeleteIPAddress, 3, "192.0.2.9"))))
	tc.readPackets()
	moved := false
	for _, sp := range tc.sent {
		if c := sp.p.find(chunk.TypeData); c != nil && sp.to == peerAddr && string(c.raw[16:]) == "in flight" {
			moved = true
		}
		if sp.to == newAddr {
			t.Fatalf("sent to the deleted address: %v", chunkTypes(&sp.p))
		}
	}
	if !moved {
		t.Fatal("the DATA in flight on the deleted path was not sent again to the remaining one")
	}
}

// TestASCONF5061SenderRetransmits: our ASCONF carries our Initial TSN as
// its serial, goes authenticated (the peer listed ASCONF), is sent again
// with the same serial when the retransmission timer expires, and only
// an ASCONF-ACK with that serial completes it; one ASCONF is outstanding at
// a time, the next request waits for the answer.
func TestASCONF5061SenderRetransmits(t *testing.T) {
	tc, peer := asconfServer(t)
	op, err := tc.a.AddLocalAddr(tc.now, netip.MustParseAddr("192.0.2.77"))
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := tc.wantChunk(chunk.TypeAuth)
	peer.checkAuth(t, sp, 0)
	c := sp.p.find(chunk.TypeASCONF)
	if c == nil {
		t.Fatalf("no ASCONF: %v", chunkTypes(&sp.p))
	}
	m, err := chunk.ParseASCONF(chunkOfRx(c))
	if err != nil || m.Serial != uint32(tc.a.localTSN) {
		t.Fatalf("ASCONF serial %d (%v), want the Initial TSN %d", m.Serial, err, tc.a.localTSN)
	}
	op2, _ := tc.a.SetPeerPrimary(tc.now, netip.MustParseAddr("192.0.2.77"))
	tc.readPackets()
	for _, sp := range tc.sent {
		if sp.p.find(chunk.TypeASCONF) != nil {
			t.Fatal("a second ASCONF while one is outstanding")
		}
	}
	tc.sent = nil
	tc.advanceToTimer()
	sp, _ = tc.wantChunk(chunk.TypeAuth)
	if c := sp.p.find(chunk.TypeASCONF); c == nil || binary.BigEndian.Uint32(c.value()) != m.Serial {
		t.Fatal("no retransmission of the same ASCONF")
	}
	ack := func(serial uint32) []byte {
		a := chunk.ASCONF{Ack: true, Serial: serial}
		b, _ := a.Append(nil)
		return b
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, ack(m.Serial+7)))
	if tc.a.stats.ASCONF.StaleAcks != 1 {
		t.Fatalf("a wrong serial was taken: %+v", tc.a.stats.ASCONF)
	}
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, ack(m.Serial)))
	if e := tc.wantAnswer(op); e.Err != nil {
		t.Fatalf("event %+v", e)
	}
	// The waiting request goes now, with the next serial.
	sp, _ = tc.wantChunk(chunk.TypeAuth)
	m2, _ := chunk.ParseASCONF(chunkOfRx(sp.p.find(chunk.TypeASCONF)))
	if m2.Serial != m.Serial+1 {
		t.Fatalf("second ASCONF serial %d", m2.Serial)
	}
	_ = op2
}
