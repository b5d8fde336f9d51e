package assoc

import (
	"net/netip"
	"testing"
)

// TestLookupHitFollowsTheIndex: the association Receive found last is
// reused only while the index still holds it. After an ABORT ends the
// association and a new one starts between the same transport addresses
// (the same key), packets reach the new association, never the closed one.
func TestLookupHitFollowsTheIndex(t *testing.T) {
	p := newCorePair(t)
	msg := make([]byte, 100)
	for range 10 {
		p.send(msg)
		p.pump()
	}
	old := p.as[1]
	key := old.key
	if h := p.eps[1].hit; h.a != old || h.key != key {
		t.Fatalf("after traffic the hit is %p under %v, want %p under %v", h.a, h.key, old, key)
	}
	if err := p.as[0].Abort(p.now, nil); err != nil {
		t.Fatal(err)
	}
	p.as[1] = nil // nothing to read from a closed association
	p.pump()
	if !old.closed {
		t.Fatal("the peer's association survived the ABORT")
	}
	if got := p.eps[1].lookup(key); got != nil {
		t.Fatalf("lookup after the ABORT = %p, want nil", got)
	}

	a, err := p.eps[0].connect(p.now, p.addrs[1], key.peerPort, key.localPort)
	if err != nil {
		t.Fatal(err)
	}
	p.as[0] = a
	for range 10 {
		p.pump()
	}
	nw := p.eps[1].assocs[key]
	if nw == nil || nw == old || a.state != stateEstablished {
		t.Fatalf("no new association under %v (got %p, old %p)", key, nw, old)
	}
	p.as[1] = nw
	got := p.got
	for range 10 {
		p.send(msg)
		p.pump()
	}
	if p.got-got != 10 {
		t.Fatalf("the new association delivered %d of 10 messages", p.got-got)
	}
	if h := p.eps[1].hit; h.a != nw {
		t.Fatalf("the hit is %p, want the new association %p", h.a, nw)
	}
}

// TestLookupHitForgottenOnRekey: an association indexed under a new peer
// address (a moved UDP port, its primary address deleted) is no longer
// found under its old key through the hit, though the index keeps its
// size.
func TestLookupHitForgottenOnRekey(t *testing.T) {
	p := newCorePair(t)
	p.send(make([]byte, 100))
	p.pump()
	ep, a := p.eps[1], p.as[1]
	old := a.key
	if got := ep.lookup(old); got != a || ep.hit.a != a {
		t.Fatalf("lookup = %p (hit %p), want %p", got, ep.hit.a, a)
	}
	delete(ep.assocs, old)
	moved := netip.MustParseAddrPort("10.0.0.3:9899")
	a.rekeyPeer(moved)
	if got := ep.lookup(old); got != nil {
		t.Fatalf("lookup under the old key = %p, want nil", got)
	}
	nk := old
	nk.peer = moved
	if got := ep.lookup(nk); got != a {
		t.Fatalf("lookup under the new key = %p, want %p", got, a)
	}
}
