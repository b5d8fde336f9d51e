package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// heartbeatState is the heartbeat of the primary path (section 8.3).
type heartbeatState struct {
	nonce       uint64    // nonce of the outstanding HEARTBEAT
	sentAt      time.Time // when it was sent
	outstanding bool      // a HEARTBEAT awaits its ACK
	down        bool      // the path exceeded Path.Max.Retrans
}

// heartbeatInfoLen is the length of our Heartbeat Information: a 64-bit
// random nonce and the send time (section 8.3: "The sender of the
// HEARTBEAT chunk SHOULD include in the Heartbeat Information field of the
// chunk the current time when the packet is sent and the destination
// address to which the packet is sent." With one path, the nonce stands for
// the address).
const heartbeatInfoLen = 16

// startHeartbeat arms the heartbeat timer on entering ESTABLISHED.
func (a *Assoc) startHeartbeat(now time.Time) {
	a.startPMTU(now)
	if a.primaryParams().HeartbeatOff {
		return
	}
	a.timers.start(timerHeartbeat, now, a.heartbeatPeriod())
}

// heartbeatPeriod is RTO + HB.interval with a jitter of +/- 50% of the RTO
// (section 8.3: "it is RECOMMENDED that a HEARTBEAT chunk is sent once per
// RTO of that destination address plus the protocol parameter
// 'HB.interval', with jittering of +/- 50% of the RTO value").
func (a *Assoc) heartbeatPeriod() time.Duration {
	rto := a.currentRTO()
	jitter := time.Duration(a.ep.random32()%1000) * rto / 1000
	return a.primaryParams().HeartbeatInterval + rto/2 + jitter
}

// heartbeatTimer is the expiry of the heartbeat timer: count an
// unanswered HEARTBEAT as an error, then send a new one.
func (a *Assoc) heartbeatTimer(now time.Time) {
	if a.heartbeatsStopped() {
		return // the timer stays stopped: T2-shutdown watches the peer now
	}
	if a.hb.outstanding {
		// "The endpoint SHOULD increment the respective error counter of
		// the destination transport address each time a HEARTBEAT chunk
		// is sent to that address and not acknowledged within one RTO."
		if a.countError(now) {
			return
		}
	}
	if e := a.data.eng; e != nil && e.Outstanding() > 0 && !a.hb.outstanding {
		// Section 8.3: only an idle destination is probed ("no new chunk
		// that can be used for updating path RTT ... has been sent to it
		// within the current heartbeat period"); with DATA outstanding,
		// T3-rtx watches the path.
		a.timers.start(timerHeartbeat, now, a.heartbeatPeriod())
		return
	}
	a.sendHeartbeat(now)
}

// sendHeartbeat queues a HEARTBEAT with a fresh nonce and restarts the
// heartbeat timer.
func (a *Assoc) sendHeartbeat(now time.Time) {
	a.hb.nonce = uint64(a.ep.random32())<<32 | uint64(a.ep.random32())
	a.hb.sentAt = now
	a.hb.outstanding = true
	a.pend.set(ctlHeartbeat)
	a.stats.HeartbeatsOut++
	a.ep.markReady(a)
	a.timers.start(timerHeartbeat, now, a.heartbeatPeriod())
}

// heartbeatsStopped reports whether the association is in SHUTDOWN-SENT or
// SHUTDOWN-ACK-SENT, where no HEARTBEAT goes (path heartbeats and PLPMTU
// probes included). Section 8.3 has the peer answer HEARTBEATs only "up
// until reaching the SHUTDOWN-SENT state (sender of the SHUTDOWN chunk) or
// the SHUTDOWN-ACK-SENT state (receiver of the SHUTDOWN chunk)"; and a
// peer that has our SHUTDOWN ACK may have ended the association already
// and answer anything more as out of the blue, with an ABORT that would
// end ours before its SHUTDOWN COMPLETE (Linux did, and the reader lost
// the messages still queued: TestKernelPRPolicies failed once). Linux
// ignores its heartbeat timer in both states; T2-shutdown watches the
// peer there.
func (a *Assoc) heartbeatsStopped() bool {
	return a.state == stateShutdownSent || a.state == stateShutdownAckSent
}

