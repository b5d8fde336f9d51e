package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// sendInit queues the INIT (or its retransmission) and starts T1-init
// (section 5.1 A).
func (a *Assoc) sendInit(now time.Time) {
	a.pend.init = true
	a.initSent = now
	a.timers.start(timerT1Init, now, a.t1RTO)
	a.ep.markReady(a)
}

// sendCookieEcho queues the COOKIE ECHO (or its retransmission) and starts
// T1-cookie (section 5.1 C).
func (a *Assoc) sendCookieEcho(now time.Time) {
	a.pend.set(ctlCookieEcho)
	a.initSent = now
	a.timers.start(timerT1Cookie, now, a.t1RTO)
	a.ep.markReady(a)
}

// fromCookie fills the TCB from a State Cookie and starts the data plane.
func (a *Assoc) fromCookie(now time.Time, c *cookie) {
	a.localTag, a.peerTag = c.localTag, c.peerTag
	a.localTie, a.peerTie = 0, 0
	a.localTSN, a.peerTSN = c.localTSN, c.peerTSN
	a.peerRwnd = c.peerRwnd
	a.localOS, a.localMIS = c.localOS, c.localMIS
	a.peerOS, a.peerMIS = c.peerOS, c.peerMIS
	a.peerExt = c.peerExt
	a.asc, a.ascOut = nil, nil
	if a.auth != nil && len(c.authVec) > 0 {
		a.auth.random = c.random
		a.auth.negotiate(&a.ep.cfg, c.authVec)
	}
	for i := 0; i+16 <= len(c.addrs); i += 16 {
		a.addPeerAddr(netip.AddrFrom16([16]byte(c.addrs[i : i+16])).Unmap())
	}
	a.negotiateStreams()
	a.startData(now)
}

// initAck5_1B handles the INIT ACK in COOKIE-WAIT (section 5.1 B): record
// the peer's parameters, echo the cookie, start T1-cookie, enter
// COOKIE-ECHOED.
func (a *Assoc) initAck5_1B(now time.Time, p *inPacket, c *rxChunk) disp {
	var in initInfo
	if len(p.chunks) != 1 || !parseInit(c, &in) {
		// Section 5.1: "An INIT or INIT ACK chunk MUST NOT be bundled
		// with any other chunk."
		a.stats.Malformed++
		return dispStop
	}
	switch in.check(true) {
	case initOK:
	case initZeroTag:
		// Section 3.3.3: an INIT ACK with Initiate Tag 0 in COOKIE-WAIT: "MUST
		// destroy the TCB and SHOULD send an ABORT chunk with the T bit set."
		a.stats.Violations++
		a.ep.replyAbort(p.from, p.dstPort, p.srcPort, a.localTag, true, nil)
		a.fail(reasonInvalidParameter, chunk.CauseInvalidParam)
		return dispDeleted
	case initBadMandatory:
		a.stats.Violations++
		a.ep.rejectInit(p, &in, initBadMandatory)
		if in.rwnd < 1500 && in.os != 0 && in.mis != 0 {
			// "A receiver of an INIT ACK chunk with the a_rwnd value set
			// to a value smaller than 1500 MUST discard the packet".
			return dispStop
		}
		// An INIT ACK with OS 0: "MUST destroy the TCB and SHOULD send an
		// ABORT chunk."
		a.fail(reasonInvalidParameter, chunk.CauseInvalidParam)
		return dispDeleted
	case initHostName:
		// Section 3.3.3 note 3: a Host Name Address "MUST send an ABORT".
		a.stats.Violations++
		a.ep.rejectInit(p, &in, initHostName)
		a.fail(reasonInvalidParameter, chunk.CauseUnresolvableAddress)
		return dispDeleted
	case initNoCookie:
		a.stats.Violations++
		a.ep.rejectInit(p, &in, initNoCookie)
		a.fail(reasonInvalidParameter, chunk.CauseMissingParam)
		return dispDeleted
	}
	a.timers.stop(timerT1Init)
	a.initAnswered(p.from)
	a.peerTag = in.tag
	a.peerTSN = in.tsn
	a.peerRwnd = in.rwnd
	a.peerOS, a.peerMIS = in.os, in.mis
	a.peerExt = in.ext
	if a.auth != nil && in.auth.present() {
		var vec [maxAuthVector]byte
		a.auth.negotiate(&a.ep.cfg, in.auth.appendVector(vec[:0]))
	}
	for _, ip := range in.addrs[:in.naddrs] {
		a.addPeerAddr(ip)
	}
	if src := p.from.Addr().Unmap(); src != a.key.peer.Addr().Unmap() {
		// Section 5.1.2: the peer's addresses are the listed ones "AND the
		// source IP address".
		a.addPeerAddr(src)
	}
	a.stats.PeerAddrsIgnored += uint64(in.ignored)
	a.negotiateStreams()
	a.cookie = append(a.cookie[:0], in.cookie...)
	// Section 3.2.2: bundle the "Unrecognized Parameters" ERROR with
	// the response.
	a.pend.unrecognized = append(a.pend.unrecognized[:0], in.unrecognized...)
	a.startData(now)
	if a.initRetx == 0 {
		// Karn: only an INIT that was not retransmitted gives a sample.
		a.rttSample(now, now.Sub(a.initSent))
	}
	a.initRetx, a.initNo = 0, initRefusals{}
	a.t1RTO = a.currentRTO()
	a.setState(stateCookieEchoed)
	a.sendCookieEcho(now)
	return dispStop
}

