package transfer

// Stream reconfiguration (RFC 6525): the association runs the RE-CONFIG
// exchange and calls these.

// AddOutgoing adds n outbound streams (RFC 6525 section 4.5), unusable
// until FinishAddOutgoing. It returns the first new stream id.
func (e *Engine) AddOutgoing(n uint16) (first uint16, err error) { return e.send.addOutgoing(n) }

// FinishAddOutgoing opens the added streams when performed, otherwise
// removes them. It returns the outbound stream count.
func (e *Engine) FinishAddOutgoing(performed bool) int { return e.send.finishAddOutgoing(performed) }

// AddIncoming grows the inbound streams by n (RFC 6525 section 5.2.5),
// failing beyond 65535. It returns the inbound stream count.
func (e *Engine) AddIncoming(n uint16) (int, error) { return e.recv.addIncoming(n) }

// BeginOutgoingReset starts an outgoing reset of streams sids (all when
// empty): data already written goes out with the old numbering, later
// data waits until FinishOutgoingReset.
func (e *Engine) BeginOutgoingReset(sids []uint16) { e.send.beginOutgoingReset(sids) }

// OutgoingResetReady reports whether the streams being reset have sent
// their old data, so LastAssignedTSN covers it and the request may leave.
func (e *Engine) OutgoingResetReady() bool { return e.send.resets.ready() }

// FinishOutgoingReset ends an outgoing reset; performed restarts the
// streams' numbering at 0.
func (e *Engine) FinishOutgoingReset(sids []uint16, performed bool) {
	e.send.finishOutgoingReset(sids, performed)
}

// LastAssignedTSN returns the TSN of the last DATA chunk cut (RFC 6525
// section 4.1 "Sender's Last Assigned TSN").
func (e *Engine) LastAssignedTSN() TSN { return e.send.ledger.nextTSN - 1 }

// DeferIncomingReset defers the reset of inbound streams sids (all when
// empty) until the cumulative TSN reaches last (RFC 6525 section 5.2.2
// E2): their DATA beyond last is held until ResetIncoming.
func (e *Engine) DeferIncomingReset(last TSN, sids []uint16) { e.recv.deferReset(last, sids) }

// DeferredIncomingReset returns the TSN a deferred incoming reset waits for.
func (e *Engine) DeferredIncomingReset() (last TSN, ok bool) { return e.recv.deferredUntil() }

// ResetIncoming resets inbound streams sids (all when empty) to SSN/MID 0
// and releases held data (RFC 6525 section 5.2.2 E3, E4). False means a
// held fragment broke the fragment rules: the association should abort.
func (e *Engine) ResetIncoming(sids []uint16) bool { return e.recv.ResetIncoming(sids) }

// SenderReadyForTSNReset reports whether the sender can take part in an
// SSN/TSN reset (RFC 6525 sections 5.1.4, 5.2.4): nothing unacknowledged,
// no FORWARD-TSN owed, no message partly cut.
func (e *Engine) SenderReadyForTSNReset() bool { return e.send.readyForTSNReset() }

// ReadyForTSNReset reports whether both halves can take part in an SSN/TSN
// reset: the receiver must have every TSN in sequence and delivered, with
// no incoming reset deferred.
func (e *Engine) ReadyForTSNReset() bool {
	return e.send.readyForTSNReset() && e.recv.readyForTSNReset()
}

// ResetTSNs performs the peer's SSN/TSN Reset Request (RFC 6525 section
// 5.2.4) once ReadyForTSNReset; every stream restarts at 0.
func (e *Engine) ResetTSNs(sendNext, recvNext TSN) {
	e.send.resetTSN(sendNext)
	e.recv.resetTSN(recvNext)
}

// BeginTSNReset is called when our SSN/TSN Reset Request leaves (RFC 6525
// section 5.1.4): until FinishTSNReset all arriving DATA is held, and a
// SACK beyond what we sent is dropped as stale rather than aborting.
func (e *Engine) BeginTSNReset() {
	e.recv.holdAll()
	e.send.resets.tsnResetOut = true
}

// FinishTSNReset ends BeginTSNReset on the peer's answer. When performed,
// fragments held below peerNext are released with the old numbering,
// inbound streams restart at peerNext and our next TSN is ourNext;
// otherwise everything held is released unchanged. False means a released
// fragment broke the fragment rules: the association should abort.
func (e *Engine) FinishTSNReset(performed bool, peerNext, ourNext TSN) bool {
	if !e.recv.endHold(performed, peerNext) {
		return false
	}
	if performed {
		e.send.resetTSN(ourNext)
	} else {
		e.send.resets.tsnResetOut = false
	}
	return true
}
