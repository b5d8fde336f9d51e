package assoc

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// addReqs returns Add IP Address (or other typ) requests for the
// addresses 198.18.0.first up to 198.18.0.first+n-1, correlation ids from
// first+1.
func addReqs(t *testing.T, typ chunk.ParamType, first, n int) [][]byte {
	var reqs [][]byte
	for i := first; i < first+n; i++ {
		reqs = append(reqs, asconfReq(t, typ, uint32(i+1), victimAddr(i).Addr().String()))
	}
	return reqs
}

// countCauses counts the requests of an ASCONF-ACK answered with cause c
// (0: success).
func countCauses(res map[uint32]chunk.CauseCode, c chunk.CauseCode) int {
	n := 0
	for _, x := range res {
		if x == c {
			n++
		}
	}
	return n
}

// TestASCONFAddRate: the peer's Add IP Address requests are performed at
// most asconfAddBurst at once and one a second after (RFC 5061 section
// 5.2 lets the receiver refuse a request with "Operation Refused Due to
// Resource Shortage"): a peer that deletes its 31 added addresses and adds
// them again at once gets one, then one per second.
func TestASCONFAddRate(t *testing.T) {
	tc, peer := asconfServer(t)
	serial := tc.peerTSN
	send := func(reqs [][]byte) map[uint32]chunk.CauseCode {
		t.Helper()
		tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, serial, reqs...)))
		serial++
		_, _, res := tc.wantASCONFAck(peer)
		return res
	}
	for _, first := range []int{0, 16} {
		if res := send(addReqs(t, chunk.ParamAddIPAddress, first, min(16, 31-first))); countCauses(res, 0) != len(res) {
			t.Fatalf("first additions refused: %v", res)
		}
	}
	send(addReqs(t, chunk.ParamDeleteIPAddress, 0, 16))
	send(addReqs(t, chunk.ParamDeleteIPAddress, 16, 15))
	if n := len(tc.a.paths); n != 1 {
		t.Fatalf("%d paths after deleting", n)
	}
	res := send(addReqs(t, chunk.ParamAddIPAddress, 0, 16))
	if ok, refused := countCauses(res, 0), countCauses(res, chunk.CauseResourceShortage); ok != 1 || refused != 15 {
		t.Fatalf("at once: %d added, %d refused, want 1 and 15", ok, refused)
	}
	tc.advance(10 * time.Second)
	tc.readPackets()
	tc.sent = nil
	res = send(addReqs(t, chunk.ParamAddIPAddress, 1, 15))
	if ok := countCauses(res, 0); ok != 10 {
		t.Fatalf("after 10 s: %d added, want 10", ok)
	}
	if n := len(tc.a.paths); n != 12 {
		t.Fatalf("%d paths, want 12", n)
	}
}

// TestASCONFAddressCycles: a peer that moves (RFC 5061's mobility) adds a
// new address, has it confirmed and deletes it, a hundred times: each new
// address is confirmed and used, and the transfer engine keeps no more
// paths than the association has (a deleted address's engine path is
// freed and its slot reused).
func TestASCONFAddressCycles(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.ignoreHB = false
	serial := tc.peerTSN
	for i := range 100 {
		ip := netip.AddrFrom4([4]byte{198, 18, 1, byte(i + 1)}).String()
		addr := tc.addConfirmed(peer, serial, ip, true)
		serial++
		ps := tc.a.Paths(nil)
		if len(ps) != 2 || ps[1].Addr != addr || ps[1].State != api.PathActive {
			t.Fatalf("cycle %d: paths %+v, want %v confirmed", i, ps, addr)
		}
		tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, serial,
			asconfReq(t, chunk.ParamDeleteIPAddress, serial, ip))))
		if _, _, res := tc.wantASCONFAck(peer); res[serial] != 0 {
			t.Fatalf("cycle %d: delete %s: %v", i, ip, res)
		}
		serial++
		if n := tc.a.data.eng.NumPaths(); n > 2 {
			t.Fatalf("cycle %d: the engine keeps %d paths for 1 address", i, n)
		}
		tc.advance(time.Second)
		tc.readPackets()
		tc.sent = nil
	}
	tc.wantState(stateEstablished)
}

// TestASCONFAckFits: RFC 5061 section 5.2 (paraphrase): the ASCONF-ACK
// is limited by the path MTU; the receiver of an ASCONF whose answers
// would not fit processes the parameters up to the last one it can
// answer, and answers. An ASCONF of 200 Add IP Address requests gets an
// ASCONF-ACK that fits in BASE_PLPMTU, answering a prefix of the
// requests; exactly the requests answered with success were performed.
func TestASCONFAckFits(t *testing.T) {
	tc, peer := asconfServer(t)
	reqs := addReqs(t, chunk.ParamAddIPAddress, 0, 200)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN, reqs...)))
	sp, serial, res := tc.wantASCONFAck(peer)
	if serial != tc.peerTSN {
		t.Fatalf("ASCONF-ACK serial %d, want %d", serial, tc.peerTSN)
	}
	if n := len(sp.raw); n > tc.ep.cfg.PMTUBase {
		t.Fatalf("ASCONF-ACK packet of %d bytes, over BASE_PLPMTU's %d", n, tc.ep.cfg.PMTUBase)
	}
	for id := uint32(1); id <= uint32(len(res)); id++ {
		if _, ok := res[id]; !ok {
			t.Fatalf("answers %v: not a prefix of the requests (no %d)", res, id)
		}
	}
	ok := countCauses(res, 0)
	if len(res) < maxASCONFParams || len(res) == 200 || ok != maxASCONFParams {
		t.Fatalf("%d answered, %d succeeded; want a prefix of more than %d with %d successes", len(res), ok, maxASCONFParams, maxASCONFParams)
	}
	if n := len(tc.a.paths); n != 1+ok {
		t.Fatalf("%d paths after %d successes", n, ok)
	}
	tc.wantState(stateEstablished)
}

