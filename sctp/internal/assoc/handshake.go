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
		// Section 3.3.3: "If an endpoint in the COOKIE-WAIT state receives
		// an INIT ACK chunk with the Initiate Tag set to 0, it MUST
		// destroy the TCB and SHOULD send an ABORT chunk with the T bit
		// set."
		a.stats.Violations++
		a.ep.replyAbort(p.from, p.dstPort, p.srcPort, a.localTag, true, nil)
		a.fail(reasonInvalidParameter, chunk.CauseInvalidParam)
		return dispDeleted
	case initBadMandatory:
		a.stats.Violations++
		a.ep.rejectInit(p, &in, initBadMandatory)
		if in.rwnd < 1500 && in.os != 0 && in.mis != 0 {
			// "A receiver of an INIT ACK chunk with the a_rwnd value set
			// to a value smaller than 1500 MUST discard the packet,
			// SHOULD send a packet in response containing an ABORT chunk
			// ..., and MUST NOT change the state of any existing
			// association."
			return dispStop
		}
		// "If an endpoint in the COOKIE-WAIT state receives an INIT ACK
		// chunk with the OS value set to 0, it MUST destroy the TCB and
		// SHOULD send an ABORT chunk."
		a.fail(reasonInvalidParameter, chunk.CauseInvalidParam)
		return dispDeleted
	case initHostName:
		// Section 3.3.3 note 3: "The receiver of INIT ACK chunks
		// containing a Host Name Address parameter MUST send an ABORT
		// chunk and MAY include an "Unresolvable Address" error cause."
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
		// Section 5.1.2: "the receiver MUST derive and record all the
		// transport addresses from the received chunk AND the source IP
		// address that sent the INIT or INIT ACK chunk" (an INIT ACK
		// from another address of the peer, found by lookupOther).
		a.addPeerAddr(src)
	}
	a.stats.PeerAddrsIgnored += uint64(in.ignored)
	a.negotiateStreams()
	a.cookie = append(a.cookie[:0], in.cookie...)
	// Section 3.2.2: "it SHOULD bundle the ERROR chunk containing the
	// "Unrecognized Parameters" error cause with the chunk sent in
	// response (e.g., COOKIE ECHO)."
	a.pend.unrecognized = append(a.pend.unrecognized[:0], in.unrecognized...)
	a.startData(now)
	if a.initRetx == 0 {
		// Karn: only an INIT that was not retransmitted gives a sample.
		a.rttSample(now, now.Sub(a.initSent))
	}
	a.initRetx = 0
	a.t1RTO = a.currentRTO()
	a.setState(stateCookieEchoed)
	a.sendCookieEcho(now)
	return dispStop
}

// validateInit parses and checks an INIT received with a TCB. It answers
// what must be answered and reports whether the INIT may be processed.
// Section 3.3.2: a bad INIT "MUST NOT change the state of any existing
// association".
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

