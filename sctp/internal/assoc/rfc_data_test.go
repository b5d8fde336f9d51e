package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// RFC 9260 section 5.1: "After the reception of the first DATA chunk in an
// association, the endpoint MUST immediately respond with a SACK chunk to
// acknowledge the DATA chunk."
func TestFirstDataSackedAtOnce(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("first")))
	_, c := tc.wantChunk(chunk.TypeSack)
	if cum := binary.BigEndian.Uint32(c.value()); cum != tc.peerTSN {
		t.Fatalf("SACK cum %d", cum)
	}
	b := make([]byte, 100)
	n, info, err := tc.a.read(b)
	if err != nil || string(b[:n]) != "first" || !info.EOR {
		t.Fatalf("read %q %+v %v", b[:n], info, err)
	}
}

// RFC 9260 section 5.1 and 5.1.5: DATA bundled with COOKIE ECHO is
// delivered, and "A COOKIE ACK chunk MAY be bundled with any pending DATA
// chunks (and/or SACK chunks), but the COOKIE ACK chunk MUST be the first
// chunk in the packet."
func TestCookieEchoWithData(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0, tc.peerInit())
	_, c := tc.wantChunk(chunk.TypeInitAck)
	in := initValue(t, c)
	tc.writePacket(in.tag, chunkOf(chunk.TypeCookieEcho, 0, in.cookie), dataChunk(3, tc.peerTSN, 2, 0, 9, []byte("early")))
	tc.a = tc.ep.assocs[assocKey{tc.peer, tc.lport, tc.pport}]
	p, _ := tc.wantChunk(chunk.TypeCookieAck)
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[1] != chunk.TypeSack {
		t.Fatalf("chunks %v, want COOKIE ACK + SACK", ts)
	}
}

// RFC 9260 section 5.1: "The COOKIE ECHO chunk MAY be bundled with any
// pending outbound DATA chunks, but it MUST be the first chunk in the
// packet".
func TestCookieEchoBundlesData(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	if err := a.send(tc.now, 0, 0, false, []byte("x")); err == nil {
		t.Fatal("send accepted before the INIT ACK")
	}
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	if err := a.send(tc.now, 0, 0, false, []byte("with the cookie")); err != nil {
		t.Fatal(err)
	}
	p, _ := tc.wantChunk(chunk.TypeCookieEcho)
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[1] != chunk.TypeData {
		t.Fatalf("chunks %v, want COOKIE ECHO + DATA", ts)
	}
	tc.wantIdle()
}

// RFC 9260 section 6.2: "If an endpoint receives a DATA chunk with no user
// data (i.e., the Length field is set to 16), it SHOULD send an ABORT
// chunk with a "No User Data" error cause."
func TestDataNoUserData(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, nil))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != tc.peerTag || firstCause(c.value()) != chunk.CauseNoUserData {
		t.Fatalf("ABORT tag %08x cause %d", p.p.vtag, firstCause(c.value()))
	}
	tc.wantCommLost()
}

// A SACK acknowledging a TSN never sent is a protocol violation: ABORT with
// the "Protocol Violation" cause (RFC 9260 section 3.3.10.13).
func TestSackUnsentTSN(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(sackChunk(uint32(tc.a.localTSN)+5, 65536))
	_, c := tc.wantChunk(chunk.TypeAbort)
	if firstCause(c.value()) != chunk.CauseProtocolViolation {
		t.Fatalf("cause %d", firstCause(c.value()))
	}
	tc.wantCommLost()
	if tc.ep.stats.Violations != 1 {
		t.Fatalf("Violations %d", tc.ep.stats.Violations)
	}
}

// A SACK whose gap block reaches 0xFFFF beyond the cumulative ack (far
// beyond anything sent) is a protocol violation too.
func TestSackGapBlockFFFF(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	v := binary.BigEndian.AppendUint32(nil, uint32(tc.a.localTSN)-1)
	v = binary.BigEndian.AppendUint32(v, 65536)
	v = append(v, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff)
	tc.writeChunks(chunkOf(chunk.TypeSack, 0, v))
	tc.wantChunk(chunk.TypeAbort)
	tc.wantCommLost()
}

// RFC 9260 section 6.5: "Every DATA chunk MUST carry a valid stream
// identifier. If an endpoint receives a DATA chunk with an invalid stream
// identifier, it SHOULD acknowledge the reception of the DATA chunk
// following the normal procedure, immediately send an ERROR chunk with
// cause set to "Invalid Stream Identifier" (see Section 3.3.10), and
// discard the DATA chunk."
func TestDataInvalidStream(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 60000, 0, 0, []byte("x")))
	p := tc.wantPacket()
	var sawErr, sawSack bool
	for _, c := range p.p.chunks {
		switch c.typ {
		case chunk.TypeError:
			sawErr = firstCause(c.value()) == chunk.CauseInvalidStream && binary.BigEndian.Uint16(c.value()[4:]) == 60000
		case chunk.TypeSack:
			sawSack = binary.BigEndian.Uint32(c.value()) == tc.peerTSN
		}
	}
	if !sawErr || !sawSack {
		t.Fatalf("chunks %v: ERROR %v SACK %v", chunkTypes(&p.p), sawErr, sawSack)
	}
}

// A peer's State Cookie larger than the MTU still goes out (the packet is
// as large as the cookie needs); the DATA waits for the COOKIE ACK.
func TestLargeCookieEcho(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	big := make([]byte, 3000)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, big)))
	if err := a.send(tc.now, 0, 0, false, []byte("after the cookie")); err != nil {
		t.Fatal(err)
	}
	p, c := tc.wantChunk(chunk.TypeCookieEcho)
	if len(c.value()) != 3000 || len(p.p.chunks) != 1 {
		t.Fatalf("COOKIE ECHO of %d bytes with chunks %v", len(c.value()), chunkTypes(&p.p))
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantChunk(chunk.TypeData)
}
