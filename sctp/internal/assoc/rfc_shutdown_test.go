package assoc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 9.2: "Once all its outstanding data has been
// acknowledged, the endpoint sends a SHUTDOWN chunk to its peer, including
// in the Cumulative TSN Ack field the last sequential TSN it has received
// from the peer." and "Upon the receipt of the SHUTDOWN ACK chunk, the
// sender of the SHUTDOWN chunk MUST stop the T2-shutdown timer, send a
// SHUTDOWN COMPLETE chunk to its peer, and remove all record of the
// association."
func TestShutdownGraceful(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("hi")))
	tc.wantChunk(chunk.TypeSack)
	if err := tc.a.Shutdown(tc.now); err != nil {
		t.Fatal(err)
	}
	_, c := tc.wantChunk(chunk.TypeShutdown)
	if cum := binary.BigEndian.Uint32(c.value()); cum != tc.peerTSN {
		t.Fatalf("SHUTDOWN Cumulative TSN Ack %d, want %d", cum, tc.peerTSN)
	}
	tc.wantState(stateShutdownSent)
	if !tc.a.timers.running(timerT2Shutdown) || !tc.a.timers.running(timerT5Guard) {
		t.Fatal("T2 or T5 not running")
	}
	tc.writeChunks(chunkOf(chunk.TypeShutdownAck, 0, nil))
	p, sc := tc.wantChunk(chunk.TypeShutdownComplete)
	// Section 8.5.1 C: "if the receiver of the SHUTDOWN ACK chunk has a TCB,
	// then the destination endpoint's tag MUST be used and the T bit MUST
	// NOT be set."
	if p.p.vtag != tc.peerTag || sc.tBit() {
		t.Fatalf("SHUTDOWN COMPLETE tag %08x T=%v", p.p.vtag, sc.tBit())
	}
	tc.wantEvent(api.EventShutdown)
	if !tc.a.closed || len(tc.ep.assocs) != 0 {
		t.Fatal("association not removed")
	}
	tc.wantIdle()
}

// RFC 9260 section 9.2: "If the receiver of the SHUTDOWN chunk has no more
// outstanding DATA chunks, the SHUTDOWN chunk receiver MUST send a SHUTDOWN
// ACK chunk and start a T2-shutdown timer of its own, entering the
// SHUTDOWN-ACK-SENT state. If the timer expires, the endpoint MUST resend
// the SHUTDOWN ACK chunk."
func TestShutdownReceived(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.writeChunks(chunkOf(chunk.TypeShutdownComplete, 0, nil))
	tc.wantEvent(api.EventShutdown)
	tc.wantIdle()
}

// RFC 9260 section 9.2: "Upon receipt of the SHUTDOWN primitive from its
// upper layer, the endpoint enters the SHUTDOWN-PENDING state and remains
// there until all outstanding data has been acknowledged by its peer. The
// endpoint accepts no new data from its upper layer".
func TestShutdownPendingWaitsForData(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	if err := tc.a.send(tc.now, 1, 0, false, []byte("last words")); err != nil {
		t.Fatal(err)
	}
	tc.a.Shutdown(tc.now)
	tc.wantState(stateShutdownPending)
	_, d := tc.wantChunk(chunk.TypeData)
	tsn := binary.BigEndian.Uint32(d.value())
	tc.wantIdle()
	if err := tc.a.send(tc.now, 1, 0, false, []byte("more")); err == nil {
		t.Fatal("send accepted in SHUTDOWN-PENDING")
	}
	tc.writeChunks(sackChunk(tsn, 65536))
	tc.wantChunk(chunk.TypeShutdown)
	tc.wantState(stateShutdownSent)
}

