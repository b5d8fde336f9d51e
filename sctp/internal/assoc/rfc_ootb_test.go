package assoc

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 8.4 (2): "If the OOTB packet contains an ABORT chunk,
// the receiver MUST silently discard the OOTB packet and take no further
// action."
func TestOOTBAbort(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(42, chunkOf(chunk.TypeAbort, 0, nil))
	tc.writePacket(42, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x"))), chunkOf(chunk.TypeAbort, 1, nil))
	tc.wantIdle()
}

// RFC 9260 section 8.4 (5): "When sending the SHUTDOWN COMPLETE chunk, the
// receiver of the OOTB packet MUST fill in the Verification Tag field of the
// outbound packet with the Verification Tag received in the SHUTDOWN ACK
// chunk and set the T bit in the Chunk Flags to indicate that the
// Verification Tag is reflected."
func TestOOTBShutdownAck(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(0x31415926, chunkOf(chunk.TypeShutdownAck, 0, nil))
	p, c := tc.wantChunk(chunk.TypeShutdownComplete)
	if p.p.vtag != 0x31415926 || !c.tBit() {
		t.Fatalf("SHUTDOWN COMPLETE tag %08x T=%v", p.p.vtag, c.tBit())
	}
}

// RFC 9260 section 8.4 (6) and (7): SHUTDOWN COMPLETE, COOKIE ACK and an
// ERROR with "Stale Cookie" are silently discarded.
func TestOOTBSilent(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.writePacket(1, chunkOf(chunk.TypeShutdownComplete, 0, nil))
	tc.writePacket(1, chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.writePacket(1, chunkOf(chunk.TypeError, 0, cause(chunk.CauseStaleCookie, u32(1))))
	tc.wantIdle()
	if got := tc.ep.stats.OOTB; got != 3 {
		t.Fatalf("OOTB = %d", got)
	}
}

// RFC 9260 section 8.4 (8): "When sending the ABORT chunk, the receiver of
// the OOTB packet MUST fill in the Verification Tag field of the outbound
// packet with the value found in the Verification Tag field of the OOTB
// packet and set the T bit in the Chunk Flags to indicate that the
// Verification Tag is reflected."
func TestOOTBAbortReply(t *testing.T) {
	for _, ch := range [][]byte{
		dataChunk(3, 1, 0, 0, 0, []byte("hello")),
		sackChunk(1, 65536),
		chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x"))),
		chunkOf(chunk.TypeShutdown, 0, u32(1)),
		chunkOf(0x3f, 0, nil),
	} {
		tc := newTestEndpoint(t, testConfig())
		tc.writePacket(0xdeadbeef, ch)
		p, c := tc.wantChunk(chunk.TypeAbort)
		if p.p.vtag != 0xdeadbeef || !c.tBit() {
			t.Fatalf("chunk %d: ABORT tag %08x T=%v", ch[0], p.p.vtag, c.tBit())
		}
		if p.to != tc.peer {
			t.Fatalf("ABORT sent to %v", p.to)
		}
	}
}

// RFC 9260 section 8.4 (1): "If the OOTB packet is to or from a non-unicast
// address, a receiver SHOULD silently discard the packet."
func TestOOTBNonUnicast(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.peer = netip.MustParseAddrPort("224.0.0.1:9899")
	tc.writePacket(7, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x"))))
	tc.writePacket(0, tc.peerInit())
	tc.wantIdle()
}

// RFC 9260 section 8.5: "If the received Verification Tag value does not
// match the receiver's own tag value, the receiver MUST silently discard the
// packet and MUST NOT process it any further".
func TestBadVTagDiscarded(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	for _, tag := range []uint32{tc.a.localTag + 1, tc.a.peerTag, 1} {
		tc.writePacket(tag, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("x"))),
			dataChunk(3, tc.peerTSN, 0, 0, 0, []byte("x")), chunkOf(chunk.TypeShutdown, 0, u32(1)))
	}
	tc.wantIdle()
	tc.wantState(stateEstablished)
	if got := tc.a.stats.BadVTag; got != 3 {
		t.Fatalf("BadVTag = %d", got)
	}
}

// RFC 9260 section 8.5.1 B: "The receiver of an ABORT chunk MUST accept the
// packet if the Verification Tag field of the packet matches its own tag and
// the T bit is not set OR if it is set to its Peer's Tag and the T bit is
// set in the Chunk Flags. Otherwise, the receiver MUST silently discard the
// packet and take no further action."
func TestAbortVTagRules(t *testing.T) {
	for _, tt := range []struct {
		name   string
		peer   bool // use the peer's tag instead of ours
		tBit   bool
		accept bool
	}{
		{"own tag, T=0", false, false, true},
		{"peer tag, T=1", true, true, true},
		{"own tag, T=1", false, true, false},
		{"peer tag, T=0", true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := newTestEndpoint(t, testConfig())
			tc.connectServer()
			tag := tc.a.localTag
			if tt.peer {
				tag = tc.a.peerTag
			}
			var f uint8
			if tt.tBit {
				f = 1
			}
			tc.writePacket(tag, chunkOf(chunk.TypeAbort, f, nil))
			if tt.accept {
				tc.wantCommLost()
				if !tc.a.closed {
					t.Fatal("association not removed")
				}
			} else {
				tc.wantNoEvent()
				tc.wantState(stateEstablished)
			}
			// "An endpoint MUST NOT respond to any received packet that
			// contains an ABORT chunk".
			tc.wantIdle()
		})
	}
}

