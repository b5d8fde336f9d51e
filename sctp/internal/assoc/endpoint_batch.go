package assoc

import "time"

// Receive batches: the shell hands the core the packets of one read from
// the socket between beginBatch and endBatch. The associations they reach
// hold the SACK that "at least every second packet" (RFC 9260 section
// 6.2) asks for until the batch ends, and send one for the whole batch
// (transfer.Engine.BeginBatch has the reasoning).

// BeginBatch opens a receive batch.
func (ep *Endpoint) BeginBatch() { ep.batching = true }

// joinBatch puts a in the open batch, once, before its packet ends.
func (ep *Endpoint) joinBatch(a *Assoc) {
	if !ep.batching || a.inBatch || a.data.eng == nil {
		return
	}
	a.inBatch = true
	a.data.eng.BeginBatch()
	ep.batched = append(ep.batched, a)
}

// EndBatch closes the receive batch: the associations that held a SACK
// become ready to send it.
func (ep *Endpoint) EndBatch() { ep.endBatch(time.Time{}, false) }

// EndFullBatch is EndBatch after a read that filled the reader's buffers,
// so that more packets wait in the socket: an association whose SACK is
// due only because the batch brought it DATA holds it for the next batch
// that reaches it, once and for a millisecond at most (its SACK deadline:
// transfer.Engine.EndBatchHeld). On a
// bulk transfer that has the reader fall behind this halves the SACKs,
// each a packet written and read.
func (ep *Endpoint) EndFullBatch(now time.Time) { ep.endBatch(now, true) }

// endBatch is EndBatch and EndFullBatch (full).
func (ep *Endpoint) endBatch(now time.Time, full bool) {
	ep.batching = false
	for i, a := range ep.batched {
		a.inBatch = false
		if eng := a.data.eng; eng != nil {
			var due bool
			if full {
				due = eng.EndBatchHeld(now)
			} else {
				due = eng.EndBatch()
			}
			if due && !a.closed {
				ep.markReady(a)
			} else if full {
				ep.touch(a) // the held SACK's deadline
			}
		}
		ep.batched[i] = nil
	}
	ep.batched = ep.batched[:0]
}
