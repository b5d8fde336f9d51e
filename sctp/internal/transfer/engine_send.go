package transfer

import (
	"math"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// Queue copies a user message of stream sid into the send buffer with
// partial reliability pr (now starts a PRTTL lifetime); fragmentation and
// TSN assignment happen in AppendData. It returns ErrStreamID,
// ErrEmptyMessage, ErrMessageTooLarge, ErrConfig for an unknown policy,
// ErrWouldBlock when the send buffer or UnsentLimit has no room (a message
// larger than the buffer is taken into an empty one), or ErrStreamFull
// when the stream's share is used (see TakeStreamRoom). A PRPrio message
// may first abandon less important ones (RFC 7496 section 3.2).
func (e *Engine) Queue(now time.Time, sid uint16, ppid uint32, unordered bool, payload []byte, pr PR) error {
	return e.send.queuePR(now, sid, ppid, unordered, payload, pr)
}

// Pending reports whether AppendData would append something now.
func (e *Engine) Pending(now time.Time) bool { return e.send.pending(now) }

// AppendData appends DATA (or I-DATA) chunks for one packet to path
// DataDest within room bytes and returns the packet and the chunk count:
// retransmissions first, then new data within cwnd, the peer's window
// and Max.Burst (RFC 9260 section 6.1 rules A-D).
func (e *Engine) AppendData(now time.Time, pkt []byte, room int) ([]byte, int) {
	return e.send.appendData(now, pkt, room)
}

// AppendDataHoles is AppendData leaving the user data of chunks of
// least bytes or more out of pkt: each such chunk's payload is a hole
// appended to holes (up to its capacity; the others are copied) and
// returned with the packet, whose bytes are pkt's with the holes filled
// (chunk.Hole). The holes of keep bytes or more reference the send
// buffer's messages until ReleaseHeld: a message released before it is
// not reused until then. The caller fills the shorter ones in before it
// calls the engine again (chunk.FillChecksumHoles).
func (e *Engine) AppendDataHoles(now time.Time, pkt []byte, room int, holes []chunk.Hole, least, keep int) ([]byte, int, []chunk.Hole) {
	// No chunk's user data reaches MaxInt32 bytes (least above it: no
	// holes) nor MaxUint16 (keep above it: none kept, holeKeep 0).
	e.send.holes, e.send.holeMin = holes, int32(min(least, math.MaxInt32))
	e.send.holeKeep = 0
	if keep <= math.MaxUint16 {
		e.send.holeKeep = uint16(max(keep, 1))
	}
	pkt, n := e.send.appendData(now, pkt, room)
	holes, e.send.holes = e.send.holes, nil
	return pkt, n, holes
}

// ReleaseHeld tells the engine that every packet AppendDataHoles built
// has been written (or dropped): the messages its holes referenced may be
// reused.
func (e *Engine) ReleaseHeld() {
	if e.send.queue.holding || e.send.queue.deferred != nil {
		e.send.queue.releaseHeld()
	}
}

// DataDest returns the path index of the last AppendData's packet.
func (e *Engine) DataDest() int { return int(e.send.paths.dest) }

// ForwardDue reports whether a FORWARD-TSN (or I-FORWARD-TSN) should go
// out (RFC 3758 section 3.5 C3 and A5).
func (e *Engine) ForwardDue() bool { return e.send.pr.due(e.send.ledger.cumAck) }

// AppendForward appends the (I-)FORWARD-TSN chunk that moves the peer's
// cumulative TSN to the Advanced.Peer.Ack.Point, within room bytes.
func (e *Engine) AppendForward(now time.Time, pkt []byte, room int) []byte {
	return e.send.appendForward(now, pkt, room)
}

// HandleSACK processes a SACK chunk (RFC 9260 section 6.2.1) and reports
// whether it acknowledged new data. A SACK of a TSN never sent yields
// ErrProtocolViolation and changes nothing; stale and malformed SACKs are
// ignored.
func (e *Engine) HandleSACK(now time.Time, sk *SACK) (acked bool, err error) {
	return e.send.handleSACK(now, sk)
}

// HandleECNE reacts to an ECNE chunk (see ecn.go).
func (e *Engine) HandleECNE(now time.Time, lowest TSN) bool { return e.send.handleECNE(now, lowest) }

// TakeFailed calls fn for each message abandoned since the last call, in
// order.
func (e *Engine) TakeFailed(fn func(Failed)) { e.send.pr.takeFailed(fn) }

// HasFailed reports whether TakeFailed has messages to report.
func (e *Engine) HasFailed() bool { return len(e.send.pr.failed) > 0 }

// TakeStreamRoom returns the streams refused with ErrStreamFull that may
// queue again. The slice is valid until the next call into the engine.
func (e *Engine) TakeStreamRoom() []uint16 { return e.send.queue.takeStreamRoom() }

// HasReports reports whether HasFailed or HasStreamRoom, or TakeBufferedLow
// has streams to return.
func (e *Engine) HasReports() bool {
	return len(e.send.pr.failed) > 0 || len(e.send.queue.writable) > 0 || len(e.send.queue.lowStreams) > 0
}

// HasStreamRoom reports whether TakeStreamRoom has streams to return.
func (e *Engine) HasStreamRoom() bool { return e.send.queue.hasStreamRoom() }

// Drain removes every queued and unacknowledged message, calling fn (when
// not nil) for each: when the association ends or the peer restarted.
func (e *Engine) Drain(fn func(Unsent)) { e.send.drain(fn) }

// SendIdle reports whether nothing is queued or unacknowledged (RFC 9260
// section 9.2).
func (e *Engine) SendIdle() bool { return e.send.idle() }

// SendBuffered returns the bytes queued or unacknowledged.
func (e *Engine) SendBuffered() int { return e.send.queue.buffered }

// SendRoom returns the bytes Queue accepts now and from an empty buffer.
func (e *Engine) SendRoom() (room, capacity int) { return e.send.queue.room(), e.send.queue.capacity() }

// Outstanding returns the DATA chunks sent beyond the cumulative ack.
func (e *Engine) Outstanding() int { return e.send.ledger.outstanding() }

// NextTSN returns the TSN the next new DATA chunk will carry.
func (e *Engine) NextTSN() TSN { return e.send.ledger.nextTSN }

// PeerRwnd returns our view of the peer's receive window.
func (e *Engine) PeerRwnd() int { return e.send.peerRwnd }
