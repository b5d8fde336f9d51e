package transfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// handleSACK is Engine.HandleSACK (RFC 9260 section 6.2.1): it advances
// the cumulative ack point, applies the Gap Ack Blocks (and reneging),
// takes RTT samples, adjusts cwnd, finds losses, updates the peer's rwnd
// and manages T3-rtx. A stale SACK or one with malformed Gap Ack Blocks is
// ignored; one acknowledging a TSN never sent yields ErrProtocolViolation
// (section 12.4).
func (s *sender) handleSACK(now time.Time, sk *SACK) (acked bool, err error) {
	s.stats.SACKsReceived++
	cum := sk.CumTSNAck
	// 6.2.1 D i): "If Cumulative TSN Ack is less than the Cumulative TSN
	// Ack Point, then drop the SACK chunk."
	if cum.LT(s.ledger.cumAck) || s.resets.beforeTSNReset(cum, s.ledger.cumAck) || s.resets.tsnResetOut && cum.GT(s.ledger.nextTSN-1) {
		s.stats.SACKsStale++
		return false, nil
	}
	if err := s.validate(sk); err != nil {
		s.stats.SACKsInvalid++
		if errors.Is(err, errMalformedGaps) {
			return false, nil // dropped, as if lost
		}
		return false, err
	}
	s.stats.DupTSNsReported += uint64(len(sk.Dups))
	p := sackProgress{cum: cum, cumAdvanced: cum.GT(s.ledger.cumAck), flightBefore: s.paths.primary.flight}
	s.ackCumulative(now, &p)
	if len(sk.Gaps) > 0 || s.ledger.gapAcked > 0 {
		s.ackGapBlocks(now, sk, &p)
	}
	lost := s.findLosses(now, sk, &p)
	s.adjustWindows(now, &p, lost)
	s.updatePeerWindow(now, sk.ARwnd)
	s.afterSACK(now, p.cum) // PR-SCTP
	s.updateT3(now, &p)
	s.creditAcked(now, p.newBytes)
	return p.newBytes > 0, nil
}

// sackProgress is what HandleSACK's steps learn from one SACK.
type sackProgress struct {
	cum          TSN  // the SACK's Cumulative TSN Ack
	cumAdvanced  bool // it moved the cumulative TSN ack point
	flightBefore int  // the primary's flight size before it
	newBytes     int  // bytes of the chunks it newly acknowledged (with headers)
	htna         TSN  // the highest TSN it newly acknowledged
	haveHTNA     bool
	side         *outSide // the side object of stream sideSID (see sideOf)
	sideSID      uint16
}

// sideOf returns the side object of outbound stream sid, or nil, looked up
// once for a run of acknowledged chunks of one stream: no side object is
// released while a SACK is handled.
func (p *sackProgress) sideOf(streams *streamTable, sid uint16) *outSide {
	if p.side == nil || p.sideSID != sid {
		p.side, p.sideSID = streams.PeekOutSide(sid), sid
	}
	return p.side
}

// newlyAcked notes chunk r (TSN t), newly acknowledged.
func (p *sackProgress) newlyAcked(l *ledger, t TSN, r *record) {
	p.newBytes += l.size(r)
	p.htna, p.haveHTNA = t, true
}

// ackCumulative acknowledges and frees every chunk up to the SACK's
// Cumulative TSN Ack.
func (s *sender) ackCumulative(now time.Time, p *sackProgress) {
	for t := s.ledger.cumAck + 1; t.LEQ(p.cum); t++ {
		r := s.ledger.rec(t)
		if s.ack(now, t, r, p) {
			p.newlyAcked(&s.ledger, t, r)
		}
		if r.state != recAbandoned && r.msg.timed() {
			s.pr.timedChunks--
		}
		s.ledger.passed(r)
		m := r.msg
		r.msg = nil
		s.queue.release(m)
	}
	s.ledger.cumAck = p.cum // every record up to it passed above
}

// ackGapBlocks applies the SACK's Gap Ack Blocks; chunks gap-acked before
// that this SACK does not cover were reneged.
func (s *sender) ackGapBlocks(now time.Time, sk *SACK, p *sackProgress) {
	cum := p.cum
	t := cum + 1
	for _, g := range sk.Gaps {
		start, end := cum.Add(uint32(g.Start)), cum.Add(uint32(g.End))
		if s.ledger.gapAcked == 0 {
			t = start
		}
		for ; t.LT(start); t++ {
			s.renege(now, t)
		}
		for ; t.LEQ(end); t++ {
			r := s.ledger.rec(t)
			if r.state == recGapAcked || r.state == recAbandoned {
				continue
			}
			if s.ack(now, t, r, p) {
				p.newlyAcked(&s.ledger, t, r)
			}
			s.ledger.gapAck(r)
		}
	}
	for ; t != s.ledger.nextTSN && s.ledger.gapAcked > 0; t++ {
		s.renege(now, t)
	}
}

