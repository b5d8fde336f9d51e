package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Path management of a multi-homed peer (Config.Paths.Multihoming): RFC
// 9260 sections 5.4, 8.2, 8.3 and RFC 7829. Without it, or with a peer
// listing no other address, a.paths is nil and heartbeat.go alone runs.
//
// a.paths[0] is the handshake's address (confirmed, primary, engine path
// 0). The other addresses start unconfirmed and get a HEARTBEAT with their
// own nonce until acknowledged (section 5.4), within the association's
// bounds of pathprobe.go; only then does the engine get a path for them. Idle confirmed paths get a HEARTBEAT every
// HB.interval + RTO with jitter (8.3). Beyond the PF threshold a path is
// potentially failed: data moves to another active path and a HEARTBEAT
// probes it every RTO; beyond Path.Max.Retrans it is inactive. A HEARTBEAT
// ACK makes it active again, and the primary takes the data back unless
// Config.Paths.NoPrimaryReturn.

// peerPath is one peer address of a multi-homed association.
type peerPath struct {
	addr   netip.AddrPort
	state  api.PathState
	pp     api.PathParams // its settings (pathparams.go)
	eng    int            // transfer engine path index; -1 while unconfirmed
	errors int            // errors while unconfirmed (the engine path counts after)
	// Heartbeat: nonce and send time of the outstanding HEARTBEAT, and
	// when the next is due.
	nonce  uint64
	sentAt time.Time
	out    bool
	next   time.Time
}

// setupPaths creates the paths of the peer's other addresses on entering
// ESTABLISHED (Config.Paths.Multihoming).
func (a *Assoc) setupPaths(now time.Time) {
	if !a.ep.cfg.Multihoming || a.data.eng == nil || a.paths != nil {
		return
	}
	primary := a.key.peer.Addr().Unmap()
	for _, ip := range a.peerAddrs {
		if ip == primary {
			continue
		}
		if len(a.paths) >= maxPeerAddrs {
			break // the engine's and the HEARTBEAT bitmap's bound
		}
		if a.paths == nil {
			a.paths = append(a.paths, peerPath{addr: a.key.peer, state: api.PathActive, eng: 0, pp: a.pp})
		}
		addr := netip.AddrPortFrom(ip, a.key.peer.Port())
		key := assocKey{peer: addr, localPort: a.key.localPort, peerPort: a.key.peerPort}
		if a.ep.assocs[key] != nil {
			continue // another association has it: not ours to use
		}
		a.ep.assocs[key] = a
		// 5.4: heartbeat UNCONFIRMED addresses as soon as the association is
		// up.
		a.paths = append(a.paths, peerPath{addr: addr, eng: -1, next: now, pp: a.pp})
	}
	a.dest = a.key.peer
	if a.paths != nil {
		// HEARTBEAT ACKs owed from before: to the default destination.
		a.pend.hbAckTo = append(a.pend.hbAckTo[:0], make([]netip.AddrPort, len(a.pend.heartbeatAcks))...)
	}
	a.schedulePaths()
}

// removePaths takes the extra addresses out of the endpoint's index.
func (a *Assoc) removePaths() {
	for i := 1; i < len(a.paths); i++ {
		key := assocKey{peer: a.paths[i].addr, localPort: a.key.localPort, peerPort: a.key.peerPort}
		if a.ep.assocs[key] == a {
			delete(a.ep.assocs, key)
		}
	}
}

// sendTo returns the destination of the packet appendPacket built last.
func (a *Assoc) sendTo() netip.AddrPort {
	if a.paths == nil {
		if a.initAddrs != nil {
			return a.initDest()
		}
		return a.key.peer
	}
	return a.dest
}

// pathRTO returns the RTO of path i, RTO.Initial while unconfirmed
// (6.3.1 C1).
func (a *Assoc) pathRTO(i int) time.Duration {
	if e := a.paths[i].eng; e >= 0 {
		return a.data.eng.PathAt(e).RTO()
	}
	return a.ep.cfg.RTOInitial
}