// validateInit parses and checks an INIT received with a TCB, answering
// what must be answered; a bad INIT "MUST NOT change the state of any
// existing association" (section 3.3.2).
func (a *Assoc) validateInit(p *inPacket, c *rxChunk, in *initInfo) bool {
	if !parseInit(c, in) {
		a.stats.Malformed++
		return false
	}
	switch prob := in.check(false); prob {
	case initOK:
		return true
	case initZeroTag:
		a.stats.Malformed++
	default:
		a.stats.Violations++
		a.ep.rejectInit(p, in, prob)
	}
	return false
}

// addsAddresses reports whether an INIT adds a peer address (listed or its
// source, section 5.1.2) and if so queues the ABORT "Restart of an
// Association with New Addresses" (sections 5.2.1, 5.2.2). Addresses the
// peer cannot own and those beyond maxPeerAddrs are ignored as at the
// handshake. Without multihoming only the source counts, and it is the
// key's.
func (a *Assoc) addsAddresses(p *inPacket, in *initInfo) bool {
	if !a.ep.cfg.Multihoming {
		return false
	}
	isNew := func(ip netip.Addr) bool { return !a.knowsPeerAddr(ip) && ownableAddr(ip, p.from.Addr()) }
	found := isNew(p.from.Addr())
	for _, ip := range in.addrs[:in.naddrs] {
		found = found || isNew(ip)
	}
	if !found {
		return false
	}
	b, at := chunk.BeginCause(a.ep.scratch[:0], chunk.CauseRestartNewAddresses)
	if isNew(p.from.Addr()) {
		b, _ = chunk.AppendAddrParam(b, p.from.Addr().Unmap())
	}
	for _, ip := range in.addrs[:in.naddrs] {
		if isNew(ip) && ip != p.from.Addr().Unmap() {
			b, _ = chunk.AppendAddrParam(b, ip)
		}
	}
	b, _ = chunk.EndCause(b, at)
	a.ep.scratch = b[:0]
	a.stats.RestartsRefused++
	a.ep.replyAbort(p.from, p.dstPort, p.srcPort, in.tag, false, b)
	return true
}

// initCollision5_2_1 handles an INIT in COOKIE-WAIT or COOKIE-ECHOED
// (section 5.2.1): answer with an INIT ACK carrying our own INIT's
// parameters and change nothing.
func (a *Assoc) initCollision5_2_1(now time.Time, p *inPacket, c *rxChunk) disp {
	var in initInfo
	if !a.validateInit(p, c, &in) {
		return dispStop
	}
	ck := cookie{localTag: a.localTag, localTSN: a.localTSN, localOS: a.localOS, localMIS: a.localMIS}
	if a.auth != nil {
		// The INIT ACK uses the parameters of our INIT, its RANDOM too.
		ck.random, ck.randomIn = a.auth.random, true
	}
	if a.state == stateCookieEchoed {
		// A new address: "the entire INIT chunk MUST be discarded".
		if a.addsAddresses(p, &in) {
			return dispStop
		}
		// COOKIE-ECHOED "MUST populate its Tie-Tags".
		a.localTie, a.peerTie = a.localTag, a.peerTag
		ck.localTie, ck.peerTie = a.localTie, a.peerTie
	}
	a.ep.stats.InitsIn++
	// "the T1-init timer MUST be left running".
	if p.from != a.key.peer {
		// An INIT from another address of the peer: section 5.2.1's MUSTs
		// send the INIT ACK only to an address given for the association and
		// listed by the INIT, so it goes where our INIT went, and the cookie
		// is bound to that address.
		q := *p
		q.from = a.key.peer
		a.ep.sendInitAck(now, &q, &in, &ck)
		return dispStop
	}
	a.ep.sendInitAck(now, p, &in, &ck)
	return dispStop
}

