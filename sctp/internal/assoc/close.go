package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// abort9_1 handles an ABORT whose tag passed section 8.5.1 B: remove the
// association and report it (section 9.1).
func (a *Assoc) abort9_1(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.AbortsIn++
	// Every cause is reported; an ABORT answering our INIT or COOKIE ECHO
	// is a refusal, like ECONNREFUSED.
	r := reasonPeerAbort
	if a.state == stateCookieWait || a.state == stateCookieEchoed {
		r = reasonRefused
	}
	a.failWith(r, c.value())
	return dispDeleted
}

// sendAbort sends an ABORT with the peer's tag and one optional cause, no
// DATA, and removes the association (section 9.1).
func (a *Assoc) sendAbort(cause []byte) {
	if a.peerTag == 0 {
		return
	}
	if a.authOverhead() == 0 {
		a.ep.replyAbort(a.key.peer, a.key.localPort, a.key.peerPort, a.peerTag, false, cause)
		return
	}
	// AUTH when the peer listed ABORT (RFC 4895 section 6.2).
	a.ep.stats.AbortsOut++
	if b := a.ep.replyBuf(a.key.peer); b != nil {
		b = appendHeader(b, a.key.localPort, a.key.peerPort, a.peerTag)
		b = appendAbort(b, false, cause)
		a.ep.commitReply(finishPacket(a.sealAuth(b, 0), 0))
	}
}

// AppendAbortPacket appends to b a whole SCTP packet that aborts the
// association, for another process to send once this one is gone (the
// shell's exit watchdog): the common header with the peer's Verification
// Tag, an AUTH chunk when the peer listed ABORT among the chunks it wants
// authenticated (RFC 4895 section 6.2), and an ABORT without the T bit
// whose "User-Initiated Abort" cause carries reason (RFC 9260 sections
// 3.3.7 and 9.1), checksummed. It returns b unchanged before the
// handshake gave the association a peer tag and after it ended. Nothing
// is sent and no counter moves.
func (a *Assoc) AppendAbortPacket(b []byte, reason []byte) []byte {
	if a.closed || a.peerTag == 0 {
		return b
	}
	if len(reason) > 256 {
		reason = reason[:256]
	}
	start := len(b)
	b = appendHeader(b, a.key.localPort, a.key.peerPort, a.peerTag)
	cause := appendCause(a.ep.scratch[:0], chunk.CauseUserAbort, reason)
	a.ep.scratch = cause[:0]
	b = appendAbort(b, false, cause)
	sent := a.stats.Auth.Sent
	b = a.sealAuth(b, start)
	a.stats.Auth.Sent = sent
	return finishPacket(b, start)
}

// protocolViolation aborts the association with a "Protocol Violation"
// cause carrying info.
func (a *Assoc) protocolViolation(info string) {
	a.stats.Violations++
	cause := appendCause(a.ep.scratch[:0], chunk.CauseProtocolViolation, []byte(info))
	a.ep.scratch = cause[:0]
	a.sendAbort(cause)
	a.fail(reasonProtocolViolation, chunk.CauseProtocolViolation)
}

// shutdown9_2 handles SHUTDOWN in ESTABLISHED, SHUTDOWN-PENDING and
// SHUTDOWN-RECEIVED (section 9.2): enter SHUTDOWN-RECEIVED, stop taking
// user data, check the Cumulative TSN Ack; later user shutdowns are
// ignored.
func (a *Assoc) shutdown9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	cum, ok := parseShutdown(c)
	if !ok {
		a.stats.Malformed++
		return dispStop
	}
	if err := a.data.cumAck(now, cum); err != nil {
		a.protocolViolation("SHUTDOWN acknowledges a TSN that was never sent")
		return dispDeleted
	}
	a.setState(stateShutdownReceived)
	return dispNext
}

// discardShutdown9_2: SHUTDOWN in the COOKIE states is discarded.
func (a *Assoc) discardShutdown9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// shutdownInShutdownSent9_2: SHUTDOWN in SHUTDOWN-SENT is answered with a
// SHUTDOWN ACK, entering SHUTDOWN-ACK-SENT and restarting T2 (9.2).
func (a *Assoc) shutdownInShutdownSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	cum, ok := parseShutdown(c)
	if !ok {
		a.stats.Malformed++
		return dispStop
	}
	if err := a.data.cumAck(now, cum); err != nil {
		a.protocolViolation("SHUTDOWN acknowledges a TSN that was never sent")
		return dispDeleted
	}
	a.pend.clear(ctlShutdown)
	a.sendShutdownAck(now)
	return dispNext
}

// shutdownInShutdownAckSent9_2: a repeated SHUTDOWN gets the SHUTDOWN ACK
// again.
func (a *Assoc) shutdownInShutdownAckSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.pend.set(ctlShutdownAck)
	return dispNext
}

// sendShutdownAck sends SHUTDOWN ACK, starts T2-shutdown and enters
// SHUTDOWN-ACK-SENT (9.2).
func (a *Assoc) sendShutdownAck(now time.Time) {
	a.pend.set(ctlShutdownAck)
	a.t2Retx = 0
	a.timers.start(timerT2Shutdown, now, a.currentRTO())
	a.timers.stop(timerHeartbeat)
	a.setState(stateShutdownAckSent)
	a.ep.markReady(a)
}

