package assoc

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// paramSupportedExtIData is the Supported Extensions parameter listing
// I-DATA and I-FORWARD-TSN.
func paramSupportedExtIData() []byte {
	return param(chunk.ParamSupportedExtensions, []byte{byte(chunk.TypeIData), byte(chunk.TypeIForwardTSN)})
}

func iDataChunk(flags uint8, tsn uint32, sid uint16, mid, ppidOrFSN uint32, payload []byte) []byte {
	d := chunk.IData{Flags: flags, TSN: chunk.TSN(tsn), SID: sid, MID: mid, PPID: ppidOrFSN, FSN: ppidOrFSN, Payload: payload}
	b, err := d.Append(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func interleaveConfig() Config {
	c := testConfig()
	c.Interleaving = true
	return c
}

// listsIData reports whether an INIT or INIT ACK value lists I-DATA and
// I-FORWARD-TSN in a Supported Extensions parameter.
func listsIData(t testing.TB, c *rxChunk) bool {
	t.Helper()
	it := chunk.Params(c.value()[16:])
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		if p.Type == chunk.ParamSupportedExtensions {
			return bytes.Contains(p.Value, []byte{byte(chunk.TypeIData)}) &&
				bytes.Contains(p.Value, []byte{byte(chunk.TypeIForwardTSN)})
		}
	}
	return false
}

// RFC 8260 section 2.2.1: "An SCTP endpoint indicates user message
// interleaving support by listing the I-DATA chunk within the Supported
// Extensions Parameter, as defined in [RFC5061]." An endpoint configured
// for interleaving lists I-DATA (and I-FORWARD-TSN) in its INIT and INIT
// ACK; one that is not lists neither.
func TestIDataAdvertised(t *testing.T) {
	tc := newTestEndpoint(t, interleaveConfig())
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	if _, c := tc.wantChunk(chunk.TypeInit); !listsIData(t, c) {
		t.Fatal("INIT does not list I-DATA and I-FORWARD-TSN")
	}
	tc = newTestEndpoint(t, interleaveConfig())
	tc.writePacket(0, tc.peerInit())
	if _, c := tc.wantChunk(chunk.TypeInitAck); !listsIData(t, c) {
		t.Fatal("INIT ACK does not list I-DATA and I-FORWARD-TSN")
	}
	tc = newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(paramSupportedExtIData()))
	if _, c := tc.wantChunk(chunk.TypeInitAck); listsIData(t, c) {
		t.Fatal("INIT ACK lists I-DATA without interleaving configured")
	}
}

