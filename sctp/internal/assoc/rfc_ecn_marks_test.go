package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// ECN with several marks or echoes outstanding at once (RFC 9260
// appendix A, RFC 3168 sections 5 and 6.1).

// ecneTSN returns the TSN of the ECNE in the packets sent, or ok false.
func (tc *testConn) ecneTSN() (tsn uint32, ok bool) {
	tc.t.Helper()
	tc.readPackets()
	for _, sp := range tc.sent {
		if c := findChunk(&sp, chunk.TypeECNE); c != nil {
			tsn, ok = binary.BigEndian.Uint32(c.value()), true
		}
	}
	tc.sent = nil
	return tsn, ok
}

// TestECNSeveralMarksBeforeCWR: RFC 9260 appendix A (RFC 4960's text):
// the ECNE carries "the lowest TSN associated with the IP datagram marked
// with the CE bit", and RFC 3168 section 6.1.3 (paraphrase) keeps the
// echo going until the sender's CWR shows that it reduced its window for
// it. Two packets marked CE before any CWR: the echo moves to the second
// mark's TSN, a CWR for the first does not stop it (the second mark is
// not covered), a CWR for the second does.
func TestECNSeveralMarksBeforeCWR(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(true)
	tsn := tc.peerTSN
	tc.writeCE(dataChunk(3, tsn, 0, 0, 0, []byte("a")))
	if got, ok := tc.ecneTSN(); !ok || got != tsn {
		t.Fatalf("first mark: ECNE %d (%v), want %d", got, ok, tsn)
	}
	tc.writeCE(dataChunk(3, tsn+1, 0, 1, 0, []byte("b")))
	tc.writeCE(dataChunk(3, tsn+2, 0, 2, 0, []byte("c")))
	if got, ok := tc.ecneTSN(); !ok || got != tsn+2 {
		t.Fatalf("after two more marks: ECNE %d (%v), want the newest mark's %d", got, ok, tsn+2)
	}
	tc.writeChunks(chunkOf(chunk.TypeCWR, 0, u32(tsn)), dataChunk(3, tsn+3, 0, 3, 0, []byte("d")))
	tc.writeChunks(dataChunk(3, tsn+4, 0, 4, 0, []byte("e")))
	if got, ok := tc.ecneTSN(); !ok || got != tsn+2 {
		t.Fatalf("after a CWR for the first mark only: ECNE %d (%v), want %d still", got, ok, tsn+2)
	}
	tc.writeChunks(chunkOf(chunk.TypeCWR, 0, u32(tsn+2)), dataChunk(3, tsn+5, 0, 5, 0, []byte("f")))
	tc.writeChunks(dataChunk(3, tsn+6, 0, 6, 0, []byte("g")))
	if got, ok := tc.ecneTSN(); ok {
		t.Fatalf("after a CWR covering every mark: ECNE %d still sent", got)
	}
	if s := tc.a.Stats(); s.ECNMarks != 3 || s.CWRsIn != 2 {
		t.Fatalf("marks %d, CWRs in %d; want 3, 2", s.ECNMarks, s.CWRsIn)
	}
}

// TestECNCWRCoversEveryECNE: RFC 9260 appendix A (RFC 4960's text): the
// CWR "contains one data element, i.e., the TSN number that was sent in
// the ECNE chunk." Two ECNEs in one packet are answered by one CWR, with
// the higher TSN, which covers both.
func TestECNCWRCoversEveryECNE(t *testing.T) {
	cfg := testConfig()
	cfg.InitialWindow = 20
	tc := newTestEndpoint(t, cfg)
	tc.connectServerECN(true)
	var first uint32
	for i := range 4 {
		if err := tc.a.send(tc.now, 0, 0, false, make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		if _, c := tc.wantChunk(chunk.TypeData); i == 0 {
			first = binary.BigEndian.Uint32(c.value())
		}
	}
	tc.writeChunks(chunkOf(chunk.TypeECNE, 0, u32(first+2)), chunkOf(chunk.TypeECNE, 0, u32(first)))
	_, c := tc.wantChunk(chunk.TypeCWR)
	if got := binary.BigEndian.Uint32(c.value()); got != first+2 {
		t.Fatalf("CWR TSN %d, want the highest ECNE's %d", got, first+2)
	}
	if s := tc.a.Stats(); s.CWRsOut != 1 || s.ECNReductions != 1 {
		t.Fatalf("CWRs out %d, reductions %d; want 1, 1", s.CWRsOut, s.ECNReductions)
	}
}

// TestECNECT1IsNoMark: RFC 3168 section 5: "The ECN-Capable Transport
// (ECT) codepoints '10' and '01' are set by the data sender to indicate
// that the end-points of the transport protocol are ECN-capable ...
// Routers treat the ECT(0) and ECT(1) codepoints as equivalent", and only
// "the CE codepoint '11'" marks congestion. DATA arriving with ECT(1) or
// ECT(0) is not echoed.
func TestECNECT1IsNoMark(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServerECN(true)
	for i, ecn := range []uint8{1, 2} {
		b := appendHeader(nil, tc.pport, tc.lport, tc.a.localTag)
		b = append(b, dataChunk(3, tc.peerTSN+uint32(i), 0, uint16(i), 0, []byte("x"))...)
		tc.ep.Receive(tc.now, tc.peer, finishPacket(b, 0), ecn)
		tc.drainEvents()
	}
	if got, ok := tc.ecneTSN(); ok {
		t.Fatalf("ECNE %d for packets without CE", got)
	}
	if s := tc.a.Stats(); s.ECNMarks != 0 {
		t.Fatalf("ECNMarks %d, want 0", s.ECNMarks)
	}
}