// initUnexpected5_2_2 handles an INIT in ESTABLISHED and the shutdown
// states but SHUTDOWN-ACK-SENT (section 5.2.2): INIT ACK with a new tag and
// the Tie-Tags; the association is not changed.
func (a *Assoc) initUnexpected5_2_2(now time.Time, p *inPacket, c *rxChunk) disp {
	var in initInfo
	if !a.validateInit(p, c, &in) {
		return dispStop
	}
	// New addresses: ABORT with the INIT's Initiate Tag as its tag.
	if a.addsAddresses(p, &in) {
		return dispStop
	}
	// Tie-Tags in the cookie, a new Initiate Tag, other parameters
	// copied from the association.
	a.localTie, a.peerTie = a.localTag, a.peerTag
	ck := cookie{
		localTag: a.ep.newTag(), localTSN: chunk.TSN(a.ep.random32()),
		localOS: a.localOS, localMIS: a.localMIS,
		localTie: a.localTie, peerTie: a.peerTie,
	}
	a.ep.stats.InitsIn++
	a.ep.sendInitAck(now, p, &in, &ck)
	return dispStop
}

// initInShutdownAckSent9_2: an INIT in SHUTDOWN-ACK-SENT retransmits the
// SHUTDOWN ACK (section 9.2).
func (a *Assoc) initInShutdownAckSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	a.pend.set(ctlShutdownAck)
	return dispStop
}

// discardInitAck5_2_3: an INIT ACK outside COOKIE-WAIT and CLOSED is
// discarded.
func (a *Assoc) discardInitAck5_2_3(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispStop
}

// cookieEchoTCB5_2_4 handles a COOKIE ECHO when a TCB exists, with the
// action table of section 5.2.4 (A: restart, B: collision, C: late, D:
// duplicate).
func (a *Assoc) cookieEchoTCB5_2_4(now time.Time, p *inPacket, c *rxChunk) disp {
	if c != &p.chunks[0] {
		// Section 5.1: "it MUST be the first chunk in the packet".
		a.stats.Malformed++
		return dispStop
	}
	var ck cookie
	if !a.ep.openCookieEcho(p, &ck, &a.stats) {
		return dispStop
	}
	lt, pt := ck.localTag == a.localTag, ck.peerTag == a.peerTag
	if ck.staleness(now) > 0 && !(lt && pt) {
		// Step 3: a cookie older than its lifespan whose tags do not match is
		// discarded with an ERROR "Stale Cookie".
		a.ep.replyStaleCookie(now, p, &ck, &a.stats)
		return dispStop
	}
	switch {
	case !lt && !pt && ck.localTie == a.localTag && ck.peerTie == a.peerTag:
		return a.cookieRestartA(now, p, &ck)
	case lt && (!pt || a.peerTag == 0):
		// Action B: stay in or enter ESTABLISHED, take the peer's tag from
		// the cookie, stop T1, send COOKIE ACK.
		switch {
		case a.state == stateCookieWait:
			a.fromCookie(now, &ck)
		case ck.peerTSN != a.peerTSN && !a.data.gotData:
			// The peer's TSNs start where the INIT this cookie answered said.
			a.rebaseData(now, &ck)
		}
		a.peerTag = ck.peerTag
		a.establish(now)
		a.pend.set(ctlCookieAck)
		return dispNext
	case !lt && pt && ck.localTie == 0 && ck.peerTie == 0:
		// Action C: silently discard.
		a.stats.Ignored++
		return dispStop
	case lt && pt:
		// Action D: enter ESTABLISHED from COOKIE-ECHOED, stop T1-cookie,
		// send COOKIE ACK.
		a.establish(now)
		a.pend.set(ctlCookieAck)
		return dispNext
	}
	// Other cases: silently discard.
	a.stats.Ignored++
	return dispStop
}

