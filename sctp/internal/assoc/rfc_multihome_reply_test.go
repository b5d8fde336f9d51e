package assoc

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Replies routed to the source of what they answer (reply.go) and packets
// from addresses that are none of the peer's (lookup.go).

// wantReply returns the next packet holding a chunk of type typ, moving
// the clock to the next timer while none is sent (a delayed SACK).
func (tc *testConn) wantReply(typ chunk.Type) *sentPacket {
	tc.t.Helper()
	for range 5 {
		tc.readPackets()
		for len(tc.sent) > 0 {
			p := tc.sent[0]
			tc.sent = tc.sent[1:]
			for _, c := range p.p.chunks {
				if c.typ == typ {
					return &p
				}
			}
		}
		tc.advanceToTimer()
	}
	tc.t.Fatalf("no chunk of type %v sent", typ)
	return nil
}

// RFC 9260 section 6.4: "An endpoint SHOULD transmit reply chunks (e.g.,
// SACK, HEARTBEAT ACK) to the same destination transport address from
// which it received the DATA or control chunk to which it is replying."
// The SACK goes to the source of the DATA most recently received.
func TestSackToDataSource(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	tag := tc.a.localTag
	tc.writeFrom(peerAddr2, tag, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("one")))
	if p := tc.wantReply(chunk.TypeSack); p.to != peerAddr2 {
		t.Fatalf("SACK for DATA from %v sent to %v", peerAddr2, p.to)
	}
	tc.writeFrom(peerAddr2, tag, dataChunk(0x03, tc.peerTSN+1, 0, 1, 0, []byte("two")))
	tc.writeFrom(peerAddr, tag, dataChunk(0x03, tc.peerTSN+2, 0, 2, 0, []byte("three")))
	if p := tc.wantReply(chunk.TypeSack); p.to != peerAddr {
		t.Fatalf("SACK after DATA most recently from %v sent to %v", peerAddr, p.to)
	}
}

// Section 6.4 for HEARTBEAT ACKs: each goes to its HEARTBEAT's source,
// in a packet of its own when the sources differ.
func TestHeartbeatAckToSource(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	tag := tc.a.localTag
	hb := func(s string) []byte {
		return chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte(s)))
	}
	tc.writeFrom(peerAddr2, tag, hb("to-second"))
	tc.writeFrom(peerAddr, tag, hb("to-first"))
	tc.writeFrom(peerAddr2, tag, hb("to-second-again"))
	got := map[string]netip.AddrPort{}
	for range 2 {
		p := tc.wantReply(chunk.TypeHeartbeatAck)
		for _, c := range p.p.chunks {
			if c.typ == chunk.TypeHeartbeatAck {
				info, _ := heartbeatInfo(c.value())
				got[string(info)] = p.to
			}
		}
	}
	want := map[string]netip.AddrPort{"to-second": peerAddr2, "to-first": peerAddr, "to-second-again": peerAddr2}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("HEARTBEAT ACK %q sent to %v, want %v", k, got[k], v)
		}
	}
}

// Section 6.4 for an ERROR: an unrecognized chunk whose action bits ask for
// a report (section 3.2, action bits 11, paraphrased: skip the chunk,
// continue, and report it in an ERROR chunk with the "Unrecognized Chunk
// Type" cause) is reported to the packet's source.
func TestErrorToSource(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	tc.writeFrom(peerAddr, tc.a.localTag, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("one")))
	if p := tc.wantReply(chunk.TypeSack); p.to != peerAddr {
		t.Fatalf("SACK sent to %v", p.to)
	}
	tc.writeFrom(peerAddr2, tc.a.localTag, chunkOf(0xee, 0, []byte{1, 2, 3, 4}))
	if p := tc.wantReply(chunk.TypeError); p.to != peerAddr2 {
		t.Fatalf("ERROR for a chunk from %v sent to %v", peerAddr2, p.to)
	}
}

// A SACK owed to another path than the one new data goes to leaves in a
// packet of its own; the DATA follows on its path (the transfer engine
// credits DATA to the path it chose).
func TestSackNotBundledWithDataToOtherPath(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	if err := tc.a.send(tc.now, 0, 0, false, []byte("ours")); err != nil {
		t.Fatal(err)
	}
	tc.writeFrom(peerAddr2, tc.a.localTag, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("theirs")))
	tc.readPackets()
	var sackTo, dataTo netip.AddrPort
	for _, p := range tc.sent {
		for _, c := range p.p.chunks {
			switch c.typ {
			case chunk.TypeSack:
				sackTo = p.to
			case chunk.TypeData:
				dataTo = p.to
			}
		}
	}
	if sackTo != peerAddr2 || dataTo != peerAddr {
		t.Fatalf("SACK to %v, DATA to %v; want %v and %v", sackTo, dataTo, peerAddr2, peerAddr)
	}
}