// connectServerIData is connectServer with a peer that lists I-DATA.
func (tc *testConn) connectServerIData() {
	tc.t.Helper()
	tc.writePacket(0, tc.peerInit(paramSupportedExtIData()))
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

// RFC 8260 section 2.2.1: "If user message interleaving support has been
// negotiated for an association, I-DATA chunks MUST be used for all user
// messages and DATA chunks MUST NOT be used." Both ends listing I-DATA, the association sends
// and takes I-DATA.
func TestIDataNegotiatedSendsIData(t *testing.T) {
	tc := newTestEndpoint(t, interleaveConfig())
	tc.connectServerIData()
	if !tc.a.Interleaved() || !tc.a.data.eng.Config().Interleaved {
		t.Fatal("interleaving not negotiated")
	}
	// A three-fragment message from the peer, fragments out of order.
	tc.writeChunks(iDataChunk(chunk.FlagBeginning, tc.peerTSN, 1, 0, 77, []byte("a")),
		iDataChunk(chunk.FlagEnd, tc.peerTSN+2, 1, 0, 2, []byte("c")),
		iDataChunk(0, tc.peerTSN+1, 1, 0, 1, []byte("b")))
	tc.wantChunk(chunk.TypeSack)
	b := make([]byte, 100)
	n, info, err := tc.a.read(b)
	if err != nil || string(b[:n]) != "abc" || !info.EOR || info.PPID != 77 || info.SID != 1 {
		t.Fatalf("read %q %+v %v", b[:n], info, err)
	}
	if err := tc.a.send(tc.now, 0, 9, false, []byte("out")); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	found := false
	for _, p := range tc.sent {
		for _, ct := range chunkTypes(&p.p) {
			if ct == chunk.TypeData {
				t.Fatal("DATA sent on an I-DATA association")
			}
			found = found || ct == chunk.TypeIData
		}
	}
	if !found {
		t.Fatal("no I-DATA sent")
	}
}

// RFC 8260 section 2.2.3: "If I-DATA support has been negotiated for an
// association, the reception of a DATA chunk is a violation of the above
// rules and therefore the receiver of the DATA chunk MUST abort the
// association by sending an ABORT chunk. The ABORT chunk MAY include the
// 'Protocol Violation' error cause."
func TestIDataNegotiatedDataAborts(t *testing.T) {
	tc := newTestEndpoint(t, interleaveConfig())
	tc.connectServerIData()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if firstCause(c.value()) != chunk.CauseProtocolViolation {
		t.Fatalf("cause %d", firstCause(c.value()))
	}
	tc.wantCommLost()
}

// RFC 8260 section 2.2.3: "The same applies if I-DATA support has not been
// negotiated for an association and an I-DATA chunk is received", whether
// we did not offer it or the peer did not.
func TestIDataNotNegotiatedAborts(t *testing.T) {
	for _, ours := range []bool{false, true} {
		cfg := testConfig()
		cfg.Interleaving = ours
		tc := newTestEndpoint(t, cfg)
		if ours {
			tc.connectServer() // the peer does not list I-DATA
		} else {
			tc.connectServerIData()
		}
		if tc.a.Interleaved() {
			t.Fatal("interleaving negotiated with one side only")
		}
		tc.writeChunks(iDataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")))
		_, c := tc.wantChunk(chunk.TypeAbort)
		if firstCause(c.value()) != chunk.CauseProtocolViolation {
			t.Fatalf("ours %v: cause %d", ours, firstCause(c.value()))
		}
		tc.wantCommLost()
	}
}

// RFC 8260 section 2.3.1: "The FORWARD-TSN chunk MUST be used in
// combination with the DATA chunk and MUST NOT be used in combination with
// the I-DATA chunk." A FORWARD-TSN on an I-DATA association aborts it.
func TestIDataForwardTSNAborts(t *testing.T) {
	tc := newTestEndpoint(t, interleaveConfig())
	tc.connectServerIData()
	tc.writeChunks(chunkOf(chunk.TypeForwardTSN, 0, u32(tc.peerTSN)))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if firstCause(c.value()) != chunk.CauseProtocolViolation {
		t.Fatalf("cause %d", firstCause(c.value()))
	}
	tc.wantCommLost()
}

// An I-FORWARD-TSN on an I-DATA association moves the cumulative TSN; a
// malformed one (length not 8 + 8k, stream out of range) is discarded
// without harm. Without I-DATA it aborts (RFC 8260 section 2.3.1: "The
// I-FORWARD-TSN chunk MUST be used in combination with the I-DATA chunk
// and MUST NOT be used in combination with the DATA chunk").
func TestIDataIForwardTSN(t *testing.T) {
	tc := newTestEndpoint(t, interleaveConfig())
	tc.connectServerIData()
	bad := chunkOf(chunk.TypeIForwardTSN, 0, append(u32(tc.peerTSN+5), 0, 0, 0, 1, 0, 0)) // 8 + 6
	tc.writeChunks(bad)
	badSID := chunkOf(chunk.TypeIForwardTSN, 0, append(u32(tc.peerTSN+5), 0xff, 0xff, 0, 0, 0, 0, 0, 1))
	tc.writeChunks(badSID)
	if tc.a.state != stateEstablished || tc.a.data.eng.CumulativeTSN() != transferTSN(tc.peerTSN-1) {
		t.Fatalf("state %v cum %d after malformed I-FORWARD-TSNs", tc.a.state, tc.a.data.eng.CumulativeTSN())
	}
	good := chunkOf(chunk.TypeIForwardTSN, 0, append(u32(tc.peerTSN+1), 0, 0, 0, 0, 0, 0, 0, 3))
	tc.writeChunks(good)
	_, c := tc.wantChunk(chunk.TypeSack)
	if cum := chunkTSN(c.value()); cum != tc.peerTSN+1 {
		t.Fatalf("SACK cum %d, want %d", cum, tc.peerTSN+1)
	}

	tc = newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(good)
	_, c = tc.wantChunk(chunk.TypeAbort)
	if firstCause(c.value()) != chunk.CauseProtocolViolation {
		t.Fatalf("cause %d", firstCause(c.value()))
	}
}

func transferTSN(v uint32) transfer.TSN { return transfer.TSN(v) }

func chunkTSN(v []byte) uint32 { return binary.BigEndian.Uint32(v) }
