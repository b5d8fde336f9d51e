package assoc

import (
	"encoding/binary"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// RFC 9260 appendix C, ICMP6 (paraphrased: the text is not quoted word for
// word): the Verification Tag in the ICMP message MUST match the peer's
// tag; a non-zero tag that does not match is discarded; with tag 0 the
// quoted packet must show an INIT chunk whose Initiate Tag matches, else
// it is discarded. A notice that fails these checks ends nothing and is
// counted; a valid refused notice (ICMP8, with RFC 6951 section 5.5's
// mapping of port unreachable to protocol unreachable) for our INIT in
// COOKIE-WAIT is handled like an ABORT.
func TestNoticeValidatesTag(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	sp, _ := tc.wantChunk(chunk.TypeInit)
	quote := append([]byte(nil), sp.raw...)

	forged := append([]byte(nil), quote...)
	forged[16] ^= 1 // another Initiate Tag
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: forged})
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: quote[:14]})                                                           // too short to show the INIT's tag
	tc.ep.Notice(tc.now, Notice{To: peerAddr2, Kind: NoticeRefused, Quote: quote})                                                              // another destination
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: append(appendHeader(nil, tc.lport, tc.pport, 0x1234), quote[12:]...)}) // a tag that is not the peer's
	tc.drainEvents()
	tc.wantNoEvent()
	tc.wantState(stateCookieWait)
	if s := tc.ep.Stats(); s.NoticesDropped != 4 || s.NoticesIn != 0 {
		t.Fatalf("NoticesDropped %d NoticesIn %d, want 4 and 0", s.NoticesDropped, s.NoticesIn)
	}

	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeUnreachable, Quote: quote})
	tc.drainEvents()
	tc.wantNoEvent()
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: quote[:20]}) // truncated after the Initiate Tag: enough
	tc.drainEvents()
	if ev := tc.wantCantStart(); ev.End.Reason != reasonPortUnreachable || !ev.End.Reason.Refused() {
		t.Fatalf("reason %v", ev.End.Reason)
	}
	if !a.closed {
		t.Fatal("association still open")
	}
	if s := tc.ep.Stats(); s.NoticesIn != 2 {
		t.Fatalf("NoticesIn %d, want 2", s.NoticesIn)
	}
}

// RFC 9260 appendix C, ICMP9 (quoted): on "Destination Unreachable" the
// implementation "MAY move the destination to the unreachable state or,
// alternatively, increment the path error counter". This stack counts the
// notice only: an unreachable notice never ends an established
// association by itself. ICMP8 (paraphrased): a protocol unreachable that
// does not quote an INIT is treated as an ABORT with the T bit set.
func TestNoticeEstablished(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	pkt := finishPacket(appendShutdownComplete(appendHeader(nil, tc.lport, tc.pport, tc.peerTag), true), 0)
	for range 100 {
		tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeUnreachable, Quote: pkt})
		tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeTooBig, Quote: pkt})
	}
	tc.drainEvents()
	tc.wantNoEvent()
	tc.wantState(stateEstablished)
	if s := tc.a.stats; s.NoticesIn != 200 {
		t.Fatalf("NoticesIn %d", s.NoticesIn)
	}
	bad := finishPacket(appendShutdownComplete(appendHeader(nil, tc.lport, tc.pport, tc.a.localTag), true), 0)
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: bad}) // our own tag is not the peer's
	tc.drainEvents()
	tc.wantState(stateEstablished)
	tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeRefused, Quote: pkt[:12]})
	tc.drainEvents()
	if ev := tc.wantCommLost(); ev.End.Reason != reasonPortUnreachable {
		t.Fatalf("reason %v", ev.End.Reason)
	}
}