// addsAddresses reports whether an INIT adds a peer address to this
// association, and queues the ABORT with the "Restart of an Association
// with New Addresses" cause listing the new ones if so (sections 5.2.1,
// 5.2.2). The addresses compared are those the INIT lists and its source
// (section 5.1.2: the peer's transport addresses are the listed ones "AND
// the source IP address"), against the peer addresses the association
// holds; addresses the peer cannot own are ignored there as at the
// handshake, and so are those beyond the bound of maxPeerAddrs (the INIT
// is read with the same bound, in the same order). Without
// Config.Paths.Multihoming the association uses the one address of its key and
// never the others a peer lists, so a listed address adds nothing to it:
// only the source counts, and it is the key's (the INIT was found by it).
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
// (section 5.2.1): answer with an INIT ACK that uses the parameters of our
// own INIT, including our Initiate Tag, and change nothing.
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
		// "If the INIT chunk indicates that a new address has been added
		// to the association, then the entire INIT chunk MUST be
		// discarded, and the state of the existing association SHOULD NOT
		// be changed."
		if a.addsAddresses(p, &in) {
			return dispStop
		}
		// "For an endpoint that is in the COOKIE-ECHOED state, it MUST
		// populate its Tie-Tags within both the association TCB and
		// inside the State Cookie".
		a.localTie, a.peerTie = a.localTag, a.peerTag
		ck.localTie, ck.peerTie = a.localTie, a.peerTie
	}
	a.ep.stats.InitsIn++
	// "After that, the endpoint MUST NOT change its state, the T1-init
	// timer MUST be left running, and the corresponding TCB MUST NOT be
	// destroyed."
	if p.from != a.key.peer {
		// An INIT from another address of the peer (found by the address
		// of ours it lists, lookup.go). Section 5.2.1's rules for the INIT
		// ACK (paraphrased): it MUST only go to an address the upper layer
		// gave for the association and that the INIT reports, and SHOULD
		// go to the INIT's source; the MUSTs win, so it goes to the
		// address we sent our INIT to. The State Cookie is bound to that
		// address (its MAC covers it).
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
// the Tie-Tags in the cookie; the association itself is not changed.
func (a *Assoc) initUnexpected5_2_2(now time.Time, p *inPacket, c *rxChunk) disp {
	var in initInfo
	if !a.validateInit(p, c, &in) {
		return dispStop
	}
	// "If new addresses are added to the association, the endpoint MUST
	// respond with an ABORT chunk, copying the 'Initiate Tag' of the
	// unexpected INIT chunk into the 'Verification Tag' of the outbound
	// packet carrying the ABORT chunk."
	if a.addsAddresses(p, &in) {
		return dispStop
	}
	// "the endpoint MUST copy its current Tie-Tags to a reserved place
	// within the State Cookie and the association's TCB"; "the INIT ACK
	// chunk MUST contain a new Initiate Tag"; "Other parameters for the
	// endpoint SHOULD be copied from the existing parameters of the
	// association".
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

// initInShutdownAckSent9_2: "If an endpoint is in the SHUTDOWN-ACK-SENT
// state and receives an INIT chunk (e.g., if the SHUTDOWN COMPLETE chunk
// was lost) ..., it SHOULD discard the INIT chunk and retransmit the
// SHUTDOWN ACK chunk."
func (a *Assoc) initInShutdownAckSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	a.pend.set(ctlShutdownAck)
	return dispStop
}

// discardInitAck5_2_3: "If an INIT ACK chunk is received by an endpoint in
// any state other than the COOKIE-WAIT or CLOSED state, the endpoint SHOULD
// discard the INIT ACK chunk."
func (a *Assoc) discardInitAck5_2_3(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispStop
}

// cookieEchoTCB5_2_4 handles a COOKIE ECHO when a TCB exists (section
// 5.2.4), with the action table of section 5.2.4 (A: peer restart; B:
// setup collision; C: late cookie; D: duplicate).
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
		// Step 3: "If the State Cookie is older than the lifespan carried
		// in the State Cookie and the Verification Tags contained in the
		// State Cookie do not match the current association's
		// Verification Tags, the packet, including the COOKIE ECHO chunk
		// and any DATA chunks, SHOULD be discarded. The endpoint also
		// MUST transmit an ERROR chunk with a "Stale Cookie" error cause
		// to the peer endpoint".
		a.ep.replyStaleCookie(now, p, &ck, &a.stats)
		return dispStop
	}
	switch {
	case !lt && !pt && ck.localTie == a.localTag && ck.peerTie == a.peerTag:
		return a.cookieRestartA(now, p, &ck)
	case lt && (!pt || a.peerTag == 0):
		// Action B: "The endpoint SHOULD stay in or enter the ESTABLISHED
		// state, but it MUST update its peer's Verification Tag from the
		// State Cookie, stop any T1-init or T1-cookie timers that might
		// be running, and send a COOKIE ACK chunk."
		switch {
		case a.state == stateCookieWait:
			a.fromCookie(now, &ck)
		case ck.peerTSN != a.peerTSN && !a.data.gotData:
			// The peer's TCB was built from the INIT this cookie answered,
			// not from the INIT ACK we took our view from: its TSNs start
			// where that INIT said.
			a.rebaseData(now, &ck)
		}
		a.peerTag = ck.peerTag
		a.establish(now)
		a.pend.set(ctlCookieAck)
		return dispNext
	case !lt && pt && ck.localTie == 0 && ck.peerTie == 0:
		// Action C: "The cookie SHOULD be silently discarded. The endpoint
		// SHOULD NOT change states and SHOULD leave any timers running."
		a.stats.Ignored++
		return dispStop
	case lt && pt:
		// Action D: "the endpoint SHOULD enter the ESTABLISHED state if it
		// is in the COOKIE-ECHOED state. It SHOULD stop any T1-cookie
		// timer that is running and send a COOKIE ACK chunk."
		a.establish(now)
		a.pend.set(ctlCookieAck)
		return dispNext
	}
	// "For any case not shown in Table 12, the cookie SHOULD be silently
	// discarded."
	a.stats.Ignored++
	return dispStop
}

