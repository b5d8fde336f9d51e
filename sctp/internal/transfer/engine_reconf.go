package transfer

// Stream reconfiguration (RFC 6525), the engine's API: the association
// runs the RE-CONFIG exchange and calls these to add streams, reset stream
// numbering (holding the data of a deferred reset) and reset the TSNs.

// AddOutgoing adds n outbound streams for an Add Outgoing Streams Request
// (RFC 6525 section 4.5). They cannot carry data until FinishAddOutgoing
// says the peer performed the request. It returns the first new stream id.
func (e *Engine) AddOutgoing(n uint16) (first uint16, err error) { return e.send.addOutgoing(n) }

// FinishAddOutgoing ends the pending AddOutgoing: when performed the new
// streams open, otherwise they are removed again. It returns the outbound
// stream count.
func (e *Engine) FinishAddOutgoing(performed bool) int { return e.send.finishAddOutgoing(performed) }

// AddIncoming grows the inbound streams by n, for the peer's Add Outgoing
// Streams Request (RFC 6525 section 5.2.5). It fails, changing nothing,
// when the total would exceed 65535. It returns the inbound stream count.
func (e *Engine) AddIncoming(n uint16) (int, error) { return e.recv.addIncoming(n) }

// BeginOutgoingReset starts an outgoing reset of streams sids (every
// stream when empty), for an Outgoing SSN Reset Request: the messages
// already written to them still go out with the old numbering, later ones
// wait until FinishOutgoingReset.
func (e *Engine) BeginOutgoingReset(sids []uint16) { e.send.beginOutgoingReset(sids) }

// OutgoingResetReady reports whether every stream of BeginOutgoingReset
// has sent what was written to it before, so that the request may leave:
// LastAssignedTSN then covers all their old data.
func (e *Engine) OutgoingResetReady() bool { return e.send.resets.ready() }

// FinishOutgoingReset ends an outgoing reset: the streams restart their
// numbering at 0 when the peer performed it, and send again.
func (e *Engine) FinishOutgoingReset(sids []uint16, performed bool) {
	e.send.finishOutgoingReset(sids, performed)
}

// LastAssignedTSN returns the TSN of the last DATA chunk cut (the
// "Sender's Last Assigned TSN" of an Outgoing SSN Reset Request, RFC 6525
// section 4.1), the initial TSN less one before any.
func (e *Engine) LastAssignedTSN() TSN { return e.send.ledger.nextTSN - 1 }

// DeferIncomingReset starts "deferred reset processing" (RFC 6525 section
// 5.2.2 E2) of inbound streams sids (every stream when empty) until the
// cumulative TSN reaches last: DATA beyond last on those streams is
// acknowledged but held until ResetIncoming.
func (e *Engine) DeferIncomingReset(last TSN, sids []uint16) { e.recv.deferReset(last, sids) }

// DeferredIncomingReset reports whether an incoming reset is deferred, and
// the TSN it waits for.
func (e *Engine) DeferredIncomingReset() (last TSN, ok bool) { return e.recv.deferredUntil() }

// ResetIncoming resets inbound streams sids (every stream when empty) to
// expect SSN (or MID) 0 again and releases the data a deferred reset held
// (RFC 6525 section 5.2.2 E3 and E4). It reports false when a held
// fragment broke the fragment rules (the association should abort).
func (e *Engine) ResetIncoming(sids []uint16) bool { return e.recv.ResetIncoming(sids) }

// SenderReadyForTSNReset reports whether the sending half can take part
// in an SSN/TSN reset (RFC 6525 sections 5.1.4 and 5.2.4): nothing it sent
// is unacknowledged, no FORWARD-TSN is owed and no message is partly cut
// into chunks.
func (e *Engine) SenderReadyForTSNReset() bool { return e.send.readyForTSNReset() }

// ReadyForTSNReset reports whether both halves can take part in an
// SSN/TSN reset: the sender as SenderReadyForTSNReset says, and every TSN
// received is in sequence, reassembled and ordered, with no incoming
// stream reset deferred.
func (e *Engine) ReadyForTSNReset() bool {
	return e.send.readyForTSNReset() && e.recv.readyForTSNReset()
}

// ResetTSNs performs the peer's SSN/TSN Reset Request (RFC 6525 section
// 5.2.4) once ReadyForTSNReset: our next DATA chunk carries sendNext, the
// next TSN expected from the peer is recvNext, and every stream both ways
// numbers from 0 again.
func (e *Engine) ResetTSNs(sendNext, recvNext TSN) {
	e.send.resetTSN(sendNext)
	e.recv.resetTSN(recvNext)
}

// BeginTSNReset is called when our SSN/TSN Reset Request leaves (RFC 6525
// section 5.1.4): until FinishTSNReset every DATA fragment that arrives is
// held (it may belong to the old numbering or to the new), and a SACK
// acknowledging TSNs beyond those sent is taken as one the peer sent in
// the new numbering and dropped as stale rather than answered with ABORT.
func (e *Engine) BeginTSNReset() {
	e.recv.holdAll()
	e.send.resets.tsnResetOut = true
}

// FinishTSNReset ends BeginTSNReset on the peer's answer. When the peer
// performed the reset, the fragments held below peerNext (the answer's
// Sender's Next TSN) are released with the old numbering, every inbound
// stream restarts at 0 from peerNext, and our next DATA chunk carries
// ourNext (the answer's Receiver's Next TSN); otherwise everything held is
// released unchanged. It reports false when a released fragment broke the
// fragment rules (the association should abort), changing nothing more.
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
