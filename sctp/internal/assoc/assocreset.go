package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The SSN/TSN Reset Request (RFC 6525 sections 5.1.4 and 5.2.4) resets
// the TSNs of both directions and every stream's numbering. Ours rides
// reconf.go as rqAssocReset. A peer's is performed only when both our
// directions are at rest (assocResetReady); otherwise it is answered "In
// progress" without settling its sequence number.

// peerAssocReset handles the peer's SSN/TSN Reset Request (section 5.2.4):
// G1 Receiver's Next TSN = smallest TSN not acknowledged + 2^31; G2 our
// next TSN = highest sent + 1; G5 every SSN back to 0; G6 answer success.
// G3 and G4 (an implied SACK and FORWARD-TSN) change nothing because the
// request is performed only at rest (assocResetReady); G7 holds since the
// answer is sent after the whole packet. With a request of ours
// outstanding the answer is "In progress"; with
// Config.Extensions.DenyAssocReset it is "Denied".
func (a *Assoc) peerAssocReset(now time.Time, q *chunk.ReconfigParam) {
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	if a.ep.cfg.DenyAssocReset {
		// Section 5.2.1: denial is an administrative decision.
		a.answer(reqSeq(q.ReqSeq), chunk.ReconfigDenied)
		a.settle(chunk.ReconfigDenied)
		return
	}
	if a.rc.out != nil || a.rc.deferring {
		a.answer(reqSeq(q.ReqSeq), chunk.ReconfigInProgress)
		a.settle(chunk.ReconfigInProgress)
		return
	}
	if !a.assocResetReady() {
		a.stats.Reconf.AssocResetsPending++
		a.answer(reqSeq(q.ReqSeq), chunk.ReconfigPending)
		return
	}
	eng := a.data.eng
	recvNext := eng.CumulativeTSN() + 1 + 1<<31 // G1
	sendNext := chunk.TSN(eng.NextTSN())        // G2
	a.resetTSNs(sendNext, recvNext)
	resp := chunk.ReconfigParam{Type: chunk.ParamReconfigResponse, RespSeq: q.ReqSeq,
		Result: chunk.ReconfigSuccessPerformed, HasTSNs: true,
		SenderNextTSN: sendNext, ReceiverNextTSN: recvNext}
	a.rc.tsnResp = resp
	a.answerParam(resp)
	a.settle(chunk.ReconfigSuccessPerformed)
	a.stats.Reconf.AssocResetsIn++
	a.emit(api.Event{Kind: api.EventAssocReset, Direction: api.DirBoth, NextTSN: uint32(sendNext), PeerNextTSN: uint32(recvNext)})
}

// assocResetReady reports whether the association can perform an SSN/TSN
// reset now: everything we sent is acknowledged, no message of ours is
// partly cut, and everything received is in sequence and reassembled.
func (a *Assoc) assocResetReady() bool {
	eng := a.data.eng
	return eng.ReadyForTSNReset()
}

// resetTSNs performs the peer's SSN/TSN reset (see
// Engine.ResetTSNs).
func (a *Assoc) resetTSNs(sendNext, recvNext chunk.TSN) {
	a.data.eng.ResetTSNs(sendNext, recvNext)
	a.ep.markReady(a)
}

// assocResetWaiting reports whether our SSN/TSN Reset Request waits for
// outstanding data to be acknowledged.
func (a *Assoc) assocResetWaiting() bool {
	r := a.rc.out
	return r != nil && !r.sent && r.np == 1 && r.params[0].kind == rqAssocReset
}

// endAssocReset ends our SSN/TSN Reset Request p (see
// Engine.FinishTSNReset) and reopens the streams. It reports false when
// the association was aborted.
func (a *Assoc) endAssocReset(p *reconfParam, performed bool) bool {
	if !a.data.eng.FinishTSNReset(performed, p.tsns.SenderNextTSN, p.tsns.ReceiverNextTSN) {
		a.protocolViolation("DATA held for an association reset breaks the fragment sequence")
		return false
	}
	if performed {
		a.pend.sackNow = true
	}
	a.unblockOut(p, performed)
	return true
}
