package transfer

import (
	"time"

	"github.com/usctp/usctp/interleave"

	"github.com/usctp/usctp/sctp/chunk"
)

// HandleData processes one DATA chunk (RFC 9260 sections 6.2 and 6.5),
// keeping the payload when accepted: a copy, or a reference to the
// receive buffer SetRecvBuf named. InvalidStream asks for an ERROR; an
// error (ErrEmptyMessage, ErrProtocolViolation) asks for an ABORT.
func (e *Engine) HandleData(now time.Time, d *Data) (Verdict, error) {
	return e.recv.handleData(now, d)
}

// SetRecvBuf names the receive buffer the packet whose chunks follow
// arrived in (nil: none). The fragments of its DATA and I-DATA chunks may
// then reference it instead of holding a copy of their payload, each with
// a reference to the buffer until it is read or dropped. The caller sets
// it to nil once the packet is processed.
func (e *Engine) SetRecvBuf(b *interleave.RecvBuf) { e.recv.lend = b }

// HandleIData is HandleData for I-DATA (RFC 8260 section 2.2.3).
func (e *Engine) HandleIData(now time.Time, d *IData) (Verdict, error) {
	return e.recv.handleIData(now, d)
}

// HandleForwardTSN processes a FORWARD-TSN chunk (RFC 3758 section 3.6);
// an invalid one is discarded and the error returned.
func (e *Engine) HandleForwardTSN(now time.Time, c chunk.Chunk) error {
	return e.recv.handleForwardTSN(now, c)
}

// HandleIForwardTSN processes an I-FORWARD-TSN chunk (RFC 8260 section
// 2.3); an invalid one is discarded and the error returned.
func (e *Engine) HandleIForwardTSN(now time.Time, c chunk.Chunk) error {
	return e.recv.handleIForwardTSN(now, c)
}

// EndPacket ends the DATA chunks of one packet and schedules the SACK.
func (e *Engine) EndPacket(now time.Time) { e.recv.endPacket(now) }

// BeginBatch opens a receive batch: the packets up to EndBatch get one
// every-second-packet SACK.
func (e *Engine) BeginBatch() { e.recv.beginBatch() }

// EndBatch closes the receive batch and reports whether a SACK is due.
func (e *Engine) EndBatch() bool { return e.recv.acks.endBatch() }

// EndBatchHeld is EndBatch after a read that filled the reader's buffers:
// a SACK due only because the batch had DATA waits for the next batch's
// end, once, or a millisecond at most (the SACK deadline moves to it).
func (e *Engine) EndBatchHeld(now time.Time) bool { return e.recv.acks.endBatchHeld(now) }

// SACKDue reports whether a SACK should go out now.
func (e *Engine) SACKDue(now time.Time) bool { return e.recv.acks.due(now) }

// SACKPending reports whether unacknowledged DATA or duplicates wait to
// be reported, so a SACK may ride on outbound DATA before it is due.
func (e *Engine) SACKPending() bool { return e.recv.acks.pending() }

// AppendSACK appends a SACK chunk to pkt within room bytes and clears the
// SACK schedule.
func (e *Engine) AppendSACK(now time.Time, pkt []byte, room int) []byte {
	return e.recv.appendSACK(now, pkt, room)
}

// SkipSACK clears the SACK schedule, for SHUTDOWN-ACK-SENT.
func (e *Engine) SkipSACK() { e.recv.acks.clear() }

// CumulativeTSN returns the cumulative TSN of received data.
func (e *Engine) CumulativeTSN() TSN { return e.recv.tsns.cum }

// Read copies delivered user data into p, one message per call in the
// order messages became deliverable, in parts when larger than p
// (info.EOR marks the last). ErrWouldBlock when nothing is ready.
func (e *Engine) Read(p []byte) (n int, info RecvInfo, err error) { return e.recv.read(p) }

// ReadStream is Read for inbound stream sid only.
func (e *Engine) ReadStream(sid uint16, p []byte) (n int, info RecvInfo, err error) {
	return e.recv.readStream(sid, p)
}

// Readable reports whether Read would return data.
func (e *Engine) Readable() bool { return e.recv.readable() }

// ReadableStream reports whether ReadStream(sid) would return data.
func (e *Engine) ReadableStream(sid uint16) bool { return e.recv.readableStream(sid) }

// AppendReadable appends the inbound streams that got data since its last
// call.
func (e *Engine) AppendReadable(dst []uint16) []uint16 { return e.recv.appendReadable(dst) }

// RecvHeld returns the user bytes received and held.
func (e *Engine) RecvHeld() int { return e.recv.held() }

// RecvMemory returns what the received data held costs in memory, as the
// receiver charges it against its memory limit and the endpoint's budget
// (interleave.Frag.Cost and interleave.SideCost).
func (e *Engine) RecvMemory() int { return e.recv.charged() }

// SetRecvBuffer changes the receive buffer (at least one MTU).
func (e *Engine) SetRecvBuffer(n int) { e.recv.setRecvBuffer(n) }

// SetAdvertisedWindow records the a_rwnd last told outside SACKs (INIT,
// INIT ACK), so a window opening past it makes a window update due.
func (e *Engine) SetAdvertisedWindow(n int) { e.recv.setAdvertised(n) }
