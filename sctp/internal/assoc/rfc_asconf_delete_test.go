package assoc

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Deleting the handshake's address and the wildcard address (RFC 5061).

// addConfirmed has the peer add ip by an ASCONF with serial (from the
// handshake's address) and, when confirm, answer the HEARTBEAT that probes
// it from there.
func (tc *testConn) addConfirmed(peer *testAuthPeer, serial uint32, ip string, confirm bool) netip.AddrPort {
	tc.t.Helper()
	addr := netip.AddrPortFrom(netip.MustParseAddr(ip), peerAddr.Port())
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(tc.t.(*testing.T), serial,
		asconfReq(tc.t.(*testing.T), chunk.ParamAddIPAddress, serial, ip))))
	if _, _, res := tc.wantASCONFAck(peer); res[serial] != 0 {
		tc.t.Fatalf("add %s: %v", ip, res)
	}
	tc.nextAddrEvent(api.AddrAdded)
	hb := tc.wantHeartbeatTo(addr)
	if confirm {
		tc.writeFrom(addr, tc.a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, hb.value()))
	}
	return addr
}

// wantHeartbeatTo returns the HEARTBEAT the endpoint sends to the
// unconfirmed address addr now, or after the association's HB.Max.Burst
// pause (one RTO, pathprobe.go) when another unconfirmed address had the
// last one; the packets read meanwhile are dropped.
func (tc *testConn) wantHeartbeatTo(addr netip.AddrPort) *rxChunk {
	tc.t.Helper()
	tc.ep.Expire(tc.now)
	limit := tc.now.Add(tc.a.currentRTO())
	for {
		tc.readPackets()
		for i := range tc.sent {
			if c := tc.sent[i].p.find(chunk.TypeHeartbeat); c != nil && tc.sent[i].to == addr {
				tc.sent = nil
				return c
			}
		}
		tc.sent = nil
		if d := tc.a.nextDeadline(); d.IsZero() || d.After(limit) {
			tc.t.Fatalf("no HEARTBEAT to %v", addr)
		}
		tc.advanceToTimer()
	}
}

// nextAddrEvent returns the next address event of the peer's ASCONF of
// change c (added, removed, made primary), skipping the others (path state
// changes).
func (tc *testConn) nextAddrEvent(c api.AddrChange) Event {
	tc.t.Helper()
	tc.drainEvents()
	for len(tc.events) > 0 {
		e := tc.events[0]
		tc.events = tc.events[1:]
		if asconfEvent(&e, c) {
			return e
		}
	}
	tc.t.Fatalf("no event %v", c)
	return Event{}
}

// asconfEvent reports whether e is the event of a peer's ASCONF of change
// c: an EventPeerAddrChange that is not about the path's own state.
func asconfEvent(e *Event, c api.AddrChange) bool {
	return !e.Quiet && e.Kind == api.EventPeerAddrChange && e.Change == c && !e.MadePrimary
}