// shutdownAck9_2 handles SHUTDOWN ACK in SHUTDOWN-SENT and
// SHUTDOWN-ACK-SENT: stop T2, send SHUTDOWN COMPLETE, remove the
// association (9.2).
func (a *Assoc) shutdownAck9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.timers.stop(timerT2Shutdown)
	// Section 8.5.1 C: our peer's tag, T bit clear. Sent to the SHUTDOWN
	// ACK's source (section 6.4), not the handshake's address, which may
	// have failed.
	to := a.key.peer
	if a.paths != nil && a.knowsPeerAddr(p.from.Addr()) {
		to = p.from
	}
	if b := a.ep.replyBuf(to); b != nil {
		b = appendHeader(b, a.key.localPort, a.key.peerPort, a.peerTag)
		b = appendShutdownComplete(b, false)
		a.ep.commitReply(finishPacket(b, 0))
	}
	a.destroy(&End{Reason: reasonShutdown}, 0)
	return dispDeleted
}

// shutdownAckCookieState8_5_1E is reached only when the tag check let the
// packet through; rule E treats it as out of the blue.
func (a *Assoc) shutdownAckCookieState8_5_1E(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.OOTB++
	a.ep.replyShutdownComplete(p)
	return dispStop
}

// shutdownComplete9_2: in SHUTDOWN-ACK-SENT, stop T2 and close.
func (a *Assoc) shutdownComplete9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.timers.stop(timerT2Shutdown)
	a.destroy(&End{Reason: reasonShutdown}, 0)
	return dispDeleted
}

// discardShutdownComplete8_5_1C: ignored outside SHUTDOWN-ACK-SENT.
func (a *Assoc) discardShutdownComplete8_5_1C(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispStop
}

// checkShutdownProgress moves SHUTDOWN-PENDING and SHUTDOWN-RECEIVED on
// once the transfer engine has no outstanding data (section 9.2).
func (a *Assoc) checkShutdownProgress(now time.Time) {
	switch a.state {
	case stateShutdownPending:
		if !a.data.idle() {
			return
		}
		// Section 9.2: all data acknowledged: send SHUTDOWN with our
		// cumulative TSN, start T2 (and T5), enter SHUTDOWN-SENT.
		a.pend.set(ctlShutdown)
		a.t2Retx = 0
		a.timers.start(timerT2Shutdown, now, a.currentRTO())
		a.timers.start(timerT5Guard, now, 5*a.ep.cfg.RTOMax)
		a.timers.stop(timerHeartbeat)
		a.setState(stateShutdownSent)
		a.ep.markReady(a)
	case stateShutdownReceived:
		if !a.data.idle() {
			return
		}
		// Section 9.2: send SHUTDOWN ACK, start T2, enter
		// SHUTDOWN-ACK-SENT.
		a.sendShutdownAck(now)
	}
}

// error3_3_10 handles an ERROR chunk: a Stale Cookie in COOKIE-ECHOED
// restarts the handshake (5.2.6); other causes go to the user.
func (a *Assoc) error3_3_10(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.ErrorsIn++
	code := firstCause(c.value())
	if st, ok := staleCookieMeasure(c.value()); ok {
		// Section 5.2.6: otherwise a Stale Cookie is discarded.
		if a.state != stateCookieEchoed {
			a.stats.Ignored++
			return dispNext
		}
		a.staleCookie5_2_6(now, st)
		if a.closed {
			return dispDeleted
		}
		return dispStop
	}
	if len(a.ep.events)-a.ep.evHead < maxQueuedPeerErrors {
		a.emit(api.Event{Kind: api.EventPeerError, Cause: uint16(code)})
	}
	return dispNext
}

// maxQueuedPeerErrors bounds queued EventPeerError events against an
// ERROR flood.
const maxQueuedPeerErrors = 64

// queueErrorCause adds one error cause to the ERROR chunk owed to the peer.
// Causes that do not fit the bound are dropped (the ERROR is advisory).
func (a *Assoc) queueErrorCause(code chunk.CauseCode, info []byte) {
	if a.peerTag == 0 {
		return // no tag to send it with yet
	}
	if len(a.pend.errorCauses)+4+len(info)+3 > maxPendingCauses {
		return
	}
	a.pend.errorCauses = appendCause(a.pend.errorCauses, code, info)
	a.ep.markReady(a)
}

// Shutdown is the SHUTDOWN primitive (section 11.1 D).
func (a *Assoc) Shutdown(now time.Time) error {
	defer a.ep.reached(a)
	switch a.state {
	case stateClosed:
		return ErrClosed
	case stateCookieWait, stateCookieEchoed:
		// No peer state to tear down gracefully: drop the TCB.
		a.destroy(&End{Reason: reasonShutdown}, 0)
		return nil
	case stateEstablished:
		// Section 9.2: SHUTDOWN-PENDING until all data is acknowledged.
		a.setState(stateShutdownPending)
		a.checkShutdownProgress(now)
	}
	// SHUTDOWN-RECEIVED: "it MUST ignore ULP shutdown requests".
	return nil
}

// Abort is the ABORT primitive (section 11.1 E) with an Upper Layer
// Abort Reason.
func (a *Assoc) Abort(now time.Time, reason []byte) error {
	if a.closed {
		return ErrClosed
	}
	// Section 9.1: a "User-Initiated Abort" cause SHOULD be present.
	end := &End{Reason: reasonUserAbort, UserReason: string(reason)}
	if len(reason) > 256 {
		reason = reason[:256]
	}
	cause := appendCause(a.ep.scratch[:0], chunk.CauseUserAbort, reason)
	a.ep.scratch = cause[:0]
	a.sendAbort(cause)
	a.destroy(end, chunk.CauseUserAbort)
	return nil
}
