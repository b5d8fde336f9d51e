package transfer

import (
	"fmt"
	"time"
)

// HandleSACK processes a SACK chunk from the peer (RFC 9260 section 6.2.1):
// it advances the cumulative TSN ack point, applies the Gap Ack Blocks
// (undoing acknowledgements the peer reneged on), takes RTT measurements,
// adjusts cwnd (7.2.1, 7.2.2), counts miss indications and marks chunks for
// fast retransmit (7.2.4), updates the peer's rwnd and manages T3-rtx
// (6.3.2). It reports whether the SACK acknowledged new data (the
// association then resets its error counter, section 8.1).
//
// A SACK older than the cumulative TSN ack point is ignored. A SACK that
// acknowledges a TSN never sent yields ErrProtocolViolation and changes
// nothing; the association answers with ABORT.
func (s *Sender) HandleSACK(now time.Time, sk *SACK) (acked bool, err error) {
	s.stats.SACKsReceived++
	cum := sk.CumTSNAck
	// 6.2.1 D i): "If Cumulative TSN Ack is less than the Cumulative TSN
	// Ack Point, drop the SACK chunk."
	if cum.LT(s.cumAck) {
		s.stats.SACKsStale++
		return false, nil
	}
	highest := s.nextTSN - 1
	if cum.GT(highest) {
		s.stats.SACKsInvalid++
		return false, fmt.Errorf("%w: SACK acknowledges TSN %d, highest sent %d", ErrProtocolViolation, cum, highest)
	}
	// Validate the gap blocks before changing anything: each must lie
	// above the previous one and not beyond the highest TSN sent.
	last := uint32(0)
	for _, g := range sk.Gaps {
		if g.Start == 0 || g.Start > g.End || uint32(g.Start) <= last {
			s.stats.SACKsInvalid++
			return false, fmt.Errorf("%w: SACK gap block %d-%d malformed or out of order", ErrProtocolViolation, g.Start, g.End)
		}
		if cum.Add(uint32(g.End)).GT(highest) {
			s.stats.SACKsInvalid++
			return false, fmt.Errorf("%w: SACK gap block acknowledges TSN %d, highest sent %d", ErrProtocolViolation, cum.Add(uint32(g.End)), highest)
		}
		last = uint32(g.End)
	}
	s.stats.DupTSNsReported += uint64(len(sk.Dups))

	fullyUsed := s.path.flight >= s.path.cwnd
	newBytes := 0
	cumAdvanced := cum.GT(s.cumAck)
	var htna TSN // highest TSN newly acknowledged
	haveHTNA := false
	rttDone := false

	// Cumulative acknowledgement.
	for t := s.cumAck + 1; t.LEQ(cum); t++ {
		r := s.rec(t)
		switch r.state {
		case recInFlight:
			s.path.flight -= int(r.n)
			s.inFlight--
			fallthrough
		case recRtx:
			if r.state == recRtx {
				s.rtxPending--
			}
			newBytes += int(r.n)
			htna, haveHTNA = t, true
		}
		if s.timing && s.timedTSN == t {
			s.timing = false
			if r.xmits == 1 { // C5, Karn's rule
				s.path.RTTSample(now, now.Sub(r.sent))
				rttDone = true
			}
		}
		r.state = recAcked
		m := r.msg
		r.msg = nil
		s.release(m)
	}
	if cumAdvanced {
		s.cumAck = cum
	}

	// Gap Ack Blocks, and reneging for gap-acked chunks no longer covered.
	t := cum + 1
	for _, g := range sk.Gaps {
		start, end := cum.Add(uint32(g.Start)), cum.Add(uint32(g.End))
		for ; t.LT(start); t++ {
			s.renege(t)
		}
		for ; t.LEQ(end); t++ {
			r := s.rec(t)
			switch r.state {
			case recInFlight:
				s.path.flight -= int(r.n)
				s.inFlight--
			case recRtx:
				s.rtxPending--
				r.fastRtx = false
			default:
				continue
			}
			r.state = recGapAcked
			newBytes += int(r.n)
			htna, haveHTNA = t, true
			if s.timing && s.timedTSN == t {
				s.timing = false
				if r.xmits == 1 {
					s.path.RTTSample(now, now.Sub(r.sent))
					rttDone = true
				}
			}
		}
	}
	for ; t != s.nextTSN; t++ {
		s.renege(t)
	}
	if rttDone {
		s.stats.RTTSamples++
	}

	// Miss indications (7.2.4), HTNA: "miss indications are incremented
	// only for missing TSNs prior to the highest TSN newly acknowledged in
	// the SACK ... If an endpoint is in Fast Recovery and a SACK arrives
	// that advances the Cumulative TSN Ack Point, the miss indications are
	// incremented for all TSNs reported missing in the SACK."
	limit := htna
	if s.path.inFastRecovery && cumAdvanced && len(sk.Gaps) > 0 {
		limit = cum.Add(uint32(sk.Gaps[len(sk.Gaps)-1].End))
		haveHTNA = true
	}
	marked := false
	if haveHTNA && len(sk.Gaps) > 0 {
		for t := cum + 1; t.LT(limit); t++ {
			r := s.rec(t)
			if r.state != recInFlight || r.fastDone {
				continue
			}
			if r.misses++; r.misses >= 3 {
				// "mark the DATA chunk(s) with three miss indications for
				// retransmission"; a chunk is fast-retransmitted only once.
				r.misses = 0
				r.state = recRtx
				r.fastRtx = true
				s.rtxPending++
				s.inFlight--
				s.path.flight -= int(r.n)
				marked = true
			}
		}
	}

	// Congestion control (7.2.1, 7.2.2), then fast recovery exit.
	s.path.onAck(newBytes, cumAdvanced, fullyUsed)
	if s.path.inFastRecovery && s.cumAck.GEQ(s.path.fastRecoverTSN) {
		s.path.inFastRecovery = false
	}
	if marked {
		s.fastRtx = true
		// 7.2.4 step 2: "If not in Fast Recovery, adjust the ssthresh and
		// cwnd ... and enter Fast Recovery", exit point = highest TSN sent.
		if !s.path.inFastRecovery {
			s.path.enterFastRecovery(s.nextTSN - 1)
			s.stats.FastRecoveries++
		}
	}
	if s.Outstanding() == 0 {
		// 7.2.2: "When all of the data transmitted by the sender has been
		// acknowledged by the receiver, partial_bytes_acked is initialized
		// to 0."
		s.path.pba = 0
	}

	// 6.2.1 D iv): "Set rwnd equal to the newly received a_rwnd minus the
	// number of bytes still outstanding after processing the Cumulative
	// TSN Ack and the Gap Ack Blocks."
	s.peerRwnd = max(int(sk.ARwnd)-s.unackedBytes(), 0)

	// T3-rtx, 6.3.2 R2 and R3.
	switch {
	case s.inFlight == 0 && s.rtxPending == 0:
		s.t3 = time.Time{}
	case cumAdvanced || s.t3.IsZero():
		s.t3 = now.Add(s.path.rto)
	}
	if newBytes > 0 {
		s.path.ClearErrors()
	}
	s.burstLeft = s.cfg.MaxBurst
	s.stats.BytesAcked += uint64(newBytes)
	return newBytes > 0, nil
}