// TestASCONF5061SetPrimaryUnconfirmedNotReachable: RFC 9260 section 5.4:
// "... an endpoint MUST NOT send any chunks to an UNCONFIRMED address"; a
// Set Primary Address naming an address just added makes it the primary
// once confirmed, and the event says so: made primary, not reachable,
// unconfirmed.
func TestASCONF5061SetPrimaryUnconfirmedNotReachable(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9"),
		asconfReq(t, chunk.ParamSetPrimaryAddress, 2, "192.0.2.9"))))
	if _, _, res := tc.wantASCONFAck(peer); res[1] != 0 || res[2] != 0 {
		t.Fatalf("answers %v", res)
	}
	e := tc.nextAddrEventPrimary()
	if e.Reachable || e.PathState != api.PathUnconfirmed {
		t.Fatalf("made-primary event %+v: an unconfirmed address is not reachable", e)
	}
}

// nextAddrEventPrimary returns the next "made primary" event of a peer's
// ASCONF.
func (tc *testConn) nextAddrEventPrimary() Event {
	tc.t.Helper()
	tc.drainEvents()
	for _, e := range tc.events {
		if e.Kind == api.EventPeerAddrChange && e.Change == api.AddrMadePrimary {
			return e
		}
	}
	tc.t.Fatal("no made-primary event")
	return Event{}
}

// TestASCONF5061StaleAckAborts: RFC 5061 section 5.3: "F0) If an
// endpoint receives an ASCONF-ACK that is greater than or equal to the
// next Sequence Number to be used but no ASCONF Chunk is outstanding, the
// endpoint MUST ABORT the association." An older serial is ignored; the
// next one, with nothing outstanding, draws an ABORT with the cause
// "Association Aborted due to Illegal ASCONF-ACK".
func TestASCONF5061StaleAckAborts(t *testing.T) {
	tc, peer := asconfServer(t)
	ack := func(serial uint32) []byte {
		m := chunk.ASCONF{Ack: true, Serial: serial}
		b, _ := m.Append(nil)
		return peer.sign(0, chunk.HMACSHA1, b)
	}
	next := uint32(tc.a.localTSN) // the first ASCONF's serial (section 5.1)
	tc.writeChunks(ack(next - 1))
	tc.readPackets()
	if len(tc.sent) != 0 || tc.a.closed || tc.a.stats.ASCONF.StaleAcks != 1 {
		t.Fatalf("an old ASCONF-ACK was not just ignored: sent %d, closed %v, %+v", len(tc.sent), tc.a.closed, tc.a.stats.ASCONF)
	}
	tc.writeChunks(ack(next))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if !hasCause(c.value(), chunk.CauseIllegalASCONFAck) {
		t.Fatalf("ABORT %x without the Illegal ASCONF-ACK cause", c.value())
	}
	if !tc.a.closed {
		t.Fatal("association not aborted")
	}
}

// TestASCONF5061WithoutAuthDiscarded: RFC 5061 section 4.1.1, of ASCONF:
// "This chunk MUST be sent in an authenticated way by using the mechanism
// defined in [RFC4895]. If this chunk is received unauthenticated it MUST
// be silently discarded as described in [RFC4895]." An endpoint that
// supports ASCONF, in an association whose peer negotiated no AUTH,
// discards ASCONF and ASCONF-ACK without an answer (not the ERROR of an
// unrecognized chunk) and performs nothing; an endpoint without ASCONF
// support reports them as unrecognized (RFC 9260 section 3.2).
func TestASCONF5061WithoutAuthDiscarded(t *testing.T) {
	cfg := testConfig()
	cfg.DynamicAddrs = true
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	ackc := chunk.ASCONF{Ack: true, Serial: uint32(tc.a.localTSN)}
	ackb, _ := ackc.Append(nil)
	tc.writeChunks(asconfChunk(t, tc.peerTSN, asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9")))
	tc.writeChunks(ackb)
	tc.readPackets()
	if len(tc.sent) != 0 || len(tc.a.Paths(nil)) != 1 || tc.a.closed {
		t.Fatalf("ASCONF without AUTH answered or performed: sent %d, paths %d, closed %v", len(tc.sent), len(tc.a.Paths(nil)), tc.a.closed)
	}

	tc = newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(asconfChunk(t, tc.peerTSN, asconfReq(t, chunk.ParamAddIPAddress, 1, "192.0.2.9")))
	_, c := tc.wantChunk(chunk.TypeError)
	if !hasCause(c.value(), chunk.CauseUnrecognizedChunk) {
		t.Fatalf("ERROR %x, want Unrecognized Chunk Type", c.value())
	}
}
