package assoc

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// Path selection of a multi-homed association, one rule per test: RFC
// 9260 sections 6.4 and 8.2, RFC 7829 section 5.1. The peer has three
// addresses; a path's errors are counted as an unanswered HEARTBEAT or an
// expired T3-rtx would (pathError), and it answers again through the
// HEARTBEATs that probe it.

var peerAddr3 = netip.MustParseAddrPort("192.0.2.4:9899")

// mh3Server sets up an association with the endpoint as a multi-homed
// server whose peer lists peerAddr2 and peerAddr3 in its INIT, both
// confirmed (peerAddr3 first, so that the engine's path indexes differ
// from the association's). Idle HEARTBEATs are an hour apart: the only
// ones sent are those that probe unconfirmed and failed paths.
func mh3Server(t *testing.T, adj func(*Config), initParams ...[]byte) *testConn {
	t.Helper()
	cfg := testConfig()
	cfg.Multihoming = true
	cfg.HeartbeatInterval = time.Hour
	if adj != nil {
		adj(&cfg)
	}
	tc := newTestEndpoint(t, cfg)
	initParams = append(initParams, addrParam(t, peerAddr2.Addr().String()), addrParam(t, peerAddr3.Addr().String()))
	tc.connectServer(initParams...)
	tc.pump(map[netip.AddrPort]bool{peerAddr2: true}, func() bool { return tc.pathState(peerAddr3) == api.PathActive })
	tc.pump(nil, func() bool { return tc.pathState(peerAddr2) == api.PathActive })
	if i := tc.a.pathAt(peerAddr2); tc.a.paths[i].eng == i {
		t.Fatalf("engine path of %v is %d: the test wants the indexes to differ", peerAddr2, i)
	}
	tc.events = tc.events[:0]
	return tc
}

// pathState returns the state of the path to addr.
func (tc *testConn) pathState(addr netip.AddrPort) api.PathState {
	return tc.a.paths[tc.a.pathAt(addr)].state
}

// pump runs the timers, answering every HEARTBEAT but those to the
// addresses in cut from the address it went to, until done reports true
// (at most a minute of virtual time). The peer sends a HEARTBEAT of its
// own each round: probes of unconfirmed addresses are paced by what the
// peer sends (pathprobe.go).
func (tc *testConn) pump(cut map[netip.AddrPort]bool, done func() bool) {
	tc.t.Helper()
	end := tc.now.Add(time.Minute)
	for !done() {
		if tc.now.After(end) {
			tc.t.Fatalf("not done after a minute: paths %+v", tc.a.Paths(nil))
		}
		tc.advanceToTimer()
		tc.writeChunks(chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("peer's probe"))))
		tc.readPackets()
		sent := tc.sent
		tc.sent = nil
		for _, sp := range sent {
			if c := sp.p.find(chunk.TypeHeartbeat); c != nil && !cut[sp.to] {
				tc.writeFrom(sp.to, tc.a.localTag, chunkOf(chunk.TypeHeartbeatAck, 0, c.value()))
			}
		}
	}
}

// fail counts errors on the path to addr until it is in state st.
func (tc *testConn) fail(addr netip.AddrPort, st api.PathState) {
	tc.t.Helper()
	i := tc.a.pathAt(addr)
	for range 20 {
		if tc.a.paths[i].state == st {
			return
		}
		tc.a.pathError(tc.now, i)
	}
	tc.t.Fatalf("path %v in state %v, want %v", addr, tc.a.paths[i].state, st)
}

// inUse returns the address new data goes to, by Paths and by the DATA
// the endpoint sends, which must agree; the data is acknowledged.
func (tc *testConn) inUse() netip.AddrPort {
	tc.t.Helper()
	var use []netip.AddrPort
	for _, p := range tc.a.Paths(nil) {
		if p.InUse {
			use = append(use, p.Addr)
		}
	}
	to := tc.dataDests("probe of the data path")
	tc.writeChunks(sackChunk(uint32(tc.a.data.eng.NextTSN())-1, 65536))
	tc.readPackets()
	tc.sent = nil
	if len(use) != 1 || len(to) != 1 || to[0] != use[0] {
		tc.t.Fatalf("paths in use %v, DATA sent to %v", use, to)
	}
	return to[0]
}

// RFC 9260 section 8.2: "When the value in the error counter exceeds the
// protocol parameter 'Path.Max.Retrans' of that destination address, the
// endpoint SHOULD mark the destination transport address as inactive".
// RFC 7829 section 5.1 (paraphrase): when the error counter of an active
// destination exceeds PFMR, the destination is potentially failed. With
// PFMR 1 and Path.Max.Retrans 3: active after one error, potentially
// failed after two and three, inactive after four.
func TestPathErrorThresholds(t *testing.T) {
	tc := mh3Server(t, func(c *Config) { c.PFThreshold, c.PathMaxRetransmits = 1, 3 })
	i := tc.a.pathAt(peerAddr2)
	want := []api.PathState{api.PathActive, api.PathPotentiallyFailed, api.PathPotentiallyFailed, api.PathInactive}
	for n, st := range want {
		tc.a.pathError(tc.now, i)
		if got := tc.a.paths[i].state; got != st {
			t.Fatalf("after %d errors: %v, want %v", n+1, got, st)
		}
	}
}