// Packets from an address that is none of the peer's but with the
// association's Verification Tag are the association's (section 8.5: "When
// receiving an SCTP packet, the endpoint MUST ensure that the value in the
// Verification Tag field of the received SCTP packet matches its own
// tag"): the DATA is delivered and counted, but the source gets no reply
// and does not become a path; a wrong tag from there is out of the blue.
func TestUnknownSourceTakenByTag(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	a := tc.a
	stranger := netip.MustParseAddrPort("198.51.100.99:9899")
	tc.writeFrom(stranger, a.localTag^1, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("forged")))
	if a.Readable() {
		t.Fatal("DATA with a wrong tag delivered")
	}
	tc.readPackets()
	for _, p := range tc.sent {
		if p.to != stranger || p.p.vtag != a.localTag^1 {
			t.Fatalf("answer to a wrong tag: %v to %v", chunkTypes(&p.p), p.to)
		}
	}
	tc.sent = nil
	tc.writeFrom(stranger, a.localTag, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("by tag")))
	tc.writeFrom(stranger, a.localTag, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("hb"))))
	buf := make([]byte, 64)
	n, _, err := a.Read(buf)
	if err != nil || string(buf[:n]) != "by tag" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if a.stats.UnknownSource != 2 {
		t.Fatalf("UnknownSource %d, want 2", a.stats.UnknownSource)
	}
	tc.advance(time.Second)
	tc.readPackets()
	if len(tc.sent) == 0 {
		t.Fatal("no SACK or HEARTBEAT ACK")
	}
	for _, p := range tc.sent {
		if p.to == stranger {
			t.Fatalf("%v sent to the unknown source", chunkTypes(&p.p))
		}
	}
	if a.pathAt(stranger) >= 0 || a.knowsPeerAddr(stranger.Addr()) {
		t.Fatal("the unknown source became a peer address")
	}
}

// The primary cut while no DATA flows (the peer sends, we only SACK): its
// unanswered HEARTBEATs make it potentially failed (RFC 7829 section 5.1,
// with the default PFMR 0: at the first), so control chunks move to the
// other path; the HEARTBEAT ACKs of that path clear the association's
// error count (section 8.3: "The receiver of the HEARTBEAT ACK chunk
// SHOULD also clear the association overall error counter"), so the
// association lives on; the peer's SHUTDOWN, from its second address, gets
// its SHUTDOWN ACK there. (Found with Linux: the SHUTDOWN ACK went to the
// dead primary until the kernel gave up.)
func TestIdlePrimaryCutShutdownAckOnOtherPath(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = false
	a := tc.a
	tc.pathRun(3*time.Minute, map[netip.AddrPort]bool{peerAddr2: true}, nil)
	if a.closed {
		t.Fatal("association lost with its second path answering")
	}
	if pi := tc.pathInfo(peerAddr); pi.State == api.PathActive || pi.InUse {
		t.Fatalf("primary after 3 minutes of silence: %+v", pi)
	}
	if !tc.pathInfo(peerAddr2).InUse {
		t.Fatalf("paths %+v", a.Paths(nil))
	}
	tc.writeFrom(peerAddr2, a.localTag, chunkOf(chunk.TypeShutdown, 0, u32(tc.peerTSN-1)))
	p := tc.wantReply(chunk.TypeShutdownAck)
	if p.to != peerAddr2 {
		t.Fatalf("SHUTDOWN ACK sent to %v, want %v", p.to, peerAddr2)
	}
}

// The SHUTDOWN ACK answers the SHUTDOWN at its source (section 6.4); when
// T2-shutdown expires the unanswered SHUTDOWN ACK counts against its path
// and is sent again on the other one. (Found with Linux: after the
// primary was cut, the SHUTDOWN ACK and its resends went to it until the
// kernel gave up on the association.)
func TestShutdownAckToSourceAndT2OnOtherPath(t *testing.T) {
	tc := mhServer(t)
	tc.ignoreHB = true
	a := tc.a
	tc.writeFrom(peerAddr2, a.localTag, chunkOf(chunk.TypeShutdown, 0, u32(tc.peerTSN-1)))
	if p := tc.wantReply(chunk.TypeShutdownAck); p.to != peerAddr2 {
		t.Fatalf("SHUTDOWN ACK for a SHUTDOWN from %v sent to %v", peerAddr2, p.to)
	}

	tc = mhServer(t)
	tc.ignoreHB = true
	a = tc.a
	tc.writeFrom(peerAddr, a.localTag, chunkOf(chunk.TypeShutdown, 0, u32(tc.peerTSN-1)))
	if p := tc.wantReply(chunk.TypeShutdownAck); p.to != peerAddr {
		t.Fatalf("SHUTDOWN ACK sent to %v, want %v", p.to, peerAddr)
	}
	// No answer: T2-shutdown expires.
	for a.timers.running(timerT2Shutdown) && tc.now.Before(t0.Add(time.Hour)) {
		tc.advanceToTimer()
		tc.readPackets()
		for _, p := range tc.sent {
			if p.p.chunks[0].typ == chunk.TypeShutdownAck {
				if p.to != peerAddr2 {
					t.Fatalf("SHUTDOWN ACK resent to %v, want %v (paths %+v, t2 %d)", p.to, peerAddr2, a.Paths(nil), a.t2Retx)
				}
				return
			}
		}
		tc.sent = nil
	}
	t.Fatal("no SHUTDOWN ACK resent")
}