// renege returns a chunk the peer no longer reports in a gap block to the
// outstanding state (6.2.1: gap-acked data may be reneged). Rule R4: T3 is
// restarted by the caller when stopped.
func (s *Sender) renege(t TSN) {
	r := s.rec(t)
	if r.state != recGapAcked {
		return
	}
	r.state = recInFlight
	r.misses = 0
	s.inFlight++
	s.path.flight += int(r.n)
	s.stats.Reneged++
}

// unackedBytes returns the bytes of chunks above the cumulative TSN ack
// point not acknowledged by a gap block.
func (s *Sender) unackedBytes() int {
	n := s.path.flight
	if s.rtxPending > 0 {
		for t := s.cumAck + 1; t != s.nextTSN; t++ {
			if r := s.rec(t); r.state == recRtx {
				n += int(r.n)
			}
		}
	}
	return n
}

// OnTimeout handles the expiry of T3-rtx when its deadline has passed
// (section 6.3.3): it adjusts ssthresh and cwnd (E1, 7.2.3), backs off the
// RTO (E2), marks every outstanding chunk for retransmission (E3) and counts
// a path error. It reports whether the timer expired; the association then
// counts an association error and checks Association.Max.Retrans and
// Path.Max.Retrans.
func (s *Sender) OnTimeout(now time.Time) (expired bool) {
	if s.t3.IsZero() || now.Before(s.t3) {
		return false
	}
	s.t3 = time.Time{}
	s.stats.T3Expiries++
	s.path.onT3Expiry()
	s.path.Backoff()
	s.path.Fault()
	for t := s.cumAck + 1; t != s.nextTSN; t++ {
		r := s.rec(t)
		if r.state == recInFlight {
			r.state = recRtx
			s.rtxPending++
		}
		r.fastRtx = false
		r.misses = 0
	}
	s.inFlight = 0
	s.path.flight = 0
	s.fastRtx = false
	s.timing = false
	s.burstLeft = s.cfg.MaxBurst
	// E3: the next AppendData retransmits the earliest chunks (cwnd is one
	// MTU now, so one packet's worth) and restarts the timer (R1).
	return true
}