// findLosses marks the chunks the SACK shows lost and reports whether it
// marked any.
func (s *sender) findLosses(now time.Time, sk *SACK, p *sackProgress) bool {
	s.rackDuplicates(sk.Dups)
	if s.cfg.Recovery == api.RecoveryRACK {
		s.paths.primary.hsRound(s.ledger.cumAck, s.ledger.nextTSN)
		s.rackUpdate(now)
		return s.rackDetect(now)
	}
	return s.missIndications(sk, p.cum, p.htna, p.haveHTNA, p.cumAdvanced)
}

// adjustWindows applies the SACK to the primary's cwnd: growth, the end of
// fast recovery, the reduction for losses; with RACK it may undo an RTO
// back-off.
func (s *sender) adjustWindows(now time.Time, p *sackProgress, lost bool) {
	pp := s.paths.primary
	// 7.2.4 note: "if the received SACK chunk also acknowledges new DATA
	// chunks and advances the Cumulative TSN Ack Point, the cwnd adjustment
	// rules defined in Sections 7.2.1 and 7.2.2 MUST be applied first."
	pp.onAck(now, p.newBytes-s.paths.ackedElsewhere, p.flightBefore)
	// "When a SACK chunk acknowledges all TSNs up to and including this
	// exit point, Fast Recovery is exited."
	if pp.inFastRecovery && s.ledger.cumAck.GEQ(pp.fastRecoverTSN) {
		pp.inFastRecovery = false
	}
	if s.cfg.Recovery == api.RecoveryRACK {
		if lost && (p.newBytes > 0 || !pp.inFastRecovery) {
			// One bypass packet per SACK that acked new data or entered
			// recovery: SACKs acknowledging nothing new buy none.
			s.rackLost(now)
		}
		if s.loss.ackedSentOnce && pp.rto > pp.baseRTO() && pp.undoBackoff() {
			s.stats.RTOUndos++
		}
	} else if lost && !pp.inFastRecovery {
		// 7.2.4: adjust ssthresh and cwnd, retransmit in a single packet, and
		// enter Fast Recovery with the highest outstanding TSN as exit point.
		s.loss.fastRtxDue = true
		pp.enterFastRecovery(now, s.ledger.nextTSN-1)
		s.stats.FastRecoveries++
	}
	if s.ledger.outstanding() == 0 {
		// 7.2.2: "When all of the data transmitted by the sender has been
		// acknowledged by the receiver, partial_bytes_acked is initialized
		// to 0."
		pp.pba = 0
		if s.idleWithSpareCaches() {
			s.releaseCaches()
		}
	}
}

// negativeWindow is the least a_rwnd taken as a negative window wrapped
// to 32 bits: Firefox's usrsctp, after it accepted a zero window probe
// into a full buffer, advertises its window less the probe that way
// (0xFFFFFD7E for 642 bytes over). Believing 4 GiB there floods the peer,
// which then aborts with Out of Resource; no receive buffer comes near
// 2 GiB.
const negativeWindow = 1 << 31

// updatePeerWindow takes the SACK's a_rwnd; one from negativeWindow up
// counts as a closed window.
func (s *sender) updatePeerWindow(now time.Time, arwnd uint32) {
	if arwnd >= negativeWindow {
		arwnd = 0
	}
	// 6.2.1 D ii): "Set rwnd equal to the newly received a_rwnd minus the
	// number of bytes still outstanding after processing the Cumulative
	// TSN Ack and the Gap Ack Blocks."
	s.peerRwnd = max(int(arwnd)-s.ledger.unackedData, 0)
	s.learnWindow(arwnd)
	s.loss.zeroWindowProbeAt = time.Time{}
	if s.queue.unsent > 0 && s.ledger.outstanding() == 0 && s.nextChunkSize() > s.peerRwnd {
		// Window closed with nothing outstanding: probe in one RTO (6.1 A).
		s.loss.zeroWindowProbeAt = now.Add(s.paths.primary.rto)
	}
}