// RFC 7829 section 5.1 (paraphrase): new data leaves a destination that
// became potentially failed for an active one; RFC 9260 section 6.4:
// "When its peer is multi-homed, an endpoint SHOULD send fresh
// transmissions to the primary path ... if the primary path is not in the
// ACTIVE state, the endpoint SHOULD send to an active path instead" —
// never to one potentially failed. Path 2 (peerAddr2) potentially failed,
// the primary failing moves the data to path 3, the only active one.
func TestPathFailoverToActiveOnly(t *testing.T) {
	tc := mh3Server(t, nil)
	if to := tc.inUse(); to != peerAddr {
		t.Fatalf("data to %v before any failure, want the primary %v", to, peerAddr)
	}
	tc.fail(peerAddr2, api.PathPotentiallyFailed)
	if to := tc.inUse(); to != peerAddr {
		t.Fatalf("data to %v after another path failed, want the primary %v", to, peerAddr)
	}
	tc.fail(peerAddr, api.PathPotentiallyFailed)
	if to := tc.inUse(); to != peerAddr3 {
		t.Fatalf("data to %v after the primary failed, want the only active path %v", to, peerAddr3)
	}
}

// RFC 9260 section 6.4 (above): with the primary active, fresh data goes
// to it. The data left the primary (potentially failed) for peerAddr2 and
// stayed there when the primary answered again (NoPrimaryReturn); when
// peerAddr2 fails in turn, the data goes back to the primary rather than
// to peerAddr3.
func TestPathFailoverPrefersPrimary(t *testing.T) {
	tc := mh3Server(t, func(c *Config) { c.NoPrimaryReturn = true })
	tc.fail(peerAddr3, api.PathPotentiallyFailed)
	tc.fail(peerAddr, api.PathPotentiallyFailed)
	if to := tc.inUse(); to != peerAddr2 {
		t.Fatalf("data to %v after the primary failed, want %v", to, peerAddr2)
	}
	cut := map[netip.AddrPort]bool{peerAddr3: true}
	tc.pump(cut, func() bool { return tc.pathState(peerAddr) == api.PathActive })
	tc.pump(nil, func() bool { return tc.pathState(peerAddr3) == api.PathActive })
	if to := tc.inUse(); to != peerAddr2 {
		t.Fatalf("data to %v after the primary answered, want %v (NoPrimaryReturn)", to, peerAddr2)
	}
	tc.fail(peerAddr2, api.PathPotentiallyFailed)
	if to := tc.inUse(); to != peerAddr {
		t.Fatalf("data to %v when its path failed, want the active primary %v", to, peerAddr)
	}
}

// RFC 7829 section 5.1 (paraphrase): when the primary leaves the PF state
// it is used again for new data, unless the user turned Primary Path
// Switchover off (Config.Paths.NoPrimaryReturn, RFC 7829 section 6.2),
// and then the data stays on the path it moved to; the return is reported
// as the primary made primary again (SCTP_ADDR_MADE_PRIM).
func TestPathPrimaryReturn(t *testing.T) {
	for _, noReturn := range []bool{false, true} {
		tc := mh3Server(t, func(c *Config) { c.NoPrimaryReturn = noReturn })
		tc.fail(peerAddr, api.PathPotentiallyFailed)
		moved := tc.inUse()
		if moved == peerAddr {
			t.Fatalf("NoPrimaryReturn %v: data stayed on the failed primary", noReturn)
		}
		tc.events = tc.events[:0]
		tc.pump(nil, func() bool { return tc.pathState(peerAddr) == api.PathActive })
		want := peerAddr
		if noReturn {
			want = moved
		}
		if to := tc.inUse(); to != want {
			t.Fatalf("NoPrimaryReturn %v: data to %v after the primary answered, want %v", noReturn, to, want)
		}
		made := false
		for _, e := range tc.events {
			made = made || e.Kind == api.EventPeerAddrChange && e.Change == api.AddrMadePrimary
		}
		if made == noReturn {
			t.Fatalf("NoPrimaryReturn %v: made-primary event %v", noReturn, made)
		}
	}
}

// RFC 9260 section 6.4 (above): a path other than the primary answering
// again does not take the data from the active primary.
func TestPathSecondaryReturnLeavesData(t *testing.T) {
	tc := mh3Server(t, nil)
	tc.fail(peerAddr3, api.PathPotentiallyFailed)
	tc.pump(nil, func() bool { return tc.pathState(peerAddr3) == api.PathActive })
	if to := tc.inUse(); to != peerAddr {
		t.Fatalf("data to %v after %v answered again, want the primary %v", to, peerAddr3, peerAddr)
	}
}

