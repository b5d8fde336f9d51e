package transfer

import (
	"fmt"

	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525), the sending side: the association
// runs the RE-CONFIG exchange; the sender resets the numbering of its
// outbound streams, holds back the messages written after an outgoing
// reset began, adds streams, and performs its part of an SSN/TSN reset.
// The receiving side is in receiver_reconf.go.
//
// Outgoing resets cost no walk over the streams: a peer's Incoming SSN
// Reset Request or SSN/TSN Reset Request naming every stream makes us
// reset all of ours, once per request. What a request must look at is kept
// as the sender works, each piece paid for once by the write or the cut
// that caused it:
//
//   - reconfTracker.numbered lists the streams whose numbering moved
//     since the last reset of every stream: Out records' MID and MIDUO
//     move only in sender.cut, the one caller of Framer.NewMessage, which
//     lists the stream. resetNumbering(nil) resets those; every other
//     record reads 0 already.
//   - reconfTracker.streamsLeft counts the streams being reset that still
//     have a message from before the reset (arrival number before from)
//     not fully cut: all streams with messages queued when every stream
//     is reset (sendQueue.queuedStreams), the named ones with messages
//     otherwise. A stream leaves the count when such a message leaves the
//     head of its queue (headGone). The request may leave once it is 0.
//   - A stream being reset is blocked (stream.ResetPending) only when it
//     would start a message written after the reset began (Queue,
//     AppendData), and listed in blocked for finishOutgoingReset to
//     reopen; a named stream with nothing queued is blocked at once.
//   - sendQueue.partlyCut counts the streams whose head message is partly
//     cut (readyForTSNReset).

// reconfTracker is the sender's RFC 6525 state: the outgoing reset under
// way, the streams numbered since the last reset of every stream, and the
// SSN/TSN reset that moved the TSNs.
type reconfTracker struct {
	// all: an outgoing reset of every stream is under way; from, the
	// arrival number of the first message written after it began (it
	// and later messages of the streams being reset wait); streamsLeft,
	// the streams being reset that still have a message from before it
	// not fully cut; blocked, the streams it blocked (reopened at its
	// end).
	all         bool
	from        uint32
	streamsLeft int
	blocked     []uint16
	// numbered lists the streams whose numbering may have moved since the
	// last reset of every stream (outSide.numbered).
	numbered []uint16
	// tsnResetOut: our SSN/TSN Reset Request is out (Engine.BeginTSNReset):
	// a SACK acknowledging TSNs beyond those sent is taken as one the peer
	// sent in the new numbering after performing it, its answer lost or
	// overtaken, and dropped as stale rather than answered with ABORT.
	tsnResetOut bool
	// tsnMoved: an SSN/TSN reset moved the next TSN; cumBeforeMove is the
	// cumulative TSN ack point before it, kept while SACKs from before it
	// may arrive (beforeTSNReset).
	tsnMoved      bool
	cumBeforeMove TSN
}

// seqLT compares message arrival numbers (serial).
func seqLT(a, b uint32) bool { return int32(a-b) < 0 }

// holds reports whether st, a stream with messages queued, is being reset
// and its head message was written after the reset began: it must not
// start until the reset ends. A partly cut head is always older.
func (rt *reconfTracker) holds(st *outSide) bool {
	return (rt.all || st.resetting) && !seqLT(st.head.seq, rt.from)
}

// ready reports whether every stream of the outgoing reset under way has
// sent what was written to it before, so that nothing more of the old
// numbering is to come. It costs O(1).
func (rt *reconfTracker) ready() bool { return rt.streamsLeft == 0 }

// headGone keeps the count of the streams of the reset under way with a
// message from before it left to cut, after m left the head of stream
// st's queue (fully cut, or given up).
func (rt *reconfTracker) headGone(st *outSide, m *message) {
	if rt.streamsLeft > 0 && (rt.all || st.resetting) && seqLT(m.seq, rt.from) &&
		(st.head == nil || !seqLT(st.head.seq, rt.from)) {
		rt.streamsLeft--
	}
}

// noteNumbered lists stream sid (st) in numbered: its numbering is about to
// move.
func (rt *reconfTracker) noteNumbered(st *outSide, sid uint16) {
	st.numbered = true
	rt.numbered = append(rt.numbered, sid)
}

// beforeTSNReset reports whether cum, a SACK's cumulative TSN ack, belongs
// to the TSNs used before an SSN/TSN reset moved the next TSN (by 2^31
// when the peer follows RFC 6525 section 5.2.4 G1): a SACK delayed in the
// network that must be dropped as stale, not taken as acknowledging TSNs
// never sent. Once the new numbering has gone 2^29 TSNs on from ourCum,
// the cumulative TSN ack point, the old numbers are forgotten.
func (rt *reconfTracker) beforeTSNReset(cum, ourCum TSN) bool {
	if !rt.tsnMoved {
		return false
	}
	if ourCum.Sub(rt.cumBeforeMove) > 1<<29 && ourCum.Sub(rt.cumBeforeMove) < 3<<29 {
		rt.tsnMoved = false
		return false
	}
	return rt.cumBeforeMove.Sub(cum) < 1<<30
}