// RFC 9260 section 8.4 (3): "If the packet contains an INIT chunk with a
// Verification Tag set to 0, process it as described in Section 5.1. If,
// for whatever reason, the INIT cannot be processed normally and an ABORT
// has to be sent in response, the Verification Tag of the packet
// containing the ABORT chunk MUST be the Initiate Tag of the received INIT
// chunk, and the T bit of the ABORT chunk has to be set to 0, indicating
// that the Verification Tag is not reflected." An INIT to an SCTP port
// nobody listens on, on a port space of the endpoint's own, is such an
// INIT; the initiator that gets the ABORT fails at once as refused.
func TestInitToUnknownPortAborted(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.ep.SetPortFilter(PortFilter{Listen: tc.lport + 1})
	tc.writePacket(0, tc.peerInit())
	p, c := tc.wantChunk(chunk.TypeAbort)
	if p.p.vtag != tc.peerTag || c.flags&1 != 0 || p.p.srcPort != tc.lport || p.p.dstPort != tc.pport {
		t.Fatalf("ABORT tag %#x flags %#x ports %d>%d, want tag %#x, T bit clear", p.p.vtag, c.flags, p.p.srcPort, p.p.dstPort, tc.peerTag)
	}
	tc.wantIdle()
	if len(tc.ep.assocs) != 0 {
		t.Fatal("an association was created")
	}

	// The initiator's side: that ABORT ends the handshake as refused.
	tc2 := newTestEndpoint(t, testConfig())
	a, _ := tc2.ep.connect(tc2.now, tc2.peer, tc2.lport, tc2.pport)
	tc2.a = a
	tc2.wantChunk(chunk.TypeInit)
	tc2.writeChunks(chunkOf(chunk.TypeAbort, 0, nil))
	if ev := tc2.wantCantStart(); ev.End.Reason != reasonRefused || !ev.End.Reason.ByPeer() || !ev.End.Reason.Refused() {
		t.Fatalf("reason %v", ev.End.Reason)
	}
}

// An endpoint that dials from a fixed port (PortFilter.Dial) drops an INIT to
// that port that finds no association instead of aborting it: it is the
// peer's half of a simultaneous open (RFC 9260 section 5.2.1) that came
// before our own INIT; INITs to other ports are still aborted.
func TestInitToDialPortQuiet(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.ep.SetPortFilter(PortFilter{Dial: tc.lport})
	tc.writePacket(0, tc.peerInit())
	tc.wantIdle()
	if s := tc.ep.Stats(); s.PacketsIn != 0 || s.AbortsOut != 0 {
		t.Fatalf("counted or answered: %+v", s.Counters)
	}
	tc.ep.SetPortFilter(PortFilter{Dial: tc.lport + 1})
	tc.writePacket(0, tc.peerInit())
	tc.wantChunk(chunk.TypeAbort)
}

// FuzzNotice feeds arbitrary quotes to Notice for an association in
// COOKIE-WAIT or ESTABLISHED: nothing may panic, and only a quote that
// carries the right tag may end the association.
func FuzzNotice(f *testing.F) {
	f.Add(false, uint8(NoticeRefused), []byte{})
	f.Add(false, uint8(NoticeRefused), appendHeader(nil, 5000, 6000, 0))
	f.Add(true, uint8(NoticeRefused), appendHeader(nil, 5000, 6000, 0xfeedf00d))
	f.Add(true, uint8(NoticeUnreachable), appendHeader(nil, 5000, 6000, 0xfeedf00d))
	f.Add(false, uint8(NoticeTooBig), append(appendHeader(nil, 5000, 6000, 0), initChunk(chunk.TypeInit, 1, 65536, 1, 1, 1)...))
	f.Fuzz(func(t *testing.T, established bool, kind uint8, quote []byte) {
		tc := newTestEndpoint(t, testConfig())
		if established {
			tc.connectClient()
		} else {
			a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
			if err != nil {
				t.Fatal(err)
			}
			tc.a = a
			tc.readPackets()
		}
		tag := tc.a.peerTag
		tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeKind(kind % 4), Quote: quote})
		if tc.a.closed {
			if len(quote) < 12 || NoticeKind(kind%4) != NoticeRefused {
				t.Fatalf("ended by %v with a %d-byte quote", NoticeKind(kind%4), len(quote))
			}
			vtag := binary.BigEndian.Uint32(quote[4:])
			if vtag != tag && !(vtag == 0 && len(quote) >= 20 && binary.BigEndian.Uint32(quote[16:]) == tc.a.localTag) {
				t.Fatalf("ended by a quote with tag %#x (peer's %#x)", vtag, tag)
			}
		}
	})
}