// RFC 9260 section 9.2: "While in the SHUTDOWN-SENT state, the SHUTDOWN
// chunk sender MUST immediately respond to each received packet containing
// one or more DATA chunks with a SHUTDOWN chunk and restart the T2-shutdown
// timer." and section 4: "In the SHUTDOWN-SENT state, the endpoint MUST
// acknowledge any received DATA chunks without delay."
func TestDataInShutdownSent(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.a.Shutdown(tc.now)
	tc.wantChunk(chunk.TypeShutdown)
	tc.now = tc.now.Add(500 * time.Millisecond)
	tc.writeChunks(dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("late")))
	p := tc.wantPacket()
	ts := chunkTypes(&p.p)
	if len(ts) != 2 || ts[0] != chunk.TypeShutdown || ts[1] != chunk.TypeSack {
		t.Fatalf("chunks %v, want SHUTDOWN and SACK", ts)
	}
	if got := binary.BigEndian.Uint32(p.p.chunks[0].value()); got != tc.peerTSN {
		t.Fatalf("SHUTDOWN cum TSN %d", got)
	}
	if want := tc.now.Add(tc.a.currentRTO()); !tc.a.timers.at[timerT2Shutdown].Equal(want) {
		t.Fatalf("T2 not restarted")
	}
}

// RFC 9260 section 9.2: "If an endpoint is in the SHUTDOWN-SENT state and
// receives a SHUTDOWN chunk from its peer, the endpoint SHOULD respond
// immediately with a SHUTDOWN ACK chunk to its peer and move into the
// SHUTDOWN-ACK-SENT state, restarting its T2-shutdown timer." and "If an
// endpoint is in the SHUTDOWN-ACK-SENT state and receives a SHUTDOWN ACK, it
// MUST stop the T2-shutdown timer, send a SHUTDOWN COMPLETE chunk to its
// peer, and remove all record of the association."
func TestShutdownSimultaneous(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.a.Shutdown(tc.now)
	tc.wantChunk(chunk.TypeShutdown)
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
	tc.writeChunks(chunkOf(chunk.TypeShutdownAck, 0, nil))
	tc.wantChunk(chunk.TypeShutdownComplete)
	tc.wantEvent(api.EventShutdown)
}

// RFC 9260 section 9.2: "If the timer expires, the endpoint MUST resend the
// SHUTDOWN chunk with the updated last sequential TSN received from its
// peer." and "An endpoint SHOULD limit the number of retransmissions of the
// SHUTDOWN chunk to the protocol parameter 'Association.Max.Retrans'."
func TestT2ShutdownRetransmit(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRetransmits = 2
	cfg.RTOMax = 100 * time.Second // keep T5 out of the way
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	tc.a.Shutdown(tc.now)
	tc.wantChunk(chunk.TypeShutdown)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeShutdown)
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeShutdown)
	tc.advanceToTimer()
	tc.wantCommLost()
	tc.wantIdle()
}

// RFC 9260 section 9.2: "The sender of the SHUTDOWN chunk MAY also start an
// overall guard timer T5-shutdown-guard to bound the overall time for the
// shutdown sequence. At the expiration of this timer, the sender SHOULD
// abort the association by sending an ABORT chunk."
func TestT5ShutdownGuard(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRetransmits = 1000
	tc := newTestEndpoint(t, cfg)
	tc.connectServer()
	tc.a.Shutdown(tc.now)
	tc.wantChunk(chunk.TypeShutdown)
	start := tc.now
	for !tc.a.closed {
		tc.advanceToTimer()
		tc.readPackets()
	}
	if d := tc.now.Sub(start); d != 5*tc.ep.cfg.RTOMax {
		t.Fatalf("T5 expired after %v", d)
	}
	last := tc.sent[len(tc.sent)-1]
	if last.p.chunks[0].typ != chunk.TypeAbort {
		t.Fatalf("last packet %v, want ABORT", chunkTypes(&last.p))
	}
	tc.wantCommLost()
}

// RFC 9260 section 9.2: "If an endpoint is in the SHUTDOWN-ACK-SENT state
// and receives an INIT chunk ... it SHOULD discard the INIT chunk and
// retransmit the SHUTDOWN ACK chunk."
func TestInitInShutdownAckSent(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.writePacket(0, tc.peerInit())
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
}

// RFC 9260 section 9.2: "If a SHUTDOWN chunk is received in the COOKIE-WAIT
// or COOKIE ECHOED state, the SHUTDOWN chunk SHOULD be silently discarded."
func TestShutdownInCookieEchoed(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN, param(chunk.ParamStateCookie, []byte("c"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(a.localTSN)-1)))
	tc.wantIdle()
	tc.wantState(stateCookieEchoed)
}