// schedulePaths arms the path heartbeat timer at the earliest due path.
func (a *Assoc) schedulePaths() {
	var d time.Time
	for i := range a.paths {
		d = earliest(d, a.paths[i].next)
	}
	if d.IsZero() {
		a.timers.stop(timerPaths)
		return
	}
	a.timers.at[timerPaths], a.timers.stale = d, true
}

// probed reports whether path i is heartbeated here: every path but an
// active primary (heartbeat.go's).
func (a *Assoc) probed(i int) bool { return i > 0 || a.paths[0].state != api.PathActive }

// pathTimer sends the due heartbeats and counts an error for each one
// unacknowledged within one RTO (8.3).
func (a *Assoc) pathTimer(now time.Time) {
	if a.heartbeatsStopped() {
		for i := range a.paths {
			a.paths[i].next = time.Time{}
		}
		return
	}
	for i := range a.paths {
		p := &a.paths[i]
		if p.next.IsZero() || p.next.After(now) {
			continue
		}
		if !a.probed(i) {
			p.next = time.Time{}
			continue
		}
		if p.state == api.PathUnconfirmed {
			// Section 5.4, bounded per association (pathprobe.go).
			if !a.unconfirmedProbe(now, i) {
				continue
			}
		} else {
			if p.out {
				a.pathError(now, i)
			}
			if p.state == api.PathActive {
				p.next = a.idleHeartbeat(now, i)
			} else {
				// PF or inactive (RFC 7829 section 5.1): once per RTO.
				p.next = now.Add(a.pathRTO(i))
			}
		}
		p.nonce = uint64(a.ep.random32())<<32 | uint64(a.ep.random32())
		p.sentAt, p.out = now, true
		a.pend.pathHB |= 1 << i
		a.stats.HeartbeatsOut++
		a.ep.markReady(a)
	}
	a.schedulePaths()
}

// pathError counts one error on path i and applies the thresholds.
func (a *Assoc) pathError(now time.Time, i int) {
	p := &a.paths[i]
	n := 0
	if p.eng >= 0 {
		n = a.data.eng.PathAt(p.eng).Fault()
	} else {
		p.errors++
		n = p.errors
	}
	a.pathThresholds(now, i, n)
}

// pathThresholds moves path i to potentially failed (RFC 7829) or inactive
// (8.2, beyond Path.Max.Retrans) for an error count of n.
func (a *Assoc) pathThresholds(now time.Time, i, n int) {
	p := &a.paths[i]
	if p.state == api.PathUnconfirmed {
		return
	}
	st := p.state
	switch {
	case n > p.pp.PathMaxRetransmits:
		st = api.PathInactive
	case n > p.pp.PFThreshold:
		st = api.PathPotentiallyFailed
	}
	if st == p.state {
		return
	}
	a.ep.trace(a, "path %v %v -> %v", p.addr, p.state, st)
	if p.state == api.PathActive {
		a.stats.PathFailovers++
		if p.next.IsZero() || p.next.Sub(now) > a.pathRTO(i) {
			p.next = now.Add(a.pathRTO(i)) // probe it every RTO
		}
	}
	p.state = st
	a.emitPath(i, api.AddrReachability)
	a.data.eng.SetPathDown(p.eng, true)
	if a.data.eng.Primary() == p.eng {
		if j := a.alternatePath(i); j >= 0 {
			a.ep.trace(a, "data moves to path %v", a.paths[j].addr)
			a.data.eng.SetPrimary(a.paths[j].eng)
		}
	}
	a.schedulePaths()
}

// alternatePath returns an active confirmed path other than i (the
// primary first), or -1.
func (a *Assoc) alternatePath(i int) int {
	best := -1
	for j := range a.paths {
		if j != i && a.paths[j].state == api.PathActive {
			if j == a.primary {
				return j
			}
			if best < 0 {
				best = j
			}
		}
	}
	return best
}

// pathFaults applies the T3-rtx expiries the engine reports per path.
func (a *Assoc) pathFaults(now time.Time) {
	f := a.data.eng.FaultedPaths()
	for i := range a.paths {
		if e := a.paths[i].eng; e >= 0 && f&(1<<e) != 0 {
			a.pathThresholds(now, i, a.data.eng.PathAt(e).ErrorCount())
		}
	}
}

