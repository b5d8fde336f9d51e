package assoc

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
)

// A dialer that knows several addresses of its peer (sctp_connectx) sends
// the INIT to the first, and each retransmission to the next in turn. RFC
// 9260 section 5.1: "If the T1-init timer expires, the endpoint MUST
// retransmit the INIT chunk and restart the T1-init timer without changing
// state." The retransmission goes to the next address; the one the INIT
// ACK comes from is the association's address from then on, and the
// others leave the endpoint's index.
func TestInitRetransmissionRotatesPeerAddresses(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	third := netip.MustParseAddrPort("198.51.100.7:9899")
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2, third}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	for i, want := range []netip.AddrPort{peerAddr, peerAddr2, third, peerAddr} {
		if i > 0 {
			tc.advanceToTimer()
		}
		p, _ := tc.wantChunk(chunk.TypeInit)
		if p.to != want {
			t.Fatalf("INIT %d sent to %v, want %v", i, p.to, want)
		}
		tc.wantState(stateCookieWait)
	}
	// The third address answers (the peer's answer to the INIT sent there).
	tc.peer = third
	tc.writeChunks(initChunk(chunk.TypeInitAck, tc.peerTag, 65536, 100, 100, tc.peerTSN,
		param(chunk.ParamStateCookie, []byte("peer cookie"))))
	p, _ := tc.wantChunk(chunk.TypeCookieEcho)
	if p.to != third {
		t.Fatalf("COOKIE ECHO sent to %v, want %v (the address that answered)", p.to, third)
	}
	tc.writeChunks(chunkOf(chunk.TypeCookieAck, 0, nil))
	tc.wantState(stateEstablished)
	if peer, _ := a.Peer(); peer != third {
		t.Errorf("association address %v, want %v", peer, third)
	}
	for _, ap := range []netip.AddrPort{peerAddr, peerAddr2} {
		if tc.ep.assocs[assocKey{peer: ap, localPort: tc.lport, peerPort: tc.pport}] != nil {
			t.Errorf("%v still indexed after the INIT ACK came from %v", ap, third)
		}
	}
	if tc.ep.assocs[assocKey{peer: third, localPort: tc.lport, peerPort: tc.pport}] != a {
		t.Errorf("%v not indexed", third)
	}
	// Data goes to the address that answered.
	if err := a.send(tc.now, 0, 0, false, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if p, _ := tc.wantChunk(chunk.TypeData); p.to != third {
		t.Errorf("DATA sent to %v, want %v", p.to, third)
	}
}

// Section 5.1: "This MUST be repeated up to 'Max.Init.Retransmits' times.
// After that, the endpoint MUST abort the initialization process and
// report the error to the SCTP user." With several peer addresses the
// count is the association's, not per address, and the aborted
// association leaves none of them in the endpoint's index.
func TestInitRotationGivesUpAfterMaxInitRetransmits(t *testing.T) {
	cfg := testConfig()
	cfg.MaxInitRetransmits = 3
	tc := newTestEndpoint(t, cfg)
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	inits := 0
	for range 10 {
		tc.readPackets()
		for _, p := range tc.sent {
			if p.p.chunks[0].typ == chunk.TypeInit {
				inits++
			}
		}
		tc.sent = nil
		if a.closed {
			break
		}
		tc.advanceToTimer()
	}
	if !a.closed || inits != 4 {
		t.Fatalf("closed %v after %d INITs, want closed after 4", a.closed, inits)
	}
	tc.wantCantStart()
	if n := len(tc.ep.assocs); n != 0 {
		t.Errorf("%d index entries left after the association was aborted", n)
	}
}

// An address another association already has is left out of the rotation
// (it is not this association's to claim); the first address must be
// free.
func TestConnectAddrsSkipsTakenAddress(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	other, err := tc.ep.connect(tc.now, peerAddr2, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	if a.initAddrs != nil || tc.ep.assocs[assocKey{peer: peerAddr2, localPort: tc.lport, peerPort: tc.pport}] != other {
		t.Fatalf("rotation %v claims the other association's address", a.initAddrs)
	}
	if _, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr2}, tc.lport, tc.pport); err != ErrExists {
		t.Fatalf("ConnectAddrs to a taken first address: %v, want ErrExists", err)
	}
}

// An ICMP refusal of the INIT sent to one of several peer addresses does
// not end the setup (it would end it with one address, RFC 9260 appendix
// C ICMP8): the next INIT goes to the next address.
func TestInitRotationSurvivesRefusal(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	a, err := tc.ep.ConnectAddrs(tc.now, []netip.AddrPort{peerAddr, peerAddr2}, tc.lport, tc.pport)
	if err != nil {
		t.Fatal(err)
	}
	tc.a = a
	p, _ := tc.wantChunk(chunk.TypeInit)
	tc.ep.Notice(tc.now, Notice{To: p.to, Kind: NoticeRefused, Quote: p.raw})
	if a.closed {
		t.Fatal("the refusal of the first address ended the setup")
	}
	tc.advanceToTimer()
	if p, _ := tc.wantChunk(chunk.TypeInit); p.to != peerAddr2 {
		t.Fatalf("second INIT to %v, want %v", p.to, peerAddr2)
	}
}