// beginOutgoingReset starts an outgoing reset of streams sids (every
// stream when empty), for an Outgoing SSN Reset Request: the messages
// already written to them still go out with the old numbering (a message
// partly sent included), later ones wait until finishOutgoingReset.
// reconfTracker.ready says when the request may leave. It costs
// O(len(sids)), O(1) for every stream.
func (s *sender) beginOutgoingReset(sids []uint16) {
	rt := &s.resets
	rt.from = s.queue.nextArrival
	rt.blocked = rt.blocked[:0]
	if len(sids) == 0 {
		// Streams never used yet are blocked as they start (Queue);
		// the others as they reach a message written from now on.
		rt.all = true
		rt.streamsLeft = s.queue.queuedStreams
		return
	}
	rt.all, rt.streamsLeft = false, 0
	n := s.streams.OutCount()
	for _, sid := range sids {
		if int(sid) >= n {
			continue
		}
		switch st := s.streams.PeekOutSide(sid); {
		case st != nil && st.resetting:
			// Named twice.
		case st != nil && st.head != nil:
			st.resetting = true
			rt.streamsLeft++
		default:
			s.blockForReset(sid)
		}
	}
}

// blockForReset blocks stream sid, being reset with nothing from before
// the reset left to cut, until finishOutgoingReset.
func (s *sender) blockForReset(sid uint16) {
	if o := s.streams.Out(sid); o.State == stream.Open {
		o.State = stream.ResetPending
		s.resets.blocked = append(s.resets.blocked, sid)
	}
	s.queue.sched.Block(sid)
}

// finishOutgoingReset ends an outgoing reset: the streams restart their
// numbering at 0 when the peer performed it (resetNumbering) and send
// again. It costs O(len(sids)) and, for every stream, O(1) plus one step
// per stream the reset blocked or numbered since the last such reset (each
// paid for by the message that caused it).
func (s *sender) finishOutgoingReset(sids []uint16, performed bool) {
	if performed {
		s.resetNumbering(sids)
	}
	rt := &s.resets
	n := s.streams.OutCount()
	for _, sid := range rt.blocked {
		if int(sid) >= n {
			continue
		}
		if o := s.streams.Out(sid); o.State == stream.ResetPending {
			s.setStreamState(sid, stream.Open)
		}
	}
	rt.blocked = trimList(rt.blocked)
	for _, sid := range sids {
		if int(sid) >= n {
			continue
		}
		if st := s.streams.PeekOutSide(sid); st != nil {
			st.resetting = false
		}
		if o := s.streams.Out(sid); o.State == stream.ResetPending {
			s.setStreamState(sid, stream.Open)
		}
	}
	rt.all, rt.streamsLeft = false, 0
}

// trimList empties l, a list of stream ids, keeping its array unless it
// grew large (a list of every stream is 128 KiB): a burst of streams used
// once does not hold that memory for the association's life.
func trimList(l []uint16) []uint16 {
	if cap(l) > maxKeptList {
		return nil
	}
	return l[:0]
}

// maxKeptList is the most stream ids an emptied list keeps room for.
const maxKeptList = 1024

// resetNumbering restarts the numbering of outbound streams sids (every
// stream when sids is empty) at 0: the SSN, or with I-DATA (RFC 8260,
// where the resets of RFC 6525 act on the MID) both the ordered and the
// unordered MID. Ids out of range are skipped. Every stream costs one step
// per stream numbered since the last reset of every stream
// (reconfTracker.numbered), not one per stream in use.
func (s *sender) resetNumbering(sids []uint16) {
	n := s.streams.OutCount()
	if len(sids) == 0 {
		rt := &s.resets
		for _, sid := range rt.numbered {
			if int(sid) >= n {
				continue // removed since
			}
			s.streams.Out(sid).ResetSequence()
			if st := s.streams.PeekOutSide(sid); st != nil {
				st.numbered = false
			}
		}
		rt.numbered = trimList(rt.numbered)
		return
	}
	for _, sid := range sids {
		if int(sid) < n {
			s.streams.Out(sid).ResetSequence()
		}
	}
}

// addOutgoing adds n outbound streams for an Add Outgoing Streams Request
// (RFC 6525 section 4.5). They cannot carry data until finishAddOutgoing
// says the peer performed the request. It returns the first new stream id.
func (s *sender) addOutgoing(n uint16) (first uint16, err error) {
	first, err = s.streams.AddOut(n)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStreamID, err)
	}
	return first, nil
}

// finishAddOutgoing ends the pending addOutgoing: when performed the new
// streams open (numbered from 0) and the scheduler learns the new count;
// otherwise they are removed again. It returns the outbound stream count.
func (s *sender) finishAddOutgoing(performed bool) int {
	s.streams.FinishAddOut(performed)
	n := s.streams.OutCount()
	s.cfg.OutStreams = n
	if performed {
		s.queue.sched.Resize(n)
	}
	return n
}

// readyForTSNReset reports whether the sender can take part in an SSN/TSN
// reset (RFC 6525 sections 5.1.4 and 5.2.4): nothing it sent is
// unacknowledged, no FORWARD-TSN is owed and no message is partly cut into
// chunks (its remaining fragments would carry the old stream numbering).
// Messages queued and not yet cut do not count: they take the new
// numbering. It costs O(1) (sendQueue.partlyCut).
func (s *sender) readyForTSNReset() bool {
	return s.ledger.outstanding() == 0 && !s.pr.forwardDue && s.queue.partlyCut == 0
}

// resetTSN performs the sender's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4 and 5.2.4) once readyForTSNReset: the next DATA chunk
// carries TSN next, the cumulative TSN ack point (and the PR-SCTP
// Advanced.Peer.Ack.Point) becomes next-1, and every outbound stream
// numbers again from 0.
func (s *sender) resetTSN(next TSN) {
	rt := &s.resets
	rt.tsnResetOut = false
	if next != s.ledger.nextTSN {
		rt.tsnMoved, rt.cumBeforeMove = true, s.ledger.cumAck
	}
	s.ledger.restart(next)
	s.pr.advPeerAck, s.pr.forwardSent = s.ledger.cumAck, s.ledger.cumAck
	s.pr.forwardDue = false
	s.rtt.stop()
	s.resetNumbering(nil)
}
