package transfer

import "time"

// ECN, the data sender's side (RFC 9260 appendix A, RFC 3168 section
// 6.1.2): an ECNE names a TSN whose packet arrived with CE. The path it
// was last sent on reduces its window as for a loss, without
// retransmitting, at most once per window of data. The association
// answers every ECNE with a CWR whatever this decides.

// ecnState is a path's memory of its last ECN reduction.
type ecnState struct {
	reduced bool // the path reduced its window for ECN at least once
	// highest is nextTSN-1 at the last reduction: ECNEs up to it belong to
	// the window already reduced.
	highest TSN
}

// handleECNE reacts to an ECNE for lowest and reports whether a path
// reduced its window. An acknowledged TSN names the primary path.
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
	// window "cwnd" and reduces the slow start threshold "ssthresh"".
	p.cc.onCongestion(p, now)
	p.pba = 0
	p.ecn.reduced, p.ecn.highest = true, s.ledger.nextTSN-1
	s.stats.ECNReductions++
	return true
}
