package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// ecnParam is the ECN Capable parameter (RFC 9260 appendix A).
var ecnParam = param(chunk.ParamECNCapable, nil)

// hasParam reports whether the INIT or INIT ACK chunk c lists parameter t.
func hasParam(c *rxChunk, t chunk.ParamType) bool {
	v := c.value()[16:]
	for len(v) >= 4 {
		n := int(binary.BigEndian.Uint16(v[2:]))
		if n < 4 || n > len(v) {
			return false
		}
		if chunk.ParamType(binary.BigEndian.Uint16(v)) == t {
			return true
		}
		v = v[min((n+3)&^3, len(v)):]
	}
	return false
}

// connectServerECN runs the handshake with the endpoint as server and a
// peer whose INIT carries the ECN Capable parameter when ecn is set.
func (tc *testConn) connectServerECN(ecn bool) {
	tc.t.Helper()
	var ps [][]byte
	if ecn {
		ps = append(ps, ecnParam)
	}
	tc.writePacket(0, tc.peerInit(ps...))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(tc.t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	if tc.a == nil {
		tc.t.Fatalf("no association after COOKIE ECHO")
	}
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantState(stateEstablished)
	tc.wantEvent(api.EventUp)
}

// writeCE sends chunks with the endpoint's tag in a packet whose IP header
// carried CE.
func (tc *testConn) writeCE(chunks ...[]byte) {
	tc.t.Helper()
	b := appendHeader(nil, tc.pport, tc.lport, tc.a.localTag)
	for _, c := range chunks {
		b = append(b, c...)
	}
	tc.ep.Receive(tc.now, tc.peer, finishPacket(b, 0), ecnCE)
	tc.drainEvents()
}

// findChunk returns the first chunk of type t in p, or nil.
func findChunk(p *sentPacket, t chunk.Type) *rxChunk { return p.p.find(t) }

// RFC 9260 appendix A (RFC 4960's text, which RFC 9260 carries over): "To
// indicate that an endpoint is ECN capable, an endpoint SHOULD add to the
// INIT and or INIT ACK chunk the TLV reserved for ECN." Our INIT and INIT
// ACK carry it unless Config.Extensions.DisableECN; the association uses ECN only
// when the peer's carried it too.
func TestECNCapableOfferedInInitAndInitAck(t *testing.T) {
	for _, disable := range []bool{false, true} {
		cfg := testConfig()
		cfg.DisableECN = disable
		tc := newTestEndpoint(t, cfg)
		a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
		if err != nil {
			t.Fatal(err)
		}
		_, c := tc.wantChunk(chunk.TypeInit)
		if got := hasParam(c, chunk.ParamECNCapable); got == disable {
			t.Errorf("DisableECN %v: INIT lists ECN Capable: %v", disable, got)
		}
		tc.a = a
		tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
			ecnParam, param(chunk.ParamStateCookie, []byte("peer cookie"))))
		if a.ECN() == disable {
			t.Errorf("DisableECN %v: ECN() %v with a peer that offers it", disable, a.ECN())
		}

		srv := newTestEndpoint(t, cfg)
		srv.writePacket(0, srv.peerInit(ecnParam))
		_, c = srv.wantChunk(chunk.TypeInitAck)
		if got := hasParam(c, chunk.ParamECNCapable); got == disable {
			t.Errorf("DisableECN %v: INIT ACK lists ECN Capable: %v", disable, got)
		}
	}
	// A peer without the parameter: no ECN.
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(false)
	if tc.a.ECN() {
		t.Fatal("ECN in use with a peer that did not offer it")
	}
}

// RFC 3168 section 6.1.1 (paraphrase): the data packets of an
// ECN-capable connection carry ECT; the packets that set it up do not.
// Our association's packets go with ECT(0) (Packet.ECN) once ECN is
// negotiated and the handshake is over, and never without ECN.
func TestECNSetsECTAfterHandshake(t *testing.T) {
	for _, ecn := range []bool{true, false} {
		tc := newTestEndpoint(t, testConfig())
		tc.writePacket(0, tc.peerInit(ecnParam))
		if p, ok := tc.ep.Poll(tc.now, nil); !ok || p.ECN != 0 {
			t.Fatalf("INIT ACK: sent %v, ECN codepoint %d", ok, p.ECN)
		}
		tc = newTestEndpoint(t, testConfig())
		tc.connectServerECN(ecn)
		if err := tc.a.send(tc.now, 0, 0, false, []byte("data")); err != nil {
			t.Fatal(err)
		}
		p, ok := tc.ep.Poll(tc.now, nil)
		if !ok {
			t.Fatal("no DATA packet")
		}
		if want := map[bool]uint8{true: ecnECT0, false: 0}[ecn]; p.ECN != want {
			t.Errorf("ECN negotiated %v: DATA packet ECN codepoint %d, want %d", ecn, p.ECN, want)
		}
	}
}

