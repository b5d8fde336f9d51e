package assoc

import (
	"bytes"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// offersPR reports whether an INIT or INIT ACK value carries the
// Forward-TSN-Supported parameter and lists FORWARD-TSN in its Supported
// Extensions.
func offersPR(t testing.TB, c *rxChunk) (param, listed bool) {
	t.Helper()
	it := chunk.Params(c.value()[16:])
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		switch p.Type {
		case chunk.ParamForwardTSNSupported:
			param = true
		case chunk.ParamSupportedExtensions:
			listed = bytes.Contains(p.Value, []byte{byte(chunk.TypeForwardTSN)})
		}
	}
	return param, listed
}

func paramForwardTSNSupported() []byte { return param(chunk.ParamForwardTSNSupported, nil) }

// RFC 3758 section 3.3.1: "If an SCTP endpoint supports the FORWARD TSN
// chunk, then any time it sends an INIT during association establishment,
// it MAY include the Forward-TSN-supported parameter in the INIT chunk to
// indicate this fact to its peer." Section 3.3.2: "When a receiver of an
// INIT detects a Forward-TSN-Supported parameter and it does support the
// Forward-TSN chunk type, the receiver MAY respond with a
// Forward-TSN-supported parameter in the INIT-ACK chunk." PR-SCTP is
// offered by default, in both, with FORWARD-TSN also listed in Supported
// Extensions as Linux does; DisablePartialReliability offers neither.
func TestPRSCTPAdvertised(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	if _, c := tc.wantChunk(chunk.TypeInit); !all(offersPR(t, c)) {
		t.Fatal("INIT does not offer PR-SCTP")
	}
	tc = newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(paramForwardTSNSupported()))
	if _, c := tc.wantChunk(chunk.TypeInitAck); !all(offersPR(t, c)) {
		t.Fatal("INIT ACK does not offer PR-SCTP")
	}
	cfg := testConfig()
	cfg.DisablePartialReliability = true
	tc = newTestEndpoint(t, cfg)
	tc.writePacket(0, tc.peerInit(paramForwardTSNSupported()))
	if _, c := tc.wantChunk(chunk.TypeInitAck); either(offersPR(t, c)) {
		t.Fatal("INIT ACK offers PR-SCTP with it disabled")
	}
}

func all(a, b bool) bool    { return a && b }
func either(a, b bool) bool { return a || b }

// RFC 3758 section 3.3.1: "Note that if the endpoint chooses NOT to include
// the parameter, then at no time during the life of the association can it
// send or process a FORWARD TSN. It MUST instead act as if it does NOT
// support the FORWARD TSN chunk, returning an ERROR to the peer upon
// receipt of any FORWARD TSN." Type 192's high bits say skip and report
// (RFC 9260 section 3.2): an ERROR with "Unrecognized Chunk Type".
func TestPRSCTPForwardTSNNotOffered(t *testing.T) {
	cfg := testConfig()
	cfg.DisablePartialReliability = true
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	tc.writeChunks(chunkOf(chunk.TypeForwardTSN, 0, u32(tc.peerTSN+3)))
	_, c := tc.wantChunk(chunk.TypeError)
	if firstCause(c.value()) != chunk.CauseUnrecognizedChunk {
		t.Fatalf("cause %d", firstCause(c.value()))
	}
	if tc.a.state != stateEstablished || tc.a.data.eng.CumulativeTSN() != transferTSN(tc.peerTSN-1) {
		t.Fatal("FORWARD-TSN processed without PR-SCTP")
	}
}

// RFC 3758 section 3.6: "When a FORWARD TSN chunk arrives, the data
// receiver MUST first update its cumulative TSN point to the value carried
// in the FORWARD TSN chunk, and then MUST further advance its cumulative
// TSN point locally if possible". We offered PR-SCTP, so we process it,
// and SACK at once.
func TestPRSCTPForwardTSN(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit(paramForwardTSNSupported()))
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(tc.t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
	tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
	tc.wantChunk(chunk.TypeCookieAck)
	tc.wantEvent(api.EventUp)
	if !tc.a.PartialReliability() || !tc.a.data.eng.Config().PartialReliability {
		t.Fatal("PR-SCTP not negotiated")
	}
	// TSN peerTSN (SSN 0 of stream 1) was abandoned; peerTSN+1 (SSN 1) arrives.
	tc.writeChunks(dataChunk(3, tc.peerTSN+1, 1, 1, 0, []byte("later")))
	tc.wantChunk(chunk.TypeSack)
	tc.writeChunks(chunkOf(chunk.TypeForwardTSN, 0, append(u32(tc.peerTSN), 0, 1, 0, 0)))
	_, c = tc.wantChunk(chunk.TypeSack)
	if cum := chunkTSN(c.value()); cum != tc.peerTSN+1 {
		t.Fatalf("SACK cum %d, want %d", cum, tc.peerTSN+1)
	}
	b := make([]byte, 100)
	if n, info, err := tc.a.read(b); err != nil || string(b[:n]) != "later" || info.SSN != 1 {
		t.Fatalf("read %q %+v %v", b[:n], info, err)
	}
	// Stream 65535 is beyond the inbound streams.
	bad := chunkOf(chunk.TypeForwardTSN, 0, append(u32(tc.peerTSN+9), 0xff, 0xff, 0, 0))
	tc.writeChunks(bad)
	if tc.a.state != stateEstablished || tc.a.data.eng.CumulativeTSN() != transferTSN(tc.peerTSN+1) {
		t.Fatal("FORWARD-TSN naming a stream out of range was applied")
	}
}

// RFC 3758 section 3.3.2: an endpoint whose peer's INIT lacks the
// parameter "MUST NOT send a FORWARD TSN chunk at any time during the
// associations life": a message sent at most once is retransmitted after
// all; with a peer that offers PR-SCTP it is abandoned and a FORWARD-TSN
// goes.
func TestPRSCTPSenderNeedsPeer(t *testing.T) {
	for _, peerPR := range []bool{false, true} {
		tc := newTestEndpoint(t, testConfig())
		var params [][]byte
		if peerPR {
			params = append(params, paramForwardTSNSupported())
		}
		tc.writePacket(0, tc.peerInit(params...))
		_, c := tc.wantChunk(chunk.TypeInitAck)
		in := initValue(tc.t, c)
		tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie))
		tc.a = tc.ep.assocs[assocKey{peer: tc.peer, localPort: tc.lport, peerPort: tc.pport}]
		tc.wantChunk(chunk.TypeCookieAck)
		tc.wantEvent(api.EventUp)
		if err := tc.a.Send(tc.now, &Message{PR: api.PR{Policy: api.PRRtx, Value: 0}, Payload: []byte("once")}); err != nil {
			t.Fatal(err)
		}
		tc.wantChunk(chunk.TypeData)
		tc.advanceToTimer()
		tc.readPackets()
		var data, fwd int
		for _, p := range tc.sent {
			for _, ct := range chunkTypes(&p.p) {
				switch ct {
				case chunk.TypeData:
					data++
				case chunk.TypeForwardTSN:
					fwd++
				}
			}
		}
		tc.sent = nil
		failed := 0
		tc.drainEvents()
		for _, e := range tc.events {
			if e.Kind == api.EventSendFailed {
				failed++
			}
		}
		tc.events = nil
		if peerPR && (data != 0 || fwd != 1 || failed != 1) || !peerPR && (data != 1 || fwd != 0 || failed != 0) {
			t.Fatalf("peer PR-SCTP %v: %d DATA, %d FORWARD-TSN, %d failed after T3", peerPR, data, fwd, failed)
		}
	}
}
