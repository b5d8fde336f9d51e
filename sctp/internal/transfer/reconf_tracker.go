package transfer

import (
	"fmt"

	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525), the sending side: resetting outbound
// stream numbering, holding back messages written after an outgoing reset
// began, adding streams, and the sender's part of an SSN/TSN reset. The
// receiving side is in receiver_reconf.go.
//
// A request naming every stream costs no walk over the streams; what it
// needs is kept as the sender works, paid for once by the write or cut that
// caused it:
//
//   - numbered lists the streams whose numbering moved (only sender.cut
//     moves it) since the last reset of every stream.
//   - streamsLeft counts the streams being reset that still have a message
//     from before the reset not fully cut; the request may leave at 0.
//   - A stream being reset is blocked only when it would start a message
//     written after the reset began, and listed in blocked to reopen.
//   - sendQueue.partlyCut counts the streams whose head message is partly
//     cut (readyForTSNReset).

// reconfTracker is the sender's RFC 6525 state.
type reconfTracker struct {
	// all: a reset of every stream is under way; from: the arrival number
	// of the first message written after it began; streamsLeft and blocked:
	// see above.
	all         bool
	from        uint32
	streamsLeft int
	blocked     []uint16
	// numbered: see above (outSide.numbered).
	numbered []uint16
	// tsnResetOut: our SSN/TSN Reset Request is out: a SACK beyond what we
	// sent is taken as one in the peer's new numbering (its answer lost or
	// overtaken) and dropped as stale rather than aborting.
	tsnResetOut bool
	// tsnMoved: an SSN/TSN reset moved the next TSN; cumBeforeMove is the
	// cumulative ack before it (beforeTSNReset).
	tsnMoved      bool
	cumBeforeMove TSN
}

// seqLT compares message arrival numbers (serial).
func seqLT(a, b uint32) bool { return int32(a-b) < 0 }

// holds reports whether st is being reset and its head message was written
// after the reset began, so it must wait.
func (rt *reconfTracker) holds(st *outSide) bool {
	return (rt.all || st.resetting) && !seqLT(st.head.seq, rt.from)
}

// ready reports whether the streams being reset sent all their old data.
func (rt *reconfTracker) ready() bool { return rt.streamsLeft == 0 }

// headGone updates streamsLeft after m left the head of st's queue.
func (rt *reconfTracker) headGone(st *outSide, m *message) {
	if rt.streamsLeft > 0 && (rt.all || st.resetting) && seqLT(m.seq, rt.from) &&
		(st.head == nil || !seqLT(st.head.seq, rt.from)) {
		rt.streamsLeft--
	}
}

// noteNumbered lists stream sid as numbered.
func (rt *reconfTracker) noteNumbered(st *outSide, sid uint16) {
	st.numbered = true
	rt.numbered = append(rt.numbered, sid)
}

// beforeTSNReset reports whether cum, a SACK's cumulative TSN ack, belongs
// to the numbering before an SSN/TSN reset moved the next TSN (by 2^31
// under RFC 6525 section 5.2.4 G1): a delayed SACK to drop as stale. The
// old numbers are forgotten once the new ones have gone 2^29 on.
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

// beginOutgoingReset is Engine.BeginOutgoingReset, in O(len(sids)), O(1)
// for every stream.
func (s *sender) beginOutgoingReset(sids []uint16) {
	rt := &s.resets
	rt.from = s.queue.nextArrival
	rt.blocked = rt.blocked[:0]
	if len(sids) == 0 {
		// Streams are blocked as they reach a message written from now on.
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

// blockForReset blocks stream sid until finishOutgoingReset.
func (s *sender) blockForReset(sid uint16) {
	if o := s.streams.Out(sid); o.State == stream.Open {
		o.State = stream.ResetPending
		s.resets.blocked = append(s.resets.blocked, sid)
	}
	s.queue.sched.Block(sid)
}

// finishOutgoingReset is Engine.FinishOutgoingReset; for every stream it
// costs one step per stream blocked or numbered since the last such reset.
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

// trimList empties a list of stream ids, dropping its array when large (a
// list of every stream is 128 KiB).
func trimList(l []uint16) []uint16 {
	if cap(l) > maxKeptList {
		return nil
	}
	return l[:0]
}

// maxKeptList is the most stream ids an emptied list keeps room for.
const maxKeptList = 1024

// resetNumbering restarts outbound streams sids (all when empty) at SSN 0,
// or with I-DATA both MIDs (RFC 8260). For all streams it walks only the
// numbered list.
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

// addOutgoing is Engine.AddOutgoing.
func (s *sender) addOutgoing(n uint16) (first uint16, err error) {
	first, err = s.streams.AddOut(n)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStreamID, err)
	}
	return first, nil
}

// finishAddOutgoing is Engine.FinishAddOutgoing.
func (s *sender) finishAddOutgoing(performed bool) int {
	s.streams.FinishAddOut(performed)
	n := s.streams.OutCount()
	s.cfg.OutStreams = n
	if performed {
		s.queue.sched.Resize(n)
	}
	return n
}

// readyForTSNReset is Engine.SenderReadyForTSNReset, in O(1). Messages not
// yet cut do not count: they take the new numbering; a partly cut one
// would carry the old.
func (s *sender) readyForTSNReset() bool {
	return s.ledger.outstanding() == 0 && !s.pr.forwardDue && s.queue.partlyCut == 0
}

// resetTSN performs the sender's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4, 5.2.4): next is the next TSN, the ack points become
// next-1, and outbound streams restart at 0.
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
