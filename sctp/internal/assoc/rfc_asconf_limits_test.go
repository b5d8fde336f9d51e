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
