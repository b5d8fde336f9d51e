package transfer

// Proportional Rate Reduction (RFC 6937) for the sending in fast recovery
// of RecoveryRACK: instead of RFC 9260's "cwnd = ssthresh" at once, which
// stops all sending until the flight has drained below the new window and
// then releases a burst, each SACK in recovery lets out new or
// retransmitted data in proportion to what it acknowledged, so that the
// flight falls smoothly to ssthresh by the end of the recovery (and, when
// losses took it below ssthresh, grows back to it by at most one chunk
// more than what was acknowledged: PRR-SSRB). RecoveryRFC9260 keeps
// section 7.2.4's rule.

// PRR sets cwnd itself while the recovery lasts, to the flight each SACK
// lets the path reach (Linux TCP's way), so that section 6.1 rule B ("MUST
// NOT transmit new data ... if it has cwnd + (PMDCS - 1) or more bytes of
// data outstanding") keeps holding as written: the window is lowered step
// by step instead of at once, never above what it was when the recovery
// began, and is ssthresh when the recovery ends.

// prrState is a path's PRR state during one fast recovery.
type prrState struct {
	recoverFS int // the window when recovery began (RecoverFS)
	delivered int // bytes acknowledged since (prr_delivered)
	out       int // bytes sent since (prr_out)
}

// prrStart begins PRR at the entry into fast recovery, after the
// controller set ssthresh (and cwnd to it): recoverFS is the window before
// (what was outstanding). Until the next SACK the window is the flight, so
// the reduction stops no sending (beyond the fast retransmit, nothing is
// sent before that SACK), or ssthresh when the flight is below it.
func (p *Path) prrStart(recoverFS int) {
	p.prr = prrState{recoverFS: max(recoverFS, 1)}
	p.cwnd = max(min(p.flight, recoverFS), p.ssthresh)
}

// prrAck applies RFC 6937 section 3's per-ACK step for a SACK in recovery
// that newly acknowledged delivered bytes on the path: "sndcnt =
// CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out" while the flight
// (pipe) is above ssthresh, else "sndcnt = MIN(ssthresh - pipe, limit)"
// with PRR-SSRB's "limit = MAX(prr_delivered - prr_out, DeliveredData) +
// MSS". The window becomes pipe + sndcnt, within [PMDCS, RecoverFS]: a
// peer that acknowledges the same chunks again and again (reneging) gets
// no more than the window it had.
func (p *Path) prrAck(delivered int) {
	r := &p.prr
	r.delivered += delivered
	pipe := p.flight
	var sndcnt int
	if pipe > p.ssthresh {
		sndcnt = (r.delivered*p.ssthresh+r.recoverFS-1)/r.recoverFS - r.out
	} else {
		sndcnt = min(p.ssthresh-pipe, max(r.delivered-r.out, delivered)+p.pmdcs())
	}
	p.cwnd = min(max(pipe+max(sndcnt, 0), p.pmdcs()), r.recoverFS)
}

// addFlight counts n bytes sent on the path, and into prr_out during a
// fast recovery.
func (p *Path) addFlight(n int) {
	p.flight += n
	if p.inFastRecovery {
		p.prr.out += n
	}
}
