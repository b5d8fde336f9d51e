package transfer

import "time"

// Explicit Congestion Notification, the data sender's side (RFC 9260
// appendix A with RFC 3168 section 6.1.2): an ECNE chunk from the peer
// reports that a packet carrying the TSN it names arrived with the CE
// codepoint. The path that chunk was last sent on reduces its window
// through its congestion controller, as for a loss found from
// acknowledgements but without retransmitting anything, and at most once
// per window of data: a report for a TSN sent before the last reduction
// on that path (or before the fast recovery that already reduced it)
// changes nothing. The association answers every ECNE with a CWR
// whatever this decides, so the peer stops echoing.

// ecnState is a path's memory of its last ECN reduction.
type ecnState struct {
	reduced bool // the path reduced its window for ECN at least once
	// highest is the highest TSN assigned when the path last reduced:
	// ECNEs for TSNs up to it belong to the window already reduced.
	highest TSN
}

// handleECNE reacts to an ECNE chunk reporting lowest, the lowest TSN of a
// packet that arrived with CE. It reports whether a path reduced its
// window. A TSN outstanding names the path it was last sent on; one
// already acknowledged the primary path. A TSN never sent changes nothing.
func (s *sender) handleECNE(now time.Time, lowest TSN) bool {
	s.stats.ECNEchoes++
	if !lowest.LT(s.ledger.nextTSN) {
		return false
	}
	p := s.paths.primary
	if lowest.GT(s.ledger.cumAck) {
		p = s.paths.of(s.ledger.rec(lowest))
	}
	if p.ecn.reduced && !lowest.GT(p.ecn.highest) {
		return false // this window already reduced for ECN
	}
	if p.inFastRecovery && !lowest.GT(p.fastRecoverTSN) {
		return false // nor again for a window fast recovery reduced
	}
	// RFC 3168 section 6.1.2: "the TCP source halves the congestion
	// window "cwnd" and reduces the slow start threshold "ssthresh"" (the
	// controller's multiplicative decrease; RFC 9438 section 4.6 treats
	// an ECN-Echo as a loss).
	p.cc.onCongestion(p, now)
	p.pba = 0
	p.ecn.reduced, p.ecn.highest = true, s.ledger.nextTSN-1
	s.stats.ECNReductions++
	return true
}