// RFC 9260 appendix A, ECN-Echo (paraphrase of RFC 4960's text): the
// receiver reports a CE mark by "including the ECNE chunk. This chunk
// contains one data element, i.e., the lowest TSN associated with the IP
// datagram marked with the CE bit", and, as RFC 3168 section 6.1.3 has
// the TCP receiver set ECE in every ACK (paraphrase), keeps sending it
// until a CWR arrives. The first goes at once with a SACK; later packets
// keep carrying it; a CWR for that TSN stops it.
func TestECNCEMarkEchoedUntilCWR(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(true)
	tsn := tc.peerTSN
	tc.writeCE(dataChunk(0, tsn+1, 0, 1, 0, []byte("b")), dataChunk(3, tsn, 0, 0, 0, []byte("a")))
	p := tc.wantPacket()
	e := findChunk(p, chunk.TypeECNE)
	if e == nil || findChunk(p, chunk.TypeSack) == nil {
		t.Fatalf("after a CE mark: chunks %v, want ECNE and SACK", chunkTypes(&p.p))
	}
	if got := binary.BigEndian.Uint32(e.value()); got != tsn {
		t.Fatalf("ECNE TSN %d, want the packet's lowest %d", got, tsn)
	}
	// Two more packets of DATA without CE (a SACK is due after the
	// second); ctrl goes first in the first packet.
	next := tsn + 2
	exchange := func(ctrl ...[]byte) *sentPacket {
		t.Helper()
		tc.writeChunks(append(ctrl, dataChunk(3, next, 0, uint16(next-tsn), 0, []byte("x")))...)
		tc.writeChunks(dataChunk(3, next+1, 0, uint16(next+1-tsn), 0, []byte("y")))
		next += 2
		tc.readPackets()
		if len(tc.sent) != 1 {
			t.Fatalf("%d packets, want one SACK", len(tc.sent))
		}
		p := &tc.sent[0]
		tc.sent = nil
		return p
	}
	if p = exchange(); findChunk(p, chunk.TypeECNE) == nil {
		t.Fatalf("before CWR: chunks %v, want the ECNE again", chunkTypes(&p.p))
	}
	// A CWR for an older TSN does not cover it.
	if p = exchange(chunkOf(chunk.TypeCWR, 0, u32(tsn-1))); findChunk(p, chunk.TypeECNE) == nil {
		t.Fatalf("after an older CWR: chunks %v, want the ECNE again", chunkTypes(&p.p))
	}
	if p = exchange(chunkOf(chunk.TypeCWR, 0, u32(tsn))); findChunk(p, chunk.TypeECNE) != nil {
		t.Fatalf("after CWR: chunks %v, want no ECNE", chunkTypes(&p.p))
	}
	s := tc.a.Stats()
	if s.ECNMarks != 1 || s.CWRsIn != 2 || s.ECNEchoesOut != 3 {
		t.Fatalf("marks %d, CWRs in %d, ECNEs out %d; want 1, 2, 3", s.ECNMarks, s.CWRsIn, s.ECNEchoesOut)
	}
	tc.wantIdle()
}

// An ECNE alone is not a reason to send a packet: with the echo due and
// nothing else to say, the endpoint stays silent (no packet storm), and a
// CE-marked packet without DATA has no TSN to echo.
func TestECNEchoNeverAlone(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(true)
	tc.writeCE(chunkOf(chunk.TypeHeartbeat, 0, param(1, []byte("12345678"))))
	p := tc.wantPacket()
	if findChunk(p, chunk.TypeECNE) != nil {
		t.Fatalf("CE on a packet without DATA: chunks %v", chunkTypes(&p.p))
	}
	tc.writeCE(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("a")))
	tc.wantPacket() // SACK + ECNE
	tc.wantIdle()
	tc.advance(tc.a.data.rto()) // nothing is due: no ECNE-only packet
	tc.wantIdle()
}

