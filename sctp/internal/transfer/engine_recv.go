package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// The receiving half of the engine's API: DATA and FORWARD-TSN chunks in,
// SACKs out, messages to the reader, and the receive buffer.

// HandleData processes one DATA chunk from the peer (RFC 9260 sections
// 6.2 and 6.5); the payload is copied when the chunk is kept. The Verdict
// says what happened (InvalidStream asks the association for an ERROR
// with an "Invalid Stream Identifier" cause). An error means the
// association must ABORT: ErrEmptyMessage ("No User Data" cause) or
// ErrProtocolViolation (also for DATA on an association that negotiated
// I-DATA).
func (e *Engine) HandleData(now time.Time, d *Data) (Verdict, error) {
	return e.recv.handleData(now, d)
}

// HandleIData is HandleData for an I-DATA chunk (RFC 8260 section 2.2.3):
// ErrProtocolViolation on an association without I-DATA.
func (e *Engine) HandleIData(now time.Time, d *IData) (Verdict, error) {
	return e.recv.handleIData(now, d)
}

// HandleForwardTSN processes a FORWARD-TSN chunk (RFC 3758 section 3.6).
// A chunk naming a stream outside the negotiated range or moving the
// cumulative TSN beyond the TSN map's window is discarded and the error
// returned; on an association with I-DATA it is ErrProtocolViolation.
func (e *Engine) HandleForwardTSN(now time.Time, c chunk.Chunk) error {
	return e.recv.handleForwardTSN(now, c)
}

// HandleIForwardTSN processes an I-FORWARD-TSN chunk (RFC 8260 section
// 2.3); malformed ones are discarded and the error returned, and on an
// association without I-DATA it is ErrProtocolViolation.
func (e *Engine) HandleIForwardTSN(now time.Time, c chunk.Chunk) error {
	return e.recv.handleIForwardTSN(now, c)
}

// EndPacket tells the engine that the DATA chunks of one packet were all
// handled; it schedules the SACK (every second packet, within the SACK
// delay, at once for the I bit).
func (e *Engine) EndPacket(now time.Time) { e.recv.endPacket(now) }

// BeginBatch opens a receive batch: the packets up to EndBatch arrived
// together and the every-second-packet SACK goes once, at EndBatch.
func (e *Engine) BeginBatch() { e.recv.beginBatch() }

// EndBatch closes the receive batch and reports whether a SACK is due.
func (e *Engine) EndBatch() bool { return e.recv.acks.endBatch() }

// SACKDue reports whether a SACK should go out now.
func (e *Engine) SACKDue(now time.Time) bool { return e.recv.acks.due(now) }

// SACKPending reports whether DATA arrived that no SACK has acknowledged
// yet (a SACK is due or delayed), or duplicates wait to be reported: such
// a SACK may ride on outbound DATA before it is due.
func (e *Engine) SACKPending() bool { return e.recv.acks.pending() }

// AppendSACK appends a SACK chunk (cumulative TSN, Gap Ack Blocks,
// duplicate TSNs, receive window) to pkt, using at most room bytes, and
// returns the extended packet. It clears the SACK schedule.
func (e *Engine) AppendSACK(now time.Time, pkt []byte, room int) []byte {
	return e.recv.appendSACK(now, pkt, room)
}

// SkipSACK clears the SACK schedule without a SACK, for an association
// whose peer sends no more DATA (SHUTDOWN-ACK-SENT).
func (e *Engine) SkipSACK() { e.recv.acks.clear() }

// CumulativeTSN returns the cumulative TSN of received data (the
// Cumulative TSN Ack of our SACKs and of a SHUTDOWN chunk).
func (e *Engine) CumulativeTSN() TSN { return e.recv.tsns.cum }

// Read copies delivered user data into p, taking messages of all streams
// in the order they became deliverable, at most one message per call and
// in parts when it is larger than p (info.EOR marks the last part). It
// returns ErrWouldBlock when nothing is ready. Reading may make a
// window-update SACK due.
func (e *Engine) Read(p []byte) (n int, info RecvInfo, err error) { return e.recv.read(p) }

// ReadStream is Read for inbound stream sid only.
func (e *Engine) ReadStream(sid uint16, p []byte) (n int, info RecvInfo, err error) {
	return e.recv.readStream(sid, p)
}

// Readable reports whether Read would return data.
func (e *Engine) Readable() bool { return e.recv.readable() }

// ReadableStream reports whether ReadStream(sid) would return data.
func (e *Engine) ReadableStream(sid uint16) bool { return e.recv.readableStream(sid) }

// AppendReadable appends to dst the inbound streams that got data to read
// since its last call (each once) and returns the extended slice.
func (e *Engine) AppendReadable(dst []uint16) []uint16 { return e.recv.appendReadable(dst) }

// RecvHeld returns the user bytes received and held: waiting for
// reassembly or ordering, or ready to be read.
func (e *Engine) RecvHeld() int { return e.recv.held() }

// SetRecvBuffer changes the receive buffer (at least one MTU): data held
// beyond a smaller buffer stays, and a larger one makes a window update
// due.
func (e *Engine) SetRecvBuffer(n int) { e.recv.setRecvBuffer(n) }

// SetAdvertisedWindow tells the engine the a_rwnd the peer was last told
// outside SACKs (an INIT or INIT ACK announcing another window than the
// receive buffer), so that a window opening past it makes a window update
// due.
func (e *Engine) SetAdvertisedWindow(n int) { e.recv.setAdvertised(n) }
