package assoc

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
func (ep *Endpoint) EndBatch() {
	ep.batching = false
	for i, a := range ep.batched {
		a.inBatch = false
		if eng := a.data.eng; eng != nil && eng.EndBatch() && !a.closed {
			ep.markReady(a)
		}
		ep.batched[i] = nil
	}
	ep.batched = ep.batched[:0]
}