// cookieRestartA is action A of section 5.2.4: the peer restarted.
func (a *Assoc) cookieRestartA(now time.Time, p *inPacket, ck *cookie) disp {
	if a.state == stateShutdownAckSent {
		// "If the endpoint is in the SHUTDOWN-ACK-SENT state and
		// recognizes that the peer has restarted (Action A), it MUST NOT
		// set up a new association but instead resend the SHUTDOWN ACK
		// chunk and send an ERROR chunk with a "Cookie Received While
		// Shutting Down" error cause to its peer."
		a.pend.set(ctlShutdownAck)
		a.queueErrorCause(chunk.CauseCookieWhileShutdown, nil)
		return dispStop
	}
	// "the existing session is treated the same as if it received an
	// ABORT chunk followed by a new COOKIE ECHO chunk with the following
	// exceptions: ... A RESTART notification SHOULD be sent to the ULP
	// instead of a COMMUNICATION LOST notification. All the congestion
	// control parameters (e.g., cwnd, ssthresh) related to this peer MUST
	// be reset to their initial values". "Any SCTP DATA chunks MAY be
	// retained": the user's messages not yet acknowledged are queued
	// again on the new engine (new TSNs, fresh congestion state); what
	// the old peer had received is gone with it.
	a.stats.Restarts++
	old := a.data.eng
	a.data.gotData = false
	a.timers.stopAll()
	a.pend = pending{heartbeatAcks: a.pend.heartbeatAcks[:0], hbAckTo: a.pend.hbAckTo[:0]}
	a.sackTo, a.ctlTo = netip.AddrPort{}, netip.AddrPort{}
	// The new engine has one path: the paths are made again from the
	// addresses in the cookie (the restart INIT's, which added none).
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
// tells the user; in other states it only stops T1.
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

// cookieAck5_1E: "Upon reception of the COOKIE ACK chunk, endpoint "A"
// moves from the COOKIE-ECHOED state to the ESTABLISHED state, stopping the
// T1-cookie timer."
func (a *Assoc) cookieAck5_1E(now time.Time, p *inPacket, c *rxChunk) disp {
	if a.initRetx == 0 {
		a.rttSample(now, now.Sub(a.initSent))
	}
	a.establish(now)
	return dispNext
}

// discardCookieAck5_2_5: "At any state other than COOKIE-ECHOED, an
// endpoint SHOULD silently discard a received COOKIE ACK chunk."
func (a *Assoc) discardCookieAck5_2_5(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// staleCookie5_2_6 handles an ERROR with a "Stale Cookie" cause in
// COOKIE-ECHOED with the third alternative of section 5.2.6: a new INIT
// with a Cookie Preservative. staleness is the Measure of Staleness.
func (a *Assoc) staleCookie5_2_6(now time.Time, staleness time.Duration) {
	a.initRetx++
	a.stats.HandshakeRetx++
	if a.initRetx > a.ep.cfg.MaxInitRetransmits {
		a.fail(reasonInitTimeout, chunk.CauseStaleCookie)
		return
	}
	// "When calculating the time extension, an implementation SHOULD use
	// the RTT information measured based on the previous COOKIE
	// ECHO/ERROR chunk exchange and SHOULD add no more than 1 second
	// beyond the measured RTT".
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

// rebaseData rebuilds the transfer engine for the peer's parameters in a
// cookie (setup collision, action B), keeping the messages already queued
// by the user: they are queued again in order (their TSNs, starting from our
// unchanged initial TSN, come out the same).
func (a *Assoc) rebaseData(now time.Time, ck *cookie) {
	old := a.data.eng
	a.peerTSN, a.peerRwnd = ck.peerTSN, ck.peerRwnd
	a.peerOS, a.peerMIS = ck.peerOS, ck.peerMIS
	a.negotiateStreams()
	a.startData(now)
	a.requeue(now, old)
}

// requeue moves the messages still queued or unacknowledged in the old
// engine to the current one, in order, with their PR policies (a lifetime
// goes on from where it was). Messages on streams that no longer exist are
// dropped and counted.
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
