package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// The SSN/TSN Reset Request (RFC 6525 sections 5.1.4 and 5.2.4) resets
// the whole association's numbering: the TSNs of both directions and the
// stream sequence numbers (with I-DATA, message ids) of every stream.
//
// Our request (ResetAssoc) rides the reconfiguration machinery of
// reconf.go as request kind rqAssocReset: every stream is blocked
// once what was written before has been cut into chunks, the request
// leaves once all of it is acknowledged, and a "Success - Performed"
// response applies the next TSNs it carries (resetTSNs).
//
// A peer's request is performed only when both our directions are at
// rest (assocResetReady); otherwise it is answered "In progress" without
// settling its sequence number, so the peer's retransmission is
// evaluated afresh.

// peerAssocReset handles the peer's SSN/TSN Reset Request (section
// 5.2.4):
//
//	G1: Compute an appropriate value for the Receiver's Next TSN -- the
//	    TSN that the peer should use to send the next DATA chunk. The
//	    value SHOULD be the smallest TSN not acknowledged by the receiver
//	    of the request plus 2^31.
//	G2: Compute an appropriate value for the local endpoint's next TSN,
//	    i.e., the next TSN assigned by the receiver of the SSN/TSN reset
//	    chunk. The value SHOULD be the highest TSN sent by the receiver
//	    of the request plus 1.
//	G3: The same processing as though a SACK chunk with no gap report
//	    and a cumulative TSN ACK of the Sender's Next TSN minus 1 were
//	    received MUST be performed.
//	G4: The same processing as though a FWD-TSN chunk (as defined in
//	    [RFC3758]) with all streams affected and a new cumulative TSN ACK
//	    of the Receiver's Next TSN minus 1 were received MUST be
//	    performed.
//	G5: The next expected and outgoing SSNs MUST be reset to 0 for all
//	    incoming and outgoing streams.
//	G6: A Re-configuration Response Parameter MUST be put into a
//	    RE-CONFIG chunk indicating successful processing.
//	G7: The RE-CONFIG chunk MUST be sent after the current DATA chunk
//	    received was processed completely.
//
// G3 and G4 change nothing here because the request is performed only
// when nothing of ours is unacknowledged and nothing received waits for
// a gap, reassembly or a deferred reset (assocResetReady); G7 holds since
// the answer is queued and sent after the whole packet was processed.
// With a request of our own outstanding the answer is "Error - Request
// already in progress"; with Config.Extensions.DenyAssocReset it is "Denied".
func (a *Assoc) peerAssocReset(now time.Time, q *chunk.ReconfigParam) {
	if !a.peerRequest(reqSeq(q.ReqSeq)) {
		return
	}
	if a.ep.cfg.DenyAssocReset {
		// Section 5.2.1: "The decision to deny a re-configuration
		// request is an administrative decision".
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

// resetTSNs performs the peer's SSN/TSN reset: our next DATA chunk
// carries sendNext, the next one expected from the peer is recvNext, and
// every stream both ways numbers from 0 again.
func (a *Assoc) resetTSNs(sendNext, recvNext chunk.TSN) {
	a.data.eng.ResetTSNs(sendNext, recvNext)
	a.ep.markReady(a)
}

// assocResetWaiting reports whether our SSN/TSN Reset Request waits for
// the outstanding data to be acknowledged; the association then tries to
// send it after each packet received.
func (a *Assoc) assocResetWaiting() bool {
	r := a.rc.out
	return r != nil && !r.sent && r.np == 1 && r.params[0].kind == rqAssocReset
}

// endAssocReset ends our SSN/TSN Reset Request p: the data received while
// it was out is released (Engine.FinishTSNReset) and, when the peer performed
// it, both directions take the next TSNs of its answer (the Receiver's
// Next TSN for our DATA) and every stream restarts at 0; the streams send
// again. It reports false when the association was aborted.
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