// RFC 9260 section 8.5.1 C: "The receiver of a SHUTDOWN COMPLETE chunk
// accepts the packet if the Verification Tag field of the packet matches its
// own tag and the T bit is not set OR if it is set to its Peer's Tag and the
// T bit is set in the Chunk Flags. Otherwise, the receiver MUST silently
// discard the packet and take no further action. An endpoint MUST ignore the
// SHUTDOWN COMPLETE chunk if it is not in the SHUTDOWN-ACK-SENT state."
func TestShutdownCompleteVTagRules(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.writeChunks(chunkOf(chunk.TypeShutdownComplete, 0, nil)) // ESTABLISHED: ignored
	tc.wantState(stateEstablished)
	tc.writeChunks(chunkOf(chunk.TypeShutdown, 0, u32(uint32(tc.a.localTSN)-1)))
	tc.wantChunk(chunk.TypeShutdownAck)
	tc.writePacket(tc.a.localTag, chunkOf(chunk.TypeShutdownComplete, 1, nil)) // own tag with T: discard
	tc.wantState(stateShutdownAckSent)
	tc.writePacket(tc.a.peerTag, chunkOf(chunk.TypeShutdownComplete, 1, nil)) // reflected: accept
	tc.wantEvent(api.EventShutdown)
	if !tc.a.closed {
		t.Fatal("not closed")
	}
	tc.wantIdle()
}

// RFC 9260 section 8.5.1 E: "If the receiver is in COOKIE-ECHOED or
// COOKIE-WAIT state, the procedures in Section 8.4 SHOULD be followed; in
// other words, it is treated as an OOTB packet." and section 9.2: "The
// sender of the INIT chunk lets T1-init continue running and remains in the
// COOKIE-WAIT or COOKIE-ECHOED state."
func TestShutdownAckInCookieWait(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, _ := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	tc.a = a
	tc.wantChunk(chunk.TypeInit)
	tc.writePacket(0x2468, chunkOf(chunk.TypeShutdownAck, 0, nil))
	p, c := tc.wantChunk(chunk.TypeShutdownComplete)
	if p.p.vtag != 0x2468 || !c.tBit() {
		t.Fatalf("SHUTDOWN COMPLETE tag %08x T=%v", p.p.vtag, c.tBit())
	}
	tc.wantState(stateCookieWait)
	if !a.timers.running(timerT1Init) {
		t.Fatal("T1-init stopped")
	}
}

// RFC 9260 section 3.2: the two high bits of an unrecognized chunk type
// select stop/skip and report/no report.
func TestUnknownChunkActionBits(t *testing.T) {
	hb := chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("probe")))
	for _, tt := range []struct {
		typ             chunk.Type
		report, process bool
	}{
		{0x3e, false, false}, // 00: stop, discard
		{0x7e, true, false},  // 01: stop, report
		{0xbe, false, true},  // 10: skip
		{0xfe, true, true},   // 11: skip, report
	} {
		tc := newTestEndpoint(t, testConfig())
		tc.connectServer()
		tc.writeChunks(chunkOf(tt.typ, 0, []byte("abcd")), hb)
		tc.readPackets()
		var gotErr, gotHBAck bool
		for _, p := range tc.sent {
			for _, c := range p.p.chunks {
				switch c.typ {
				case chunk.TypeError:
					gotErr = firstCause(c.value()) == chunk.CauseUnrecognizedChunk
				case chunk.TypeHeartbeatAck:
					gotHBAck = true
				}
			}
		}
		if gotErr != tt.report || gotHBAck != tt.process {
			t.Errorf("type %#x: reported %v (want %v), later chunk processed %v (want %v)",
				tt.typ, gotErr, tt.report, gotHBAck, tt.process)
		}
	}
}

// RFC 9260 section 9.1: "If the association is aborted on request of the
// upper layer, a "User-Initiated Abort" error cause (see Section 3.3.10.12)
// SHOULD be present in the ABORT chunk." and "The sender MUST fill in the
// peer's Verification Tag in the outbound packet and MUST NOT bundle any
// DATA chunk with the ABORT chunk."
func TestUserAbort(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	if err := tc.a.send(tc.now, 0, 0, false, []byte("pending")); err != nil {
		t.Fatal(err)
	}
	tc.a.Abort(tc.now, []byte("bye"))
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != tc.peerTag || c.tBit() || len(p.p.chunks) != 1 {
		t.Fatalf("ABORT tag %08x T=%v chunks %v", p.p.vtag, c.tBit(), chunkTypes(&p.p))
	}
	if firstCause(c.value()) != chunk.CauseUserAbort || string(c.value()[4:7]) != "bye" {
		t.Fatalf("cause %x", c.value())
	}
	tc.wantCommLost()
	tc.wantIdle()
}