// pathHeartbeatAck handles a HEARTBEAT ACK carrying a path's nonce and
// reports whether it was one; a matching nonce confirms the address
// (section 5.4).
func (a *Assoc) pathHeartbeatAck(now time.Time, nonce uint64, sent time.Time) bool {
	for i := range a.paths {
		p := &a.paths[i]
		if !p.out || p.nonce != nonce || !sent.Equal(p.sentAt) {
			continue
		}
		p.out = false
		a.stats.HeartbeatAcks++
		eng := a.data.eng
		if p.state == api.PathUnconfirmed {
			e, err := eng.AddPath(p.addr.Addr().Is6())
			if err != nil {
				// No engine slot (deleted paths' slots still named by
				// chunks in flight): the address stays unconfirmed and
				// is not probed again.
				a.ep.trace(a, "path %v not confirmed: %v", p.addr, err)
				p.errors = max(p.errors, p.pp.PathMaxRetransmits+1)
				p.next = time.Time{}
				a.schedulePaths()
				return true
			}
			p.eng = e
			a.stats.PathsConfirmed++
			a.startPathPMTU(now, e)
			a.ep.trace(a, "path %v confirmed", p.addr)
		}
		changed := p.state != api.PathActive
		// Section 8.3: also clear the association's error counter.
		a.errCount = 0
		ep := eng.PathAt(p.eng)
		ep.RTTSample(now, now.Sub(sent))
		ep.ClearErrors()
		p.errors = 0
		returned := false
		if p.state != api.PathActive {
			p.state = api.PathActive
			eng.SetPathDown(p.eng, false)
			if i == a.primary && !a.ep.cfg.NoPrimaryReturn || a.paths[a.enginePrimary()].state != api.PathActive {
				returned = i == a.primary && eng.Primary() != p.eng
				eng.SetPrimary(p.eng)
			}
		}
		if changed {
			a.emitPath(i, api.AddrReachability)
		}
		if returned {
			// The data is back on the primary: "made primary" again.
			a.emitPath(i, api.AddrMadePrimary)
		}
		p.next = a.idleHeartbeat(now, i)
		a.schedulePaths()
		return true
	}
	return false
}

// appendPathHeartbeat builds a packet holding the HEARTBEAT owed to one
// path, addressed to it, and reports whether it did.
func (a *Assoc) appendPathHeartbeat(buf []byte) ([]byte, bool) {
	if a.pend.has(ctlHeartbeat) {
		// heartbeat.go's HEARTBEAT goes to the handshake's address alone.
		a.pend.clear(ctlHeartbeat)
		start := len(buf)
		b := appendHeader(buf, a.key.localPort, a.key.peerPort, a.peerTag)
		b = appendHeartbeat(b, a.appendHeartbeatInfo(a.ep.scratch[:0]))
		a.dest = a.key.peer
		return a.finishOwn(a.sealAuth(b, start), start), true
	}
	for i := range a.paths {
		if a.pend.pathHB&(1<<i) == 0 {
			continue
		}
		a.pend.pathHB &^= 1 << i
		p := &a.paths[i]
		if !p.out {
			continue
		}
		start := len(buf)
		b := appendHeader(buf, a.key.localPort, a.key.peerPort, a.peerTag)
		info := binary.BigEndian.AppendUint64(a.ep.scratch[:0], p.nonce)
		info = binary.BigEndian.AppendUint64(info, uint64(p.sentAt.UnixNano()))
		b = appendHeartbeat(b, info)
		a.dest = p.addr
		return a.finishOwn(a.sealAuth(b, start), start), true
	}
	return buf, false
}

// dataDest sets the destination of the packet appendPacket built: the
// engine's choice for its DATA, else the engine's primary (which moved off
// a failed path, so SHUTDOWN and SHUTDOWN ACK go there).
func (a *Assoc) dataDest() {
	e := a.data.eng.DataDest()
	if a.state == stateShutdownSent || a.state == stateShutdownAckSent {
		e = a.data.eng.Primary()
	}
	for i := range a.paths {
		if a.paths[i].eng == e {
			a.dest = a.paths[i].addr
			return
		}
	}
	a.dest = a.key.peer
}