// updateT3 stops or restarts the primary's T3-rtx after a SACK (section
// 6.3.2 R2, R3).
func (s *sender) updateT3(now time.Time, p *sackProgress) {
	pp := s.paths.primary
	switch {
	case s.ledger.inFlight == 0 && s.ledger.rtxPending == 0 && !s.pr.advPeerAck.GT(s.ledger.cumAck):
		s.loss.t3 = time.Time{}
	case len(s.paths.list) > 1 && pp.flight == 0 && s.ledger.rtxPending == 0 && !s.pr.advPeerAck.GT(s.ledger.cumAck):
		// Nothing outstanding on the primary (R2 for it); the other
		// paths' timers follow in pathSet.credit.
		s.loss.t3 = time.Time{}
	case len(s.paths.list) > 1 && p.newBytes > s.paths.ackedElsewhere && pp.flight > 0:
		// R3 for the primary: its earliest chunk may be above a
		// cumulative ack point held back by chunks of another path.
		s.loss.t3 = now.Add(pp.rto)
	case p.cumAdvanced:
		s.loss.t3 = now.Add(pp.rto)
	case s.loss.t3.IsZero():
		// Only abandoned chunks are left above the ack point: C5 keeps a
		// timer running for the FORWARD-TSN.
		s.loss.t3 = now.Add(pp.rto)
	}
	s.loss.sackSinceT3 = true
}

// creditAcked ends the SACK: newly acked bytes clear path error counters,
// end a T3-rtx recovery and the tail loss probes, and open a send
// opportunity.
func (s *sender) creditAcked(now time.Time, newBytes int) {
	if newBytes > 0 {
		if newBytes > s.paths.ackedElsewhere {
			s.paths.primary.ClearErrors()
		}
		if len(s.paths.list) > 1 {
			s.paths.credit(now)
		}
		s.loss.t3Recovery, s.loss.t3Sent = false, false
		s.paths.primary.rack.probes = 0
	}
	s.loss.ackedSentOnce = false
	s.armPTO(now)
	s.sendOpportunity(newBytes)
	s.stats.BytesAcked += uint64(newBytes)
}

// errMalformedGaps: the SACK is dropped, as if lost.
var errMalformedGaps = errors.New("malformed gap ack blocks")

// validate checks a SACK against what was sent before anything changes.
// Section 12.4: "An SCTP implementation MUST abort the association if it
// receives a SACK chunk acknowledging a TSN that has not been sent."
func (s *sender) validate(sk *SACK) error {
	highest := s.ledger.nextTSN - 1
	if sk.CumTSNAck.GT(highest) {
		return fmt.Errorf("%w: SACK acknowledges TSN %d, highest sent %d", ErrProtocolViolation, sk.CumTSNAck, highest)
	}
	last := uint32(0)
	for _, g := range sk.Gaps {
		if end := sk.CumTSNAck.Add(uint32(g.End)); end.GT(highest) {
			return fmt.Errorf("%w: SACK gap block acknowledges TSN %d, highest sent %d", ErrProtocolViolation, end, highest)
		}
		if g.Start == 0 || g.Start > g.End || uint32(g.Start) <= last {
			return errMalformedGaps
		}
		last = uint32(g.End)
	}
	return nil
}

// ack takes a chunk out of flight on its first acknowledgement, with an
// RTT sample when allowed, and reports whether it was newly acked; sp is
// the progress of the SACK that acknowledges it.
func (s *sender) ack(now time.Time, t TSN, r *record, sp *sackProgress) bool {
	p := s.paths.of(r)
	inFlight := r.state == recInFlight
	if !s.ledger.acked(r) {
		return false
	}
	if st := sp.sideOf(s.streams, r.sid); st != nil {
		s.queue.unbuffer(st, r.sid, int(r.n)) // as settle does
	}
	if inFlight {
		p.flight -= s.ledger.size(r)
	}
	if p != s.paths.primary {
		p.ackedNow += s.ledger.size(r)
		s.paths.ackedElsewhere += s.ledger.size(r)
	}
	if s.cfg.Recovery == api.RecoveryRACK && p == s.paths.primary {
		s.rackAcked(t, r)
	}
	if s.rtt.acked(t) && r.xmits == 1 { // C5, Karn's algorithm
		p.RTTSample(now, now.Sub(r.sent))
		s.stats.RTTSamples++
	}
	return true
}

// renege puts back in flight a chunk gap-acked earlier that the current
// SACK leaves out (6.2.1 D iii, 6.3.2 R4): one miss indication, and T3-rtx
// started if not running.
func (s *sender) renege(now time.Time, t TSN) {
	r := s.ledger.rec(t)
	if r.state != recGapAcked {
		return
	}
	s.ledger.reneged(r)
	if st := s.streams.PeekOutSide(r.sid); st != nil {
		st.buffered += int(r.n)
	}
	p := s.paths.of(r)
	p.flight += s.ledger.size(r)
	s.stats.Reneged++
	if p != s.paths.primary {
		if p.t3.IsZero() {
			p.t3 = now.Add(p.rto)
		}
	} else if s.loss.t3.IsZero() {
		s.loss.t3 = now.Add(s.paths.primary.rto)
	}
}