// TestASCONF5061DeleteHandshakeAddress: the peer deletes the address the
// association was set up with, from another of its addresses, which is
// confirmed: the association is keyed at the endpoint by that one from
// then on, the deleted address's path is gone, and the data goes to the
// remaining address. Deleting it while the only other address is still
// unconfirmed is refused (Resource Shortage): the association would be
// left without a confirmed address. RFC 5061 section 5.3: "F7) If a
// request is received to delete the last remaining IP address of a peer
// endpoint, the receiver MUST send an Error Cause TLV with the Error Cause
// set to the new error code ..." and "F8) If a request is received to
// delete an IP address that is also the source address of the IP packet
// that contained the ASCONF chunk, the receiver MUST reject this
// request." Other addresses, the handshake's among them, may be deleted.
func TestASCONF5061DeleteHandshakeAddress(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.ignoreHB = false
	a := tc.a
	second := tc.addConfirmed(peer, tc.peerTSN, "192.0.2.9", false)
	// From the unconfirmed address: refused, nothing changes.
	tc.writeFrom(second, a.localTag, peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+1,
		asconfReq(t, chunk.ParamDeleteIPAddress, 7, peerAddr.Addr().String()))))
	if _, _, res := tc.wantASCONFAck(peer); res[7] != chunk.CauseResourceShortage {
		t.Fatalf("delete of the handshake address with no other confirmed one: %v", res)
	}
	if p, _ := a.Peer(); p != peerAddr || len(a.Paths(nil)) != 2 {
		t.Fatalf("peer %v paths %+v after a refused delete", p, a.Paths(nil))
	}
	// Confirm it (the HEARTBEAT is sent again after an RTO), then delete.
	tc.now = tc.now.Add(a.ep.cfg.RTOInitial)
	tc.ep.Expire(tc.now)
	tc.readPackets()
	var hb *rxChunk
	for i := range tc.sent {
		if c := tc.sent[i].p.find(chunk.TypeHeartbeat); c != nil && tc.sent[i].to == second {
			hb = c
		}
	}
	if hb == nil {
		t.Fatal("no HEARTBEAT to the added address after an RTO")
	}
	tc.sent = nil
	tc.writeFrom(second, a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, hb.value()))
	tc.writeFrom(second, a.localTag, peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+2,
		asconfReq(t, chunk.ParamDeleteIPAddress, 8, peerAddr.Addr().String()))))
	if _, _, res := tc.wantASCONFAck(peer); res[8] != 0 {
		t.Fatalf("delete of the handshake address: %v", res)
	}
	if e := tc.nextAddrEvent(api.AddrRemoved); transportOf(e.Addr) != peerAddr {
		t.Fatalf("removed %v, want %v", e.Addr, peerAddr)
	}
	if p, _ := a.Peer(); p != second {
		t.Fatalf("association keyed by %v, want %v", p, second)
	}
	k := assocKey{localPort: tc.lport, peerPort: tc.pport}
	k.peer = second
	if tc.ep.assocs[k] != a {
		t.Fatal("the endpoint does not find the association by the remaining address")
	}
	k.peer = peerAddr
	if tc.ep.assocs[k] != nil {
		t.Fatal("the endpoint still finds the association by the deleted address")
	}
	if ps := a.Paths(nil); len(ps) != 1 || ps[0].Addr != second || ps[0].State != api.PathActive || !ps[0].Primary {
		t.Fatalf("paths %+v", ps)
	}
	tc.readPackets()
	tc.sent = nil
	if err := a.send(tc.now, 0, 0, false, []byte("after the delete")); err != nil {
		t.Fatal(err)
	}
	sp, _ := tc.wantChunk(chunk.TypeData)
	if sp.to != second {
		t.Fatalf("DATA to %v, want %v", sp.to, second)
	}
	// Acknowledged; from now on nothing goes to the deleted address, and
	// the heartbeats of the (new) handshake path go to the remaining one.
	tc.writeFrom(second, a.localTag, sackChunk(uint32(a.localTSN), 65536))
	hbs := 0
	for range 6 {
		tc.now = tc.now.Add(a.ep.cfg.HeartbeatInterval + a.ep.cfg.RTOMax)
		tc.ep.Expire(tc.now)
		tc.readPackets()
		for i := range tc.sent {
			sp := &tc.sent[i]
			if sp.to != second {
				t.Fatalf("%v sent to %v after its delete", chunkTypes(&sp.p), sp.to)
			}
			if c := sp.p.find(chunk.TypeHeartbeat); c != nil {
				hbs++
				tc.writeFrom(second, a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
			}
		}
		tc.sent = nil
	}
	if hbs == 0 || a.stats.ASCONF.AddrsDeleted != 1 {
		t.Fatalf("%d HEARTBEATs to %v; counters %+v", hbs, second, a.stats.ASCONF)
	}
	// The remaining address is now the last one.
	tc.writeFrom(second, a.localTag, peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+3,
		asconfReq(t, chunk.ParamDeleteIPAddress, 9, "192.0.2.9"))))
	if _, _, res := tc.wantASCONFAck(peer); res[9] != chunk.CauseDeleteLastAddress {
		t.Fatalf("delete of the last address: %v", res)
	}
	tc.wantState(stateEstablished)
}

// TestASCONF5061DeleteWildcard: a Delete IP Address of the wildcard
// address 0.0.0.0 deletes every address of the peer but the source of the
// ASCONF (RFC 5061 section 4.2.2, paraphrase: the exact sentence was not
// found in the reference text), the handshake's among them: the
// association goes on with the source address alone. From the only
// address, it deletes nothing and succeeds.
func TestASCONF5061DeleteWildcard(t *testing.T) {
	tc, peer := asconfServer(t)
	tc.ignoreHB = false
	a := tc.a
	// A single address: nothing to delete.
	tc.writeChunks(peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN,
		asconfReq(t, chunk.ParamDeleteIPAddress, 1, "0.0.0.0"))))
	if _, _, res := tc.wantASCONFAck(peer); res[1] != 0 {
		t.Fatalf("wildcard delete from the only address: %v", res)
	}
	second := tc.addConfirmed(peer, tc.peerTSN+1, "192.0.2.9", true)
	third := tc.addConfirmed(peer, tc.peerTSN+2, "192.0.2.10", false)
	if ps := a.Paths(nil); len(ps) != 3 || ps[1].State != api.PathActive || ps[2].State != api.PathUnconfirmed {
		t.Fatalf("paths %+v", ps)
	}
	tc.writeFrom(second, a.localTag, peer.sign(0, chunk.HMACSHA1, asconfChunk(t, tc.peerTSN+3,
		asconfReq(t, chunk.ParamDeleteIPAddress, 2, "0.0.0.0"))))
	if _, _, res := tc.wantASCONFAck(peer); res[2] != 0 {
		t.Fatalf("wildcard delete: %v", res)
	}
	removed := map[netip.AddrPort]bool{}
	for range 2 {
		removed[transportOf(tc.nextAddrEvent(api.AddrRemoved).Addr)] = true
	}
	if !removed[peerAddr] || !removed[third] {
		t.Fatalf("removed %v, want %v and %v", removed, peerAddr, third)
	}
	if ps := a.Paths(nil); len(ps) != 1 || ps[0].Addr != second {
		t.Fatalf("paths %+v, want %v alone", ps, second)
	}
	if p, _ := a.Peer(); p != second {
		t.Fatalf("association keyed by %v, want %v", p, second)
	}
	if s := a.stats.ASCONF; s.AddrsDeleted != 2 {
		t.Fatalf("counters %+v", s)
	}
	tc.wantState(stateEstablished)
}