// enginePrimary returns the index in a.paths of the path new data goes to.
func (a *Assoc) enginePrimary() int {
	e := a.data.eng.Primary()
	for i := range a.paths {
		if a.paths[i].eng == e {
			return i
		}
	}
	return 0
}

// PathInfo describes one peer address of the association (RFC 6458's
// SCTP_GET_PEER_ADDR_INFO).
type PathInfo struct {
	Addr      netip.AddrPort
	State     api.PathState
	Primary   bool // the primary path: the handshake's address or SetPrimary's
	InUse     bool // new data goes there now (the primary, or the path it moved to)
	SRTT, RTO time.Duration
	Cwnd, MTU int
	Errors    int // error count (section 8.2)
	// PMTU is the path's path MTU discovery state (RFC 8899); MTU is
	// then its PLPMTU.
	PMTU api.PMTUState
}

// Paths appends a description of each peer address to dst, the
// handshake's first.
func (a *Assoc) Paths(dst []PathInfo) []PathInfo {
	eng := a.data.eng
	if eng == nil {
		eng = a.data.kept
	}
	if a.paths == nil {
		pi := PathInfo{Addr: a.key.peer, State: api.PathActive, Primary: true, InUse: true, RTO: a.currentRTO()}
		if eng != nil {
			p := eng.PathAt(0)
			pi.SRTT, pi.RTO, pi.Cwnd, pi.MTU, pi.Errors = p.SRTT(), p.RTO(), p.Cwnd(), p.MTU(), p.ErrorCount()
			pi.PMTU = p.Prober().State()
		}
		return append(dst, pi)
	}
	for i := range a.paths {
		p := &a.paths[i]
		pi := PathInfo{Addr: p.addr, State: p.state, Primary: i == a.primary, RTO: a.ep.cfg.RTOInitial, Errors: p.errors, MTU: a.ep.cfg.MTU}
		if ep := eng.PathAt(p.eng); ep != nil {
			pi.SRTT, pi.RTO, pi.Cwnd, pi.MTU, pi.Errors = ep.SRTT(), ep.RTO(), ep.Cwnd(), ep.MTU(), ep.ErrorCount()
			pi.PMTU = ep.Prober().State()
			pi.InUse = eng.Primary() == p.eng
		}
		dst = append(dst, pi)
	}
	return dst
}

// SetPrimary makes peer address ip the primary path (RFC 9260 section 11.1
// "Set Primary"). It returns ErrUnknownAddress or, for an address not yet
// confirmed (section 5.4), ErrUnconfirmedAddress.
func (a *Assoc) SetPrimary(now time.Time, ip netip.Addr) error {
	defer a.ep.reached(a)
	ip = ip.Unmap()
	if a.closed {
		return ErrClosed
	}
	if a.paths == nil {
		if ip == a.key.peer.Addr().Unmap() {
			return nil
		}
		return api.ErrUnknownAddress
	}
	for i := range a.paths {
		p := &a.paths[i]
		if p.addr.Addr().Unmap() != ip {
			continue
		}
		if p.state == api.PathUnconfirmed {
			return api.ErrUnconfirmedAddress
		}
		made := a.primary != i
		a.primary = i
		if p.state == api.PathActive {
			made = made || a.data.eng.Primary() != p.eng
			a.data.eng.SetPrimary(p.eng)
		}
		if made {
			// RFC 6458's SCTP_ADDR_MADE_PRIM.
			a.emitPath(i, api.AddrMadePrimary)
		}
		return nil
	}
	return api.ErrUnknownAddress
}

// emitPath reports a reachability change of path i, or that it became
// the primary (SCTP_PEER_ADDR_CHANGE).
func (a *Assoc) emitPath(i int, change api.AddrChange) {
	p := &a.paths[i]
	a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(p.addr), Reachable: p.state == api.PathActive,
		PathState: p.state, MadePrimary: change == api.AddrMadePrimary, Change: change})
}
