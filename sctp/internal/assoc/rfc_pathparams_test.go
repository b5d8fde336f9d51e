package assoc

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Per-path settings (pathparams.go) and the "made primary" event.

// pathRun moves the clock timer by timer for up to d, answering the
// HEARTBEATs sent to the addresses in answer and dropping the others; it
// returns the HEARTBEATs sent to each address and calls each after every
// step (stopping when it returns true).
func (tc *testConn) pathRun(d time.Duration, answer map[netip.AddrPort]bool, each func() bool) map[netip.AddrPort]int {
	tc.t.Helper()
	hbs := map[netip.AddrPort]int{}
	end := tc.now.Add(d)
	for tc.now.Before(end) {
		tc.advanceToTimer()
		tc.readPackets()
		for _, p := range tc.sent {
			for _, c := range p.p.chunks {
				if c.typ != chunk.TypeHeartbeat {
					continue
				}
				hbs[p.to]++
				if answer[p.to] {
					tc.writeFrom(p.to, tc.a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
				}
			}
		}
		tc.sent = nil
		if each != nil && each() {
			break
		}
	}
	return hbs
}

// pathInfo returns the PathInfo of addr.
func (tc *testConn) pathInfo(addr netip.AddrPort) PathInfo {
	for _, pi := range tc.a.Paths(nil) {
		if pi.Addr == addr {
			return pi
		}
	}
	tc.t.Fatalf("no path %v", addr)
	return PathInfo{}
}

// RFC 9260 section 8.2: "When the value of this counter exceeds the
// protocol parameter 'Path.Max.Retrans', the endpoint SHOULD mark the
// destination transport address as inactive", with Path.Max.Retrans and
// RFC 7829's PFMR set for one address (SCTP_PEER_ADDR_PARAMS): that path
// is potentially failed beyond 1 error and inactive beyond 2, and its
// HEARTBEATs come every HB.interval + RTO of its own; the other path keeps
// the defaults.
func TestPathParamsPerPath(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	pp, err := a.PathParams(peerAddr2.Addr())
	if err != nil || pp.PathMaxRetransmits != 5 || pp.PFThreshold != 0 || pp.HeartbeatInterval != 30*time.Second {
		t.Fatalf("defaults %+v, %v", pp, err)
	}
	pp = api.PathParams{HeartbeatInterval: 5 * time.Second, PathMaxRetransmits: 2, PFThreshold: 1}
	if err := a.SetPathParams(tc.now, peerAddr2.Addr(), pp); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.PathParams(peerAddr.Addr()); got.PathMaxRetransmits != 5 {
		t.Fatalf("the other path's settings changed: %+v", got)
	}
	start := tc.now
	var pfAt, downAt time.Time
	var pfErrors, downErrors int
	hbs := tc.pathRun(10*time.Minute, map[netip.AddrPort]bool{peerAddr: true}, func() bool {
		pi := tc.pathInfo(peerAddr2)
		switch {
		case pi.State == api.PathPotentiallyFailed && pfAt.IsZero():
			pfAt, pfErrors = tc.now, pi.Errors
		case pi.State == api.PathInactive && downAt.IsZero():
			downAt, downErrors = tc.now, pi.Errors
		}
		return !downAt.IsZero()
	})
	if pfAt.IsZero() || downAt.IsZero() {
		t.Fatalf("path states: potentially failed at %v, inactive at %v", pfAt, downAt)
	}
	if pfErrors != 2 || downErrors != 3 {
		t.Fatalf("potentially failed at %d errors (want 2), inactive at %d (want 3)", pfErrors, downErrors)
	}
	// HEARTBEATs every HB.interval 5 s + RTO/2 (0.5 s) + jitter (up to
	// 1 s); an unanswered one counts when the next is due: the second
	// error comes with the third HEARTBEAT, within 3 x 6.5 s, where the
	// default interval would take a minute and a half.
	if d := pfAt.Sub(start); d < 3*5500*time.Millisecond || d > 3*6500*time.Millisecond {
		t.Fatalf("potentially failed after %v", d)
	}
	if hbs[peerAddr2] != downErrors+1 {
		t.Fatalf("%d HEARTBEATs to %v", hbs[peerAddr2], peerAddr2)
	}
	if st := tc.pathInfo(peerAddr).State; st != api.PathActive {
		t.Fatalf("the other path is %v", st)
	}
}

// HeartbeatOff stops the HEARTBEATs of an idle active path (RFC 6458's
// SPP_HB_DISABLE); set for all paths (the zero Addr), it stops those of
// the handshake's address too (heartbeat.go), and new paths take it.
func TestPathParamsHeartbeatOff(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	pp, _ := a.PathParams(netip.Addr{})
	pp.HeartbeatOff = true
	if err := a.SetPathParams(tc.now, peerAddr2.Addr(), pp); err != nil {
		t.Fatal(err)
	}
	hbs := tc.pathRun(5*time.Minute, map[netip.AddrPort]bool{peerAddr: true}, nil)
	if hbs[peerAddr2] != 0 || hbs[peerAddr] == 0 {
		t.Fatalf("HEARTBEATs with the second path's off: %v", hbs)
	}
	if err := a.SetPathParams(tc.now, netip.Addr{}, pp); err != nil {
		t.Fatal(err)
	}
	tc.sent = nil
	tc.readPackets()
	tc.sent = nil
	if d := a.nextDeadline(); !d.IsZero() {
		tc.advance(d.Sub(tc.now) + 10*time.Minute)
	}
	tc.readPackets()
	for _, p := range tc.sent {
		for _, c := range p.p.chunks {
			if c.typ == chunk.TypeHeartbeat {
				t.Fatalf("HEARTBEAT to %v with all heartbeats off", p.to)
			}
		}
	}
	if got, _ := a.PathParams(netip.Addr{}); !got.HeartbeatOff {
		t.Fatal("the association's settings did not change")
	}
	// Back on: the idle paths are probed again.
	pp.HeartbeatOff = false
	if err := a.SetPathParams(tc.now, netip.Addr{}, pp); err != nil {
		t.Fatal(err)
	}
	hbs = tc.pathRun(2*time.Minute, map[netip.AddrPort]bool{peerAddr: true, peerAddr2: true}, nil)
	if hbs[peerAddr2] == 0 || hbs[peerAddr] == 0 {
		t.Fatalf("HEARTBEATs after turning them on: %v", hbs)
	}
}

// SetPathParams refuses bad values and addresses that are not the peer's.
func TestPathParamsInvalid(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	good := api.PathParams{HeartbeatInterval: time.Second, PathMaxRetransmits: 1}
	for _, pp := range []api.PathParams{
		{HeartbeatInterval: -1, PathMaxRetransmits: 5},
		{PathMaxRetransmits: 0},
		{PathMaxRetransmits: 5, PFThreshold: -1},
	} {
		if err := a.SetPathParams(tc.now, netip.Addr{}, pp); !errors.Is(err, api.ErrInvalidPathParams) {
			t.Errorf("%+v: %v", pp, err)
		}
	}
	if err := a.SetPathParams(tc.now, netip.MustParseAddr("203.0.113.1"), good); !errors.Is(err, api.ErrUnknownAddress) {
		t.Errorf("unknown address: %v", err)
	}
	if _, err := a.PathParams(netip.MustParseAddr("203.0.113.1")); !errors.Is(err, api.ErrUnknownAddress) {
		t.Errorf("unknown address: %v", err)
	}
}

// "Made primary" (RFC 6458's SCTP_ADDR_MADE_PRIM): SetPrimary to another
// address reports it once; the data coming back to the primary after it
// answers again reports it too.
func TestMadePrimaryEvent(t *testing.T) {
	tc := mhServer(t)
	a := tc.a
	if err := a.SetPrimary(tc.now, peerAddr2.Addr()); err != nil {
		t.Fatal(err)
	}
	e := tc.wantMadePrimary()
	if transportOf(e.Addr) != peerAddr2 || e.PathState != api.PathActive {
		t.Fatalf("made primary %v %v", e.Addr, e.PathState)
	}
	if err := a.SetPrimary(tc.now, peerAddr2.Addr()); err != nil {
		t.Fatal(err)
	}
	tc.wantNoEvent()
	// The primary (now the second address) stops answering: the data
	// moves to the first; when it answers again the data comes back.
	tc.events = nil
	tc.pathRun(10*time.Minute, map[netip.AddrPort]bool{peerAddr: true}, func() bool {
		return tc.pathInfo(peerAddr2).State != api.PathActive
	})
	if pi := tc.pathInfo(peerAddr); !pi.InUse {
		t.Fatalf("data not moved: %+v", a.Paths(nil))
	}
	tc.events = nil
	tc.pathRun(time.Minute, map[netip.AddrPort]bool{peerAddr: true, peerAddr2: true}, func() bool {
		return tc.pathInfo(peerAddr2).State == api.PathActive
	})
	tc.wantPathUp()
	if e := tc.wantMadePrimary(); transportOf(e.Addr) != peerAddr2 || !tc.pathInfo(peerAddr2).InUse {
		t.Fatalf("made primary %v, paths %+v", e.Addr, a.Paths(nil))
	}
}