// countError counts one error against the path and the association
// (sections 8.1 and 8.2) and reports whether the association failed.
func (a *Assoc) countError(now time.Time) bool {
	a.errCount++
	if a.paths != nil {
		// Several paths: the unanswered HEARTBEAT was the handshake
		// address's, whose state paths.go keeps. The count is the one
		// an acknowledgement of our DATA or any HEARTBEAT ACK clears (the
		// engine's per-path count is for T3-rtx expiries): beyond the PF
		// threshold the data and the control chunks move to another path
		// and paths.go probes the address from then on (its events carry
		// the address).
		if a.paths[0].state == api.PathActive {
			a.pathThresholds(now, 0, a.errCount)
		}
	} else if a.errCount > a.primaryParams().PathMaxRetransmits && !a.hb.down {
		a.hb.down = true
		a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(a.key.peer), PathState: api.PathInactive})
	}
	// Section 8.1: "If the value of this counter exceeds the limit
	// indicated in the protocol parameter 'Association.Max.Retrans', the
	// endpoint SHOULD consider the peer endpoint unreachable and SHALL
	// stop transmitting any more data to it".
	if a.errCount > a.ep.cfg.MaxRetransmits {
		a.fail(reasonPeerUnreachable, 0)
		return true
	}
	return false
}

// clearErrors resets the error counters after the peer answered.
func (a *Assoc) clearErrors() {
	a.errCount = 0
	if a.hb.down {
		a.hb.down = false
		a.emit(api.Event{Kind: api.EventPeerAddrChange, Addr: a.eventAddr(a.key.peer), Reachable: true, PathState: api.PathActive})
	}
}

// appendHeartbeatInfo appends our Heartbeat Information value.
func (a *Assoc) appendHeartbeatInfo(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, a.hb.nonce)
	return binary.BigEndian.AppendUint64(b, uint64(a.hb.sentAt.UnixNano()))
}

// heartbeat8_3: "A receiver of a HEARTBEAT chunk MUST respond to a
// HEARTBEAT chunk with a HEARTBEAT ACK chunk after entering the
// COOKIE-ECHOED state (sender of the INIT chunk) or the ESTABLISHED state
// (receiver of the INIT chunk), up until reaching the SHUTDOWN-SENT state
// (sender of the SHUTDOWN chunk) or the SHUTDOWN-ACK-SENT state (receiver
// of the SHUTDOWN chunk)." The ACK carries the HEARTBEAT's parameters
// "copied unchanged".
func (a *Assoc) heartbeat8_3(now time.Time, p *inPacket, c *rxChunk) disp {
	v := c.value()
	if !validHeartbeat(v) {
		a.stats.Malformed++
		return dispNext
	}
	if len(a.pend.heartbeatAcks) >= maxPendingHeartbeatAcks || 4+len(v)+commonHeaderLen > a.ep.cfg.MTU {
		a.stats.Ignored++
		return dispNext
	}
	a.stats.HeartbeatsIn++
	n := len(a.pend.heartbeatAcks)
	if n < cap(a.pend.heartbeatAcks) {
		a.pend.heartbeatAcks = a.pend.heartbeatAcks[:n+1]
		a.pend.heartbeatAcks[n] = append(a.pend.heartbeatAcks[n][:0], v...)
	} else {
		a.pend.heartbeatAcks = append(a.pend.heartbeatAcks, append([]byte(nil), v...))
	}
	if a.paths != nil {
		// Section 6.4: the HEARTBEAT ACK goes to the HEARTBEAT's source
		// (reply.go).
		to := netip.AddrPort{}
		if a.knownSource(p) {
			to = p.from
		}
		a.pend.hbAckTo = append(a.pend.hbAckTo, to)
	}
	return dispNext
}

// heartbeatAck8_3 takes an RTT sample and clears the error counters when
// the HEARTBEAT ACK answers our outstanding HEARTBEAT (section 8.3: "The
// receiver of the HEARTBEAT ACK chunk SHOULD also perform an RTT
// measurement for that destination transport address using the time value
// carried in the HEARTBEAT ACK chunk.").
func (a *Assoc) heartbeatAck8_3(now time.Time, p *inPacket, c *rxChunk) disp {
	info, ok := heartbeatInfo(c.value())
	if !ok || len(info) != heartbeatInfoLen {
		a.stats.Malformed++
		return dispNext
	}
	nonce := binary.BigEndian.Uint64(info)
	sent := time.Unix(0, int64(binary.BigEndian.Uint64(info[8:])))
	if a.pmtuAck(now, nonce) {
		return dispNext
	}
	if a.paths != nil && a.pathHeartbeatAck(now, nonce, sent) {
		return dispNext
	}
	if !a.hb.outstanding || nonce != a.hb.nonce || !sent.Equal(a.hb.sentAt) {
		a.stats.Ignored++
		return dispNext
	}
	a.hb.outstanding = false
	a.stats.HeartbeatAcks++
	a.rttSample(now, now.Sub(sent))
	a.clearErrors()
	a.data.clearPathErrors()
	return dispNext
}
