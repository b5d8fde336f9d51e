package assoc

import (
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// expire runs every timer of the association that expired at now.
func (a *Assoc) expire(now time.Time) {
	for !a.closed {
		id, ok := a.timers.expired(now)
		if !ok {
			break
		}
		a.timers.stop(id)
		a.ep.trace(a, "%v expired", id)
		switch id {
		case timerT1Init:
			a.t1Expired(now, false)
		case timerT1Cookie:
			a.t1Expired(now, true)
		case timerT2Shutdown:
			a.t2Expired(now)
		case timerT5Guard:
			// Section 9.2: "At the expiration of this timer, the sender
			// SHOULD abort the association by sending an ABORT chunk."
			a.sendAbort(nil)
			a.fail(reasonShutdownGuard, 0)
		case timerHeartbeat:
			a.heartbeatTimer(now)
		case timerReconf:
			a.reconfTimer(now)
		case timerPaths:
			a.pathTimer(now)
		case timerASCONF:
			a.asconfTimer(now)
		case timerPMTU:
			a.pmtuTimer(now)
		}
	}
	if a.closed {
		return
	}
	if d := a.data.deadline(); !d.IsZero() && !d.After(now) {
		if a.data.timeout(now) {
			if a.paths != nil {
				a.pathFaults(now)
			}
			a.pmtuSuspect(now)
			// A T3-rtx expiry counts against the association (section
			// 8.1: "consecutive retransmissions to its peer").
			if a.countError(now) {
				return
			}
		}
		a.ep.markReady(a)
	}
}

// t1Expired retransmits INIT or COOKIE ECHO (section 4: "If the T1-init
// timer expires, the endpoint MUST retransmit the INIT chunk and restart
// the T1-init timer ... This MUST be repeated up to 'Max.Init.Retransmits'
// times. After that, the endpoint MUST abort the initialization process and
// report the error to the SCTP user.").
func (a *Assoc) t1Expired(now time.Time, cookie bool) {
	if !cookie {
		a.stats.InitsUnanswered++
	}
	a.initRetx++
	if a.initRetx > a.ep.cfg.MaxInitRetransmits {
		a.fail(reasonInitTimeout, 0)
		return
	}
	a.stats.HandshakeRetx++
	a.t1RTO = backoff(a.t1RTO, a.ep.cfg.InitRTOMax)
	if cookie {
		a.sendCookieEcho(now)
	} else {
		a.sendInit(now)
	}
}

// t2Expired retransmits SHUTDOWN or SHUTDOWN ACK (section 9.2), at most
// Association.Max.Retrans times.
func (a *Assoc) t2Expired(now time.Time) {
	a.t2Retx++
	if a.t2Retx > a.ep.cfg.MaxRetransmits {
		// "If this threshold is exceeded, the endpoint SHOULD destroy the
		// TCB and SHOULD report the peer endpoint unreachable to the upper
		// layer".
		a.fail(reasonPeerUnreachable, 0)
		return
	}
	a.stats.ShutdownRetx++
	if a.paths != nil {
		// The unanswered SHUTDOWN or SHUTDOWN ACK counts against the path
		// it went to, as Linux counts it (section 8.2 names T3-rtx and
		// heartbeats; a peer that only answers control chunks would
		// otherwise keep a cut path): once it is potentially failed the
		// chunk is resent to an alternate active path (section 6.4.1: "the
		// sender SHOULD try to retransmit to a different active
		// destination address").
		a.pathError(now, a.enginePrimary())
	}
	rto := a.currentRTO()
	for range a.t2Retx {
		rto = backoff(rto, a.ep.cfg.RTOMax)
	}
	switch a.state {
	case stateShutdownSent:
		// "If the timer expires, the endpoint MUST resend the SHUTDOWN
		// chunk with the updated last sequential TSN received from its
		// peer."
		a.pend.set(ctlShutdown)
	case stateShutdownAckSent:
		// "If the timer expires, the endpoint MUST resend the SHUTDOWN ACK
		// chunk."
		a.pend.set(ctlShutdownAck)
	}
	if a.paths != nil {
		// The unanswered SHUTDOWN or SHUTDOWN ACK counts against the path
		// it went to, as a T3-rtx expiry does (section 8.2, paraphrased:
		// the error counter of a destination grows with each T3-rtx
		// expiry there and each unacknowledged HEARTBEAT): beyond the PF
		// threshold the resend goes to another path, as section 6.4.1 has
		// retransmissions do.
		a.ctlTo = netip.AddrPort{}
		if i := a.enginePrimary(); a.paths[i].state == api.PathActive {
			a.pathError(now, i)
		}
	}
	a.timers.start(timerT2Shutdown, now, rto)
	a.ep.markReady(a)
}
