package assoc

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// errNoRoute stands for the errno the shell passes with a notice.
var errNoRoute = errors.New("network is unreachable")

// RFC 9260 section 5.1 retransmits an INIT nobody answers up to
// Max.Init.Retransmits times; appendix C, ICMP9 (quoted): on "Destination
// Unreachable" the implementation "MAY move the destination to the
// unreachable state or, alternatively, increment the path error counter".
// An INIT this host refused to send (no route: NoticeNoRoute) makes its
// only destination unreachable at once, as a kernel's connect fails at
// once on no route: the handshake ends with reasonUnreachable and the
// host's error, before any retransmission.
func TestInitNoRouteEndsHandshake(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	p, _ := tc.wantChunk(chunk.TypeInit)
	tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeNoRoute, Quote: p.raw[:20], Err: errNoRoute})
	ev := tc.wantCantStart()
	if ev.End.Reason != reasonUnreachable || ev.End.Err != errNoRoute ||
		ev.End.Reason.Timeout() || ev.End.Reason.Refused() || ev.End.Reason.ByPeer() {
		t.Fatalf("reason %v err %v", ev.End.Reason, ev.End.Err)
	}
	if !a.closed || len(tc.ep.assocs) != 0 {
		t.Fatal("association still open")
	}
	if s := tc.ep.Stats(); s.NoticesIn != 0 || s.NoticesDropped != 0 {
		t.Fatalf("NoticesIn %d NoticesDropped %d: a send this host refused is no ICMP error", s.NoticesIn, s.NoticesDropped)
	}
	tc.wantIdle()
}

// ICMP9 again, for ICMP destination unreachable from the network, which a
// route still converging may send: each counts once against the
// handshake, and the third INIT answered so ends it (about three seconds
// with the default RTO.Initial) instead of Max.Init.Retransmits' minutes.
// A notice with a tag that is not ours counts for nothing (ICMP6).
func TestInitICMPUnreachableEndsHandshakeAfterThree(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.connect(tc.now, tc.peer, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	start := tc.now
	for i := range initUnreachableLimit {
		if i > 0 {
			tc.advanceToTimer()
		}
		p, _ := tc.wantChunk(chunk.TypeInit)
		forged := append([]byte(nil), p.raw...)
		forged[16] ^= 1
		tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeUnreachable, Quote: forged, Err: errNoRoute})
		tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeUnreachable, Quote: p.raw, Err: errNoRoute})
		if i < initUnreachableLimit-1 {
			tc.drainEvents()
			tc.wantNoEvent()
			tc.wantState(stateCookieWait)
		}
	}
	ev := tc.wantCantStart()
	if ev.End.Reason != reasonUnreachable || ev.End.Err != errNoRoute {
		t.Fatalf("reason %v err %v", ev.End.Reason, ev.End.Err)
	}
	if d := tc.now.Sub(start); d != 3*time.Second {
		t.Fatalf("ended after %v, want 3s (T1-init 1 s, then 2 s)", d)
	}
	if s := tc.ep.Stats(); s.NoticesIn != initUnreachableLimit || s.NoticesDropped != initUnreachableLimit {
		t.Fatalf("NoticesIn %d NoticesDropped %d", s.NoticesIn, s.NoticesDropped)
	}
}

// With several peer addresses (sctp_connectx) the handshake ends only when
// every address said no: an INIT this host could not send to the first
// goes on to the second at the next T1-init, and ends the setup when the
// second is refused too.
func TestInitNoRouteEveryAddress(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	p, _ := tc.wantChunk(chunk.TypeInit)
	tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeNoRoute, Quote: p.raw, Err: errNoRoute})
	tc.drainEvents()
	tc.wantNoEvent()
	tc.wantState(stateCookieWait)
	tc.advanceToTimer()
	p, _ = tc.wantChunk(chunk.TypeInit)
	if p.to != peerAddr2 {
		t.Fatalf("second INIT to %v, want %v", p.to, peerAddr2)
	}
	other := errors.New("no route to host")
	tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeNoRoute, Quote: p.raw, Err: other})
	if ev := tc.wantCantStart(); ev.End.Reason != reasonUnreachable || ev.End.Err != other {
		t.Fatalf("reason %v err %v", ev.End.Reason, ev.End.Err)
	}
	if n := len(tc.ep.assocs); n != 0 {
		t.Errorf("%d index entries left", n)
	}
}

// A peer address that answers is not given up for the others' "no": the
// INIT ACK from the second address completes the handshake, and the
// refusals of the first are forgotten.
func TestInitNoRouteOtherAddressAnswers(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	p, _ := tc.wantChunk(chunk.TypeInit)
	tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeNoRoute, Quote: p.raw, Err: errNoRoute})
	tc.advanceToTimer()
	tc.wantChunk(chunk.TypeInit)
	tc.peer = peerAddr2
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		param(chunk.ParamStateCookie, []byte("peer cookie"))))
	tc.wantChunk(chunk.TypeCookieEcho)
	if a.initNo != (initRefusals{}) {
		t.Fatalf("refusals kept after the INIT ACK: %+v", a.initNo)
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
}

// NoticeNoRoute acts on an INIT only: a packet of an established
// association this host could not send is lost as any other (the timers
// count it), and it is no ICMP error to count.
func TestNoRouteIgnoredWhenEstablished(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	pkt := finishPacket(appendShutdownComplete(appendHeader(nil, tc.lport, tc.pport, tc.peerTag), true), 0)
	for range 10 {
		tc.ep.Notice(tc.now, Notice{To: tc.peer, Kind: NoticeNoRoute, Quote: pkt, Err: errNoRoute})
	}
	tc.drainEvents()
	tc.wantNoEvent()
	tc.wantState(stateEstablished)
	if s := tc.ep.Stats(); s.NoticesIn != 0 || s.NoticesDropped != 0 {
		t.Fatalf("NoticesIn %d NoticesDropped %d", s.NoticesIn, s.NoticesDropped)
	}
}