// RFC 7829 section 5.1 (paraphrase): a potentially failed destination is
// probed with a HEARTBEAT once per RTO (not at the idle HB.interval pace)
// until it answers or becomes inactive.
func TestPathPotentiallyFailedProbedPerRTO(t *testing.T) {
	tc := mh3Server(t, nil)
	tc.fail(peerAddr2, api.PathPotentiallyFailed)
	rto := tc.a.pathRTO(tc.a.pathAt(peerAddr2))
	var at []time.Time
	for len(at) < 3 {
		tc.advanceToTimer()
		tc.readPackets()
		for _, sp := range tc.sent {
			if sp.to == peerAddr2 && sp.p.find(chunk.TypeHeartbeat) != nil {
				at = append(at, tc.now)
			}
		}
		tc.sent = nil
		if tc.now.Sub(t0) > time.Hour {
			t.Fatalf("HEARTBEATs to the potentially failed path at %v", at)
		}
	}
	for k := 1; k < len(at); k++ {
		if gap := at[k].Sub(at[k-1]); gap > 2*rto {
			t.Fatalf("HEARTBEATs to the potentially failed path %v apart, want about one RTO (%v)", gap, rto)
		}
	}
}

// RFC 9260 section 6.4: "When its peer is multi-homed, an endpoint SHOULD
// send fresh transmissions to the primary path. However, if the primary
// path is not in the ACTIVE state, the endpoint SHOULD send to an active
// path instead" (paraphrase of the second sentence's wording): a control
// chunk that answers nothing (here a RE-CONFIG adding streams) goes where
// the data goes, not to the potentially failed primary.
func TestPathControlFollowsData(t *testing.T) {
	tc := mh3Server(t, nil, param(chunk.ParamSupportedExtensions, []byte{byte(chunk.TypeReconfig)}))
	tc.fail(peerAddr, api.PathPotentiallyFailed)
	use := tc.inUse()
	if use == peerAddr {
		t.Fatal("data stayed on the failed primary")
	}
	if _, err := tc.a.AddStreams(tc.now, 1, 0); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	for _, sp := range tc.sent {
		if sp.p.find(chunk.TypeReconfig) != nil {
			if sp.to != use {
				t.Fatalf("RE-CONFIG to %v, want %v where the data goes", sp.to, use)
			}
			return
		}
	}
	t.Fatal("no RE-CONFIG sent")
}

// RFC 9260 section 6.4 (above): SHUTDOWN is a fresh transmission too: it
// goes to the path the data uses. The user made peerAddr2 (whose engine
// path index is not its index among the peer's addresses) the primary;
// the SHUTDOWN goes there.
func TestPathShutdownFollowsData(t *testing.T) {
	tc := mh3Server(t, nil)
	if err := tc.a.SetPrimary(tc.now, peerAddr2.Addr()); err != nil {
		t.Fatal(err)
	}
	if use := tc.inUse(); use != peerAddr2 {
		t.Fatalf("data to %v after SetPrimary(%v)", use, peerAddr2)
	}
	tc.events = tc.events[:0]
	if err := tc.a.Shutdown(tc.now); err != nil {
		t.Fatal(err)
	}
	tc.readPackets()
	for _, sp := range tc.sent {
		if sp.p.find(chunk.TypeShutdown) != nil {
			if sp.to != peerAddr2 {
				t.Fatalf("SHUTDOWN to %v, want the primary in use %v", sp.to, peerAddr2)
			}
			return
		}
	}
	t.Fatal("no SHUTDOWN sent")
}

// RFC 9260 section 6.4: "An endpoint SHOULD transmit reply chunks (e.g.,
// SACK, HEARTBEAT ACK, etc.) to the same destination transport address
// from which it received the DATA or control chunk to which it is
// replying." The SACK answers DATA: a packet without DATA from another
// address (a HEARTBEAT) in between does not redirect it; the HEARTBEAT ACK
// goes to that packet's source.
func TestPathSackIgnoresControlSource(t *testing.T) {
	tc := mh3Server(t, nil)
	tc.writeFrom(peerAddr2, tc.a.localTag, dataChunk(0x03, tc.peerTSN, 0, 0, 0, []byte("one")))
	tc.writeFrom(peerAddr3, tc.a.localTag, chunkOf(chunk.TypeHeartbeat, 0, param(chunk.ParamHeartbeatInfo, []byte("12345678"))))
	sacks, acks := 0, 0
	for range 3 {
		tc.readPackets()
		for _, sp := range tc.sent {
			if sp.p.find(chunk.TypeSack) != nil {
				sacks++
				if sp.to != peerAddr2 {
					t.Fatalf("SACK for DATA from %v sent to %v", peerAddr2, sp.to)
				}
			}
			if sp.p.find(chunk.TypeHeartbeatAck) != nil {
				acks++
				if sp.to != peerAddr3 {
					t.Fatalf("HEARTBEAT ACK for a HEARTBEAT from %v sent to %v", peerAddr3, sp.to)
				}
			}
		}
		tc.sent = nil
		if sacks > 0 && acks > 0 {
			return
		}
		tc.advanceToTimer() // the delayed SACK
	}
	t.Fatalf("%d SACKs, %d HEARTBEAT ACKs", sacks, acks)
}
