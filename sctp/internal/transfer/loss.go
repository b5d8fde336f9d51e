package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// Loss detection (RFC 9260 sections 6.3 and 7.2.4, RFC 8985): lost chunks
// are found from SACKs (three miss indications with RecoveryRFC9260, by
// time with RecoveryRACK), by tail loss probes, by T3-rtx, and zero window
// probes test a closed window. Lost chunks are marked for retransmission.

// lossDetector is the sender's loss-detection state for the primary path;
// other paths keep theirs in Path.
type lossDetector struct {
	t3 time.Time // the primary's T3-rtx deadline, zero when stopped
	// After a T3-rtx expiry only one packet may be in flight until an
	// acknowledgement arrives (7.2.3): t3Sent says it went.
	t3Recovery, t3Sent bool
	sackSinceT3        bool // a SACK arrived since T3-rtx was last started
	// zeroWindowProbeAt: one RTO after the peer closed its window with
	// nothing outstanding (6.1 rule A).
	zeroWindowProbeAt time.Time
	fastRtxDue        bool // a fast-retransmit packet is due (ignores cwnd)
	tailProbe         bool // the next packet is a tail loss probe (loss_rack.go)
	// Per SACK, for RACK: whether a chunk sent once was newly acked, and the
	// newest newly acked transmissions, sent once and retransmitted.
	ackedSentOnce         bool
	newestOnce, newestRtx *record
}

// startT3 applies rule R1 of section 6.3.2: "Every time a DATA chunk is
// sent to any address (including a retransmission), if the T3-rtx timer of
// that address is not running, start it running so that it will expire
// after the RTO of that address."
func (s *sender) startT3(now time.Time) {
	if s.loss.t3.IsZero() {
		s.loss.t3 = now.Add(s.paths.primary.rto)
		s.loss.sackSinceT3 = false
	}
}

// onTimeout runs the loss-detection timers and T3-rtx (section 6.3.3). It
// reports whether an expiry counts as an error for the association
// (section 8.1); unanswered zero window probes do not while SACKs arrive
// (6.1 rule A).
func (s *sender) onTimeout(now time.Time) (expired bool) {
	s.rackTimers(now)
	s.paths.faulted = 0
	if len(s.paths.list) > 1 {
		expired = s.pathTimers(now)
	}
	if s.loss.t3.IsZero() || now.Before(s.loss.t3) {
		return expired
	}
	s.loss.t3 = time.Time{}
	if len(s.paths.list) > 1 && !s.ledger.flightOn(s.paths.primaryIdx) {
		// Nothing outstanding on the primary: R2 would have stopped its timer,
		// and an expiry would fault a path that lost nothing.
		return expired
	}
	return s.primaryT3Expired(now)
}

// primaryT3Expired handles the expiry of the primary's T3-rtx (6.3.3 E1 to
// E3, 7.2.3, RFC 3758 A5) and reports whether it counts as an error.
func (s *sender) primaryT3Expired(now time.Time) bool {
	s.stats.T3Expiries++
	// With RecoveryRACK only chunks outstanding for the un-backed-off RTO are
	// marked (as usrsctp does): RACK finds the younger ones if lost.
	age := time.Duration(0)
	if s.cfg.Recovery == api.RecoveryRACK {
		age = s.paths.primary.baseRTO()
		k := &s.paths.primary.rack
		k.timer, k.pto, k.probes = time.Time{}, time.Time{}, 0
		s.loss.tailProbe = false
	}
	// E1: "adjust its ssthresh with rules defined in Section 7.2.3 and set
	// cwnd = PMDCS."
	s.paths.primary.onT3Expiry(now)
	// E2: "set RTO = RTO * 2 ("back off the timer")."
	s.paths.primary.backoff()
	probing := s.peerRwnd == 0 && s.loss.sackSinceT3
	s.loss.sackSinceT3 = false
	s.markTimedOut(now, age)
	s.loss.fastRtxDue = false
	s.rtt.stop()
	s.sendOpportunity(0)
	// 7.2.3: "ensure that no more than one SCTP packet will be in flight
	// for that address until the endpoint receives acknowledgement for
	// successful delivery of data to that address."
	s.loss.t3Recovery, s.loss.t3Sent = true, false
	// A5: "Any time the T3-rtx timer expires, on any destination, the
	// sender SHOULD try to advance the "Advanced.Peer.Ack.Point" by
	// following the procedures outlined in C2 - C5."
	s.sweep(now)
	if s.pr.advPeerAck.GT(s.ledger.cumAck) {
		s.pr.forwardDue = true
	}
	if s.ledger.rtxPending > 0 || s.pr.due(s.ledger.cumAck) {
		// E3 retransmits in the next AppendData; restarting the timer keeps the
		// association live if that packet cannot be built right away.
		s.loss.t3 = now.Add(s.paths.primary.rto)
	}
	if probing {
		s.stats.ZeroWindowProbes++
		return false
	}
	s.paths.primary.Fault()
	s.paths.faulted |= 1 << s.paths.primaryIdx
	return true
}

// markTimedOut marks the primary's chunks in flight for retransmission
// (E3): the earliest always, the others when sent at least age ago, for an
// alternate path when there are several (section 6.4.1).
func (s *sender) markTimedOut(now time.Time, age time.Duration) {
	first := true
	multi := len(s.paths.list) > 1
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		r := s.ledger.rec(t)
		if r.state == recInFlight && (first || now.Sub(r.sent) >= age) && r.marks>>pathShift == s.paths.primaryIdx {
			s.markRtx(r)
			if multi {
				r.marks |= markT3
			}
			first = false
		}
		r.fastRtx = false
		r.misses = 0
	}
}

// missIndications counts the miss indications of section 7.2.4 and marks
// chunks with three for fast retransmit, reporting whether it marked any.
func (s *sender) missIndications(sk *SACK, cum, htna TSN, haveHTNA, cumAdvanced bool) bool {
	// 7.2.4: "miss indications are incremented only for missing TSNs prior
	// to the HTNA", or for all missing TSNs in Fast Recovery when the SACK
	// advances the Cumulative TSN Ack Point.
	marked := false
	if len(sk.Gaps) > 0 {
		limit := htna
		if s.paths.primary.inFastRecovery && cumAdvanced {
			limit, haveHTNA = cum.Add(uint32(sk.Gaps[len(sk.Gaps)-1].End)), true
		}
		for t := cum + 1; haveHTNA && t.LT(limit); t++ {
			r := s.ledger.rec(t)
			if r.state != recInFlight || r.marks&markFastDone != 0 {
				continue
			}
			if r.misses++; r.misses >= 3 {
				s.markFast(r)
				marked = true
			}
		}
	}
	return marked
}

// markFast marks r for fast retransmit, ineligible for another (7.2.4).
func (s *sender) markFast(r *record) {
	r.misses = 0
	r.marks |= markFastDone
	r.fastRtx = true
	s.markRtx(r)
}

// markRtx moves an in-flight chunk to the retransmission queue, adding its
// size to the rwnd (6.2.1 B).
func (s *sender) markRtx(r *record) {
	s.ledger.markRtx(r)
	s.paths.of(r).flight -= s.ledger.size(r)
	s.peerRwnd += int(r.n)
}