// cookieRestartA is action A of section 5.2.4: the peer restarted.
func (a *Assoc) cookieRestartA(now time.Time, p *inPacket, ck *cookie) disp {
	if a.state == stateShutdownAckSent {
		// In SHUTDOWN-ACK-SENT: resend SHUTDOWN ACK and ERROR "Cookie
		// Received While Shutting Down" instead.
		a.pend.set(ctlShutdownAck)
		a.queueErrorCause(chunk.CauseCookieWhileShutdown, nil)
		return dispStop
	}
	// As an ABORT then a new COOKIE ECHO, with a RESTART notification
	// and congestion state reset. "Any SCTP DATA chunks MAY be
	// retained": unacknowledged messages are queued again on the new
	// engine.
	a.stats.Restarts++
	old := a.data.eng
	a.data.gotData = false
	a.timers.stopAll()
	a.pend = pending{heartbeatAcks: a.pend.heartbeatAcks[:0], hbAckTo: a.pend.hbAckTo[:0]}
	a.sackTo, a.ctlTo = netip.AddrPort{}, netip.AddrPort{}
	// Paths are made again from the cookie's addresses.
	a.removePaths()
	a.paths = nil
	a.peerAddrs = a.peerAddrs[:0]
	a.ep.retag(a, ck.localTag)
	a.fromCookie(now, ck)
	if src := p.from.Addr().Unmap(); src != a.key.peer.Addr().Unmap() {
		a.addPeerAddr(src) // the restart came from another of its addresses
	}
	a.requeue(now, old)
	a.initRetx, a.t2Retx, a.errCount = 0, 0, 0
	a.setState(stateEstablished)
	a.pend.set(ctlCookieAck)
	a.emit(api.Event{Kind: api.EventRestart})
	a.startHeartbeat(now)
	a.setupPaths(now)
	return dispNext
}

// establish enters ESTABLISHED from the COOKIE states (stopping T1) and
// tells the user; otherwise it only stops T1.
func (a *Assoc) establish(now time.Time) {
	a.timers.stop(timerT1Init)
	a.timers.stop(timerT1Cookie)
	if a.state != stateCookieWait && a.state != stateCookieEchoed {
		return
	}
	a.pend.init = false
	a.pend.clear(ctlCookieEcho)
	a.initRetx = 0
	a.setState(stateEstablished)
	a.stats.AssocsUp++
	a.emit(api.Event{Kind: api.EventUp})
	a.startHeartbeat(now)
	a.setupPaths(now)
}

// cookieAck5_1E: COOKIE ACK in COOKIE-ECHOED enters ESTABLISHED.
func (a *Assoc) cookieAck5_1E(now time.Time, p *inPacket, c *rxChunk) disp {
	if a.initRetx == 0 {
		a.rttSample(now, now.Sub(a.initSent))
	}
	a.establish(now)
	return dispNext
}

// discardCookieAck5_2_5: COOKIE ACK elsewhere is discarded.
func (a *Assoc) discardCookieAck5_2_5(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// staleCookie5_2_6 answers an ERROR "Stale Cookie" in COOKIE-ECHOED with a
// new INIT carrying a Cookie Preservative (section 5.2.6).
func (a *Assoc) staleCookie5_2_6(now time.Time, staleness time.Duration) {
	a.initRetx++
	a.stats.HandshakeRetx++
	if a.initRetx > a.ep.cfg.MaxInitRetransmits {
		a.fail(reasonInitTimeout, chunk.CauseStaleCookie)
		return
	}
	// Use the measured RTT, adding no more than 1 s.
	rtt := min(now.Sub(a.initSent), time.Second)
	a.preserve = staleness + rtt
	a.timers.stop(timerT1Cookie)
	a.pend.clear(ctlCookieEcho)
	a.cookie = a.cookie[:0]
	a.peerTag = 0
	a.data.close(&a.stats)
	a.setState(stateCookieWait)
	a.sendInit(now)
}

// rebaseData rebuilds the engine for the peer's parameters in a cookie
// (action B), queueing the user's messages again in order.
func (a *Assoc) rebaseData(now time.Time, ck *cookie) {
	old := a.data.eng
	a.peerTSN, a.peerRwnd = ck.peerTSN, ck.peerRwnd
	a.peerOS, a.peerMIS = ck.peerOS, ck.peerMIS
	a.negotiateStreams()
	a.startData(now)
	a.requeue(now, old)
}

// requeue moves the unacknowledged messages of the old engine to the
// current one in order, PR policies included; messages on streams that no
// longer exist are dropped and counted.
func (a *Assoc) requeue(now time.Time, old *transfer.Engine) {
	if old == nil || a.data.eng == nil {
		return
	}
	old.Drain(func(m transfer.Unsent) {
		pr := m.PR
		if pr.Policy == transfer.PRTTL {
			left := (m.Expiry.Sub(now) + time.Millisecond - 1) / time.Millisecond
			pr.Value = uint32(min(max(left, 0), 1<<31-1))
		}
		if err := a.data.eng.Queue(now, m.SID, m.PPID, m.Unordered, m.Payload, pr); err != nil {
			a.stats.Ignored++
		}
	})
}