// Without ECN negotiated a CE mark is not echoed, and ECNE and CWR are
// unknown chunks (RFC 9260 section 3.2: type 12 and 13 have the high bits
// 00, "Stop processing this SCTP packet; discard the unrecognized chunk
// and all further chunks.").
func TestECNNotNegotiated(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(false)
	tc.writeCE(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("a")))
	p := tc.wantPacket()
	if findChunk(p, chunk.TypeECNE) != nil {
		t.Fatalf("ECNE without ECN: %v", chunkTypes(&p.p))
	}
	before := tc.a.Stats().UnknownChunks
	tc.writeChunks(chunkOf(chunk.TypeECNE, 0, u32(1)), dataChunk(3, tc.peerTSN+1, 0, 1, 0, []byte("b")))
	if got := tc.a.Stats().UnknownChunks - before; got != 1 {
		t.Fatalf("unknown chunks %d, want 1", got)
	}
	if tc.a.Stats().ECNEchoesIn != 0 {
		t.Fatal("ECNE processed without ECN")
	}
}

// RFC 3168 section 6.1.2: "the TCP source halves the congestion window
// "cwnd" and reduces the slow start threshold "ssthresh"", and reacts
// "at most once per window of data" (paraphrase). RFC 9260 appendix A
// (RFC 4960's text): the CWR "contains one data element, i.e., the TSN
// number that was sent in the ECNE chunk." An ECNE halves the window of
// the path once; a second ECNE for data sent before that reduction
// changes nothing; one for data sent after it halves it again. Each is
// answered with a CWR carrying its TSN.
func TestECNEHalvesCwndOncePerWindow(t *testing.T) {
	cfg := testConfig()
	cfg.InitialWindow = 20
	tc := newTestEndpoint(t, cfg)
	tc.connectServerECN(true)
	path := tc.a.data.eng.PathAt(0)
	w0 := path.Cwnd()
	send := func(n int) (first uint32) {
		for i := range n {
			if err := tc.a.send(tc.now, 0, 0, false, make([]byte, 1000)); err != nil {
				t.Fatal(err)
			}
			p, c := tc.wantChunk(chunk.TypeData)
			_ = p
			if i == 0 {
				first = binary.BigEndian.Uint32(c.value())
			}
		}
		return first
	}
	first := send(4)
	ecne := func(tsn uint32) {
		tc.writeChunks(chunkOf(chunk.TypeECNE, 0, u32(tsn)))
		_, c := tc.wantChunk(chunk.TypeCWR)
		if got := binary.BigEndian.Uint32(c.value()); got != tsn {
			t.Fatalf("CWR TSN %d, want the ECNE's %d", got, tsn)
		}
	}
	ecne(first)
	w1 := path.Cwnd()
	if w1 != w0/2 || path.Ssthresh() != w1 {
		t.Fatalf("cwnd %d -> %d (ssthresh %d), want halved", w0, w1, path.Ssthresh())
	}
	ecne(first + 3) // same window
	if path.Cwnd() != w1 {
		t.Fatalf("second ECNE in the window: cwnd %d -> %d", w1, path.Cwnd())
	}
	tc.writeChunks(sackChunk(first+3, 65536))
	tc.readPackets()
	tc.sent = nil
	next := send(1)
	ecne(next)
	w2 := path.Cwnd()
	if w2 >= w1 {
		t.Fatalf("ECNE for data sent after the reduction: cwnd %d -> %d, want reduced", w1, w2)
	}
	s := tc.a.Stats()
	if s.ECNEchoesIn != 3 || s.ECNReductions != 2 || s.CWRsOut != 3 {
		t.Fatalf("ECNEs in %d, reductions %d, CWRs out %d; want 3, 2, 3", s.ECNEchoesIn, s.ECNReductions, s.CWRsOut)
	}
	// An ECNE for a TSN never sent reduces nothing (still answered).
	ecne(next + 100)
	if path.Cwnd() != w2 {
		t.Fatalf("ECNE for an unsent TSN: cwnd %d -> %d", w2, path.Cwnd())
	}
}
