package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// abort9_1 handles an ABORT whose verification tag passed rule B of section
// 8.5.1. Section 9.1: "After checking the Verification Tag, the receiving
// endpoint MUST remove the association from its record and SHOULD report
// the termination to its upper layer."
func (a *Assoc) abort9_1(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.AbortsIn++
	// The user learns every cause, the Upper Layer Abort Reason (section
	// 3.3.10.12) among them. An ABORT answering our INIT or COOKIE ECHO is
	// a refusal, as a kernel's connect reports ECONNREFUSED.
	r := reasonPeerAbort
	if a.state == stateCookieWait || a.state == stateCookieEchoed {
		r = reasonRefused
	}
	a.failWith(r, c.value())
	return dispDeleted
}

// sendAbort sends an ABORT with the peer's tag and one optional cause and
// removes the association (section 9.1: "The sender MUST fill in the peer's
// Verification Tag in the outbound packet and MUST NOT bundle any DATA chunk
// with the ABORT chunk.").
func (a *Assoc) sendAbort(cause []byte) {
	if a.peerTag == 0 {
		return
	}
	if a.authOverhead() == 0 {
		a.ep.replyAbort(a.key.peer, a.key.localPort, a.key.peerPort, a.peerTag, false, cause)
		return
	}
	// An authenticated association: the ABORT gets its AUTH chunk when
	// the peer listed ABORT (RFC 4895 section 6.2).
	a.ep.stats.AbortsOut++
	if b := a.ep.replyBuf(a.key.peer); b != nil {
		b = appendHeader(b, a.key.localPort, a.key.peerPort, a.peerTag)
		b = appendAbort(b, false, cause)
		a.ep.commitReply(finishPacket(a.sealAuth(b, 0), 0))
	}
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
// SHUTDOWN-RECEIVED (section 9.2): "enter the SHUTDOWN-RECEIVED state, stop
// accepting new data from its SCTP user, and verify, by checking the
// Cumulative TSN Ack field of the chunk, that all its outstanding DATA
// chunks have been received by the SHUTDOWN chunk sender." "Once an
// endpoint has reached the SHUTDOWN-RECEIVED state, it MUST ignore ULP
// shutdown requests but MUST continue responding to SHUTDOWN chunks from its
// peer."
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

// discardShutdown9_2: "If a SHUTDOWN chunk is received in the COOKIE-WAIT
// or COOKIE ECHOED state, the SHUTDOWN chunk SHOULD be silently discarded."
func (a *Assoc) discardShutdown9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// shutdownInShutdownSent9_2: "If an endpoint is in the SHUTDOWN-SENT state
// and receives a SHUTDOWN chunk from its peer, the endpoint SHOULD respond
// immediately with a SHUTDOWN ACK chunk to its peer and move into the
// SHUTDOWN-ACK-SENT state, restarting its T2-shutdown timer."
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

// shutdownInShutdownAckSent9_2: the peer did not get our SHUTDOWN ACK and
// repeats its SHUTDOWN: send the SHUTDOWN ACK again.
func (a *Assoc) shutdownInShutdownAckSent9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.pend.set(ctlShutdownAck)
	return dispNext
}

// sendShutdownAck enters SHUTDOWN-ACK-SENT: "the SHUTDOWN chunk receiver
// MUST send a SHUTDOWN ACK chunk and start a T2-shutdown timer of its own,
// entering the SHUTDOWN-ACK-SENT state."
func (a *Assoc) sendShutdownAck(now time.Time) {
	a.pend.set(ctlShutdownAck)
	a.t2Retx = 0
	a.timers.start(timerT2Shutdown, now, a.currentRTO())
	a.timers.stop(timerHeartbeat)
	a.setState(stateShutdownAckSent)
	a.ep.markReady(a)
}

// shutdownAck9_2 handles SHUTDOWN ACK in SHUTDOWN-SENT and
// SHUTDOWN-ACK-SENT: "Upon the receipt of the SHUTDOWN ACK chunk, the
// sender of the SHUTDOWN chunk MUST stop the T2-shutdown timer, send a
// SHUTDOWN COMPLETE chunk to its peer, and remove all record of the
// association." (and the same in SHUTDOWN-ACK-SENT).
func (a *Assoc) shutdownAck9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.timers.stop(timerT2Shutdown)
	// Section 8.5.1 C: "if the receiver of the SHUTDOWN ACK chunk has a
	// TCB, then the destination endpoint's tag MUST be used and the T bit
	// MUST NOT be set." With several paths it goes to the SHUTDOWN ACK's
	// source (section 6.4: "An endpoint SHOULD transmit reply chunks ...
	// to the same destination transport address from which it received
	// the DATA or control chunk to which it is replying"), not to the
	// handshake's address, which may be the path that failed.
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

// shutdownComplete9_2: "If the endpoint is in the SHUTDOWN-ACK-SENT state,
// the endpoint SHOULD stop the T2-shutdown timer and remove all knowledge
// of the association (and thus the association enters the CLOSED state)."
func (a *Assoc) shutdownComplete9_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.timers.stop(timerT2Shutdown)
	a.destroy(&End{Reason: reasonShutdown}, 0)
	return dispDeleted
}

// discardShutdownComplete8_5_1C: "An endpoint MUST ignore the SHUTDOWN
// COMPLETE chunk if it is not in the SHUTDOWN-ACK-SENT state."
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
		// "Once all its outstanding data has been acknowledged, the
		// endpoint sends a SHUTDOWN chunk to its peer, including in the
		// Cumulative TSN Ack field the last sequential TSN it has received
		// from the peer. It SHOULD then start the T2-shutdown timer and
		// enter the SHUTDOWN-SENT state." We also start T5.
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
		// "If the receiver of the SHUTDOWN chunk has no more outstanding
		// DATA chunks, the SHUTDOWN chunk receiver MUST send a SHUTDOWN
		// ACK chunk and start a T2-shutdown timer of its own, entering
		// the SHUTDOWN-ACK-SENT state."
		a.sendShutdownAck(now)
	}
}

// error3_3_10 handles an ERROR chunk: a Stale Cookie in COOKIE-ECHOED
// (section 5.2.6) restarts the handshake; other causes are reported to the
// user.
func (a *Assoc) error3_3_10(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.ErrorsIn++
	code := firstCause(c.value())
	if st, ok := staleCookieMeasure(c.value()); ok {
		// Section 5.2.6: "In all cases, if the association is not in the
		// COOKIE-ECHOED state, the ERROR chunk SHOULD be silently
		// discarded."
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

// maxQueuedPeerErrors bounds the queued EventPeerError events, so a peer that
// floods ERROR chunks cannot grow memory while the user is not reading.
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
		// "Upon receipt of the SHUTDOWN primitive from its upper layer,
		// the endpoint enters the SHUTDOWN-PENDING state and remains there
		// until all outstanding data has been acknowledged by its peer."
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
	// Section 9.1: "If the association is aborted on request of the upper
	// layer, a "User-Initiated Abort" error cause (see Section 3.3.10.12)
	// SHOULD be present in the ABORT chunk."
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
