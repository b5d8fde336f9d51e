package assoc

import (
	"bytes"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// RFC 9260 section 8.3: "A receiver of a HEARTBEAT chunk MUST respond to a
// HEARTBEAT chunk with a HEARTBEAT ACK chunk after entering the
// COOKIE-ECHOED state (sender of the INIT chunk) or the ESTABLISHED state
// (receiver of the INIT chunk), up until reaching the SHUTDOWN-SENT state
// (sender of the SHUTDOWN chunk) or the SHUTDOWN-ACK-SENT state (receiver of
// the SHUTDOWN chunk)." and "The receiver of the HEARTBEAT chunk SHOULD
// immediately respond with a HEARTBEAT ACK chunk that contains the Heartbeat
// Information TLV, together with any other received TLVs, copied unchanged
// from the received HEARTBEAT chunk."
func TestHeartbeatAnswered(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	v := append(param(chunk.ParamHeartbeatInfo, []byte("opaque sender info")), param(0x8777, []byte("extra"))...)
	tc.writeChunks(chunkOf(chunk.TypeHeartbeat, 0, v))
	_, c := tc.wantChunk(chunk.TypeHeartbeatAck)
	if !bytes.Equal(c.value(), v) {
		t.Fatalf("HEARTBEAT ACK value %x, want %x", c.value(), v)
	}
	// Not answered in SHUTDOWN-SENT.
	tc.a.Shutdown(tc.now)
	tc.wantChunk(chunk.TypeShutdown)
	tc.writeChunks(chunkOf(chunk.TypeHeartbeat, 0, v))
	tc.wantIdle()
}

// A HEARTBEAT in COOKIE-WAIT is not answered (the RFC requires answers
// from COOKIE-ECHOED on), and one in COOKIE-ECHOED is, but only bundled
// behind the COOKIE ECHO ("until the COOKIE ACK chunk is returned, the
// sender MUST NOT send any other packets to the peer").
func TestHeartbeatDuringHandshake(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	hb := chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x")))
	tc.writeChunks(hb)
	tc.wantIdle()
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writeChunks(hb)
	tc.wantIdle()
	tc.advanceToTimer()
	p, _ := tc.wantChunk(chunk.TypeCookieEcho)
	if ts := chunkTypes(&p.p); len(ts) != 2 || ts[1] != chunk.TypeHeartbeatAck {
		t.Fatalf("chunks %v, want COOKIE ECHO + HEARTBEAT ACK", ts)
	}
}

// RFC 9260 section 8.3: "The receiver of the HEARTBEAT ACK chunk SHOULD also
// perform an RTT measurement for that destination transport address using
// the time value carried in the HEARTBEAT ACK chunk." and "The receiver of
// the HEARTBEAT ACK chunk SHOULD also clear the association overall error
// count".
func TestHeartbeatRTT(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.advanceToTimer()
	_, c := tc.wantChunk(chunk.TypeHeartbeat)
	tc.a.errCount = 3
	tc.now = tc.now.Add(40 * time.Millisecond)
	tc.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
	if tc.a.stats.HeartbeatAcks != 1 || tc.a.errCount != 0 {
		t.Fatalf("HeartbeatAcks %d errCount %d", tc.a.stats.HeartbeatAcks, tc.a.errCount)
	}
	if srtt := tc.a.data.eng.PathAt(0).SRTT(); srtt != 40*time.Millisecond {
		t.Fatalf("SRTT %v, want 40ms", srtt)
	}
	// A forged HEARTBEAT ACK (wrong nonce) is ignored.
	forged := append([]byte(nil), c.value()...)
	forged[5] ^= 1
	tc.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, forged))
	if tc.a.stats.HeartbeatAcks != 1 {
		t.Fatal("forged HEARTBEAT ACK accepted")
	}
}

// RFC 9260 section 8.2: "When the value in the error counter exceeds the
// protocol parameter 'Path.Max.Retrans' of that destination address, the
// endpoint SHOULD mark the destination transport address as inactive, and a
// notification SHOULD be sent to the upper layer." and section 8.1: "If the
// value of this counter exceeds the limit indicated in the protocol
// parameter 'Association.Max.Retrans', the endpoint SHOULD consider the
// peer endpoint unreachable and SHALL stop transmitting any more data to it
// (and thus the association enters the CLOSED state)."
func TestHeartbeatFailureDetection(t *testing.T) {
	cfg := testConfig()
	cfg.PathMaxRetransmits, cfg.MaxRetransmits = 2, 4
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	tc.ignoreHB = true
	for range 3 {
		tc.advanceToTimer()
	}
	tc.wantIdle()
	tc.advanceToTimer() // third unanswered: errCount 3 > 2
	tc.wantPathDown()
	for !tc.a.closed {
		tc.advanceToTimer()
	}
	tc.wantCommLost()
	if tc.a.errCount != 5 {
		t.Fatalf("errCount %d at failure, want 5", tc.a.errCount)
	}
}

// RFC 9260 section 8.3: the upper layer can "Request the sending of an
// on-demand HEARTBEAT chunk on a specific destination transport address of
// a given association."
func TestHeartbeatOnDemand(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err := a.requestHeartbeat(tc.now); err == nil {
		t.Fatal("heartbeat accepted in COOKIE-WAIT")
	}
	tc2 := newTestEndpoint(t, testConfig())
	tc2.connectServer()
	if err := tc2.a.requestHeartbeat(tc2.now); err != nil {
		t.Fatal(err)
	}
	_, c := tc2.wantChunk(chunk.TypeHeartbeat)
	tc2.writeChunks(chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
	if tc2.a.stats.HeartbeatAcks != 1 {
		t.Fatal("HEARTBEAT ACK not matched")
	}
}
