package transfer

import "time"

// The sending half of the engine's API: queueing messages, building DATA
// and FORWARD-TSN chunks, taking SACKs and ECN echoes, and what the
// association reads of the send buffer.

// Queue copies a user message of stream sid into the send buffer with
// partial reliability pr (the zero PR is fully reliable; now starts the
// lifetime of PRTTL). Nothing is cut yet: fragmentation and TSN, SSN or
// MID assignment happen when a chunk goes into a packet (AppendData). It
// returns ErrStreamID for a stream outside the negotiated range,
// ErrEmptyMessage for an empty payload, ErrMessageTooLarge, ErrConfig for
// an unknown policy, ErrWouldBlock when the send buffer has no room (a
// message larger than the whole buffer is accepted when the buffer is
// empty) or Config.Buffers.UnsentLimit bytes would wait to be sent, and
// ErrStreamFull (which matches ErrWouldBlock) when the stream's own unsent
// bytes would pass its share; TakeStreamRoom says when such a stream's
// writer may try again. A PRPrio message that finds the send buffer full
// first abandons queued messages of less important priority (RFC 7496
// section 3.2).
func (e *Engine) Queue(now time.Time, sid uint16, ppid uint32, unordered bool, payload []byte, pr PR) error {
	return e.send.queuePR(now, sid, ppid, unordered, payload, pr)
}

// Pending reports whether AppendData would append something now: chunks
// marked for retransmission or new data the windows allow.
func (e *Engine) Pending(now time.Time) bool { return e.send.pending(now) }

// AppendData appends DATA (or I-DATA) chunks to pkt, using at most room
// bytes, and returns the extended packet and the number of chunks
// appended: retransmissions first (RFC 9260 section 6.1 rule C), then new
// data from the streams the scheduler picks, within the congestion window
// (rule B), the peer's receive window with zero window probes (rule A) and
// Max.Burst (rule D). One call is one packet, for path DataDest.
func (e *Engine) AppendData(now time.Time, pkt []byte, room int) ([]byte, int) {
	return e.send.appendData(now, pkt, room)
}

// DataDest returns the index of the path the packet of the last
// AppendData call must be sent to.
func (e *Engine) DataDest() int { return int(e.send.paths.dest) }

// ForwardDue reports whether a FORWARD-TSN (or I-FORWARD-TSN) should go
// out (RFC 3758 section 3.5 C3 and A5).
func (e *Engine) ForwardDue() bool { return e.send.pr.due(e.send.ledger.cumAck) }

// AppendForward appends the FORWARD-TSN chunk (I-FORWARD-TSN with I-DATA)
// that moves the peer's cumulative TSN to the Advanced.Peer.Ack.Point,
// using at most room bytes, and returns the packet.
func (e *Engine) AppendForward(now time.Time, pkt []byte, room int) []byte {
	return e.send.appendForward(now, pkt, room)
}

// HandleSACK processes a SACK chunk from the peer (RFC 9260 section
// 6.2.1) and reports whether it acknowledged new data (the association
// then resets its error counter, section 8.1). A SACK that acknowledges a
// TSN never sent yields ErrProtocolViolation and changes nothing: the
// association answers with ABORT (section 12.4). Stale and malformed SACKs
// are ignored.
func (e *Engine) HandleSACK(now time.Time, sk *SACK) (acked bool, err error) {
	return e.send.handleSACK(now, sk)
}

// HandleECNE reacts to an ECNE chunk reporting lowest, the lowest TSN of a
// packet that arrived with CE, and reports whether a path reduced its
// window (at most once per window of data).
func (e *Engine) HandleECNE(now time.Time, lowest TSN) bool { return e.send.handleECNE(now, lowest) }

// TakeFailed calls fn for each message abandoned under its PR policy
// since the last call, in order, and forgets them.
func (e *Engine) TakeFailed(fn func(Failed)) { e.send.pr.takeFailed(fn) }

// HasFailed reports whether TakeFailed has messages to report.
func (e *Engine) HasFailed() bool { return len(e.send.pr.failed) > 0 }

// TakeStreamRoom returns the streams whose writers, refused with
// ErrStreamFull, may queue again since the last call. The slice is valid
// until the next call into the engine.
func (e *Engine) TakeStreamRoom() []uint16 { return e.send.queue.takeStreamRoom() }

// HasReports reports whether TakeFailed or TakeStreamRoom has anything to
// return (HasFailed or HasStreamRoom).
func (e *Engine) HasReports() bool {
	return len(e.send.pr.failed) > 0 || len(e.send.queue.writable) > 0
}

// HasStreamRoom reports whether TakeStreamRoom has streams to return.
func (e *Engine) HasStreamRoom() bool { return e.send.queue.hasStreamRoom() }

// Drain removes every queued and unacknowledged message from the send
// buffer, calling fn (when not nil) for each: when the association ends,
// for send-failed events, and after a peer restart, to queue the messages
// again on the new association.
func (e *Engine) Drain(fn func(Unsent)) { e.send.drain(fn) }

// SendIdle reports whether nothing is queued or unacknowledged: the
// condition for sending SHUTDOWN (RFC 9260 section 9.2).
func (e *Engine) SendIdle() bool { return e.send.idle() }

// SendBuffered returns the bytes in the send buffer: queued or
// unacknowledged.
func (e *Engine) SendBuffered() int { return e.send.queue.buffered }

// SendRoom returns the bytes Queue accepts now and the most it accepts
// from an empty send buffer (the send buffer, within the endpoint's send
// budget, or the unsent limit).
func (e *Engine) SendRoom() (room, capacity int) { return e.send.queue.room(), e.send.queue.capacity() }

// Outstanding returns the number of DATA chunks sent and not yet covered
// by the cumulative TSN ack point.
func (e *Engine) Outstanding() int { return e.send.ledger.outstanding() }

// NextTSN returns the TSN the next new DATA chunk will carry.
func (e *Engine) NextTSN() TSN { return e.send.ledger.nextTSN }

// PeerRwnd returns our view of the peer's receive window.
func (e *Engine) PeerRwnd() int { return e.send.peerRwnd }