// RFC 9260 section 4: "In the SHUTDOWN-RECEIVED state, the endpoint MUST NOT
// accept any new send requests from its SCTP user." and section 9.2: "Once
// an endpoint has reached the SHUTDOWN-RECEIVED state, it MUST ignore ULP
// shutdown requests but MUST continue responding to SHUTDOWN chunks from its
// peer."
func TestShutdownReceivedRejectsSend(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	if err := tc.a.send(tc.now, 0, 0, false, []byte("unacked")); err != nil {
		t.Fatal(err)
	}
	tc.wantChunk(chunk.TypeData)
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantState(stateShutdownReceived)
	if err := tc.a.send(tc.now, 0, 0, false, []byte("x")); err == nil {
		t.Fatal("send accepted in SHUTDOWN-RECEIVED")
	}
	tc.a.Shutdown(tc.now)
	tc.wantState(stateShutdownReceived)
	// The peer repeats its SHUTDOWN acknowledging our DATA: SHUTDOWN ACK.
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN))))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
}

// RFC 9260 section 8.3: "A receiver of a HEARTBEAT chunk MUST respond to a
// HEARTBEAT chunk with a HEARTBEAT ACK chunk after entering the
// COOKIE-ECHOED state (sender of the INIT chunk) or the ESTABLISHED state
// (receiver of the INIT chunk), up until reaching the SHUTDOWN-SENT state
// (sender of the SHUTDOWN chunk) or the SHUTDOWN-ACK-SENT state (receiver
// of the SHUTDOWN chunk)." After our SHUTDOWN ACK no HEARTBEAT goes, PLPMTU
// probes included: the peer, which may have ended the association on the
// SHUTDOWN ACK, answered a probe there with an ABORT that ended ours before
// its SHUTDOWN COMPLETE (Linux, TestKernelPRPolicies). Only SHUTDOWN ACKs
// (T2-shutdown) go until the association ends.
func TestNoHeartbeatAfterShutdownAck(t *testing.T) {
	cfg := testConfig()
	cfg.HeartbeatInterval = time.Second
	cfg.MaxRetransmits = 10
	cfg.PMTUDiscovery, cfg.MTU = true, 9000
	tc := newTestEndpoint(t, cfg)
	tc.ignoreHB = false
	tc.connectClient()
	if !tc.a.timers.running(timerPMTU) {
		t.Fatal("no path MTU probe scheduled")
	}
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
	for i := 0; i < 8 && !tc.a.closed; i++ {
		tc.advanceToTimer()
		tc.readPackets()
		for _, p := range tc.sent {
			for _, c := range p.p.chunks {
				if c.typ != chunk.TypeShutdownAck {
					t.Fatalf("after %v in SHUTDOWN-ACK-SENT: a packet with %v", tc.now.Sub(t0), chunkTypes(&p.p))
				}
			}
		}
		tc.sent = tc.sent[:0]
	}
}

// An ABORT that ends the shutdown handshake after the peer's SHUTDOWN came
// (here in SHUTDOWN-ACK-SENT: our SHUTDOWN ACK's answer lost, the peer's
// endpoint answering a late duplicate with ABORT, RFC 9260 section 8.4)
// still ends the association with EventDown, but End.PeerDone says every
// message of the peer had arrived: the peer sends SHUTDOWN only once all
// it sent was acknowledged (section 9.2), so reads end with io.EOF. An
// ABORT before the SHUTDOWN leaves PeerDone false.
func TestAbortAfterShutdownPeerDone(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.wantState(stateShutdownAckSent)
	tc.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
	ev := tc.wantEvent(api.EventDown)
	if ev.End == nil || ev.End.Reason != reasonPeerAbort || !ev.End.PeerDone {
		t.Fatalf("end %+v, want a peer abort with PeerDone", ev.End)
	}

	tc = newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
	ev = tc.wantEvent(api.EventDown)
	if ev.End == nil || ev.End.PeerDone {
		t.Fatalf("end %+v, want PeerDone false for an ABORT while established", ev.End)
	}
}
