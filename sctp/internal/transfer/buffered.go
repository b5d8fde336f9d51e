package transfer

import "fmt"

// Each outbound stream counts its buffered bytes: the payload written and
// not yet acknowledged nor given up, as WebRTC's bufferedAmount counts
// them. A chunk's bytes leave the count when a SACK first acknowledges it
// (cumulatively or in a Gap Ack Block) or it is abandoned in flight, and
// come back if the peer reneges; the part of a message never cut into
// chunks leaves when the message is given up. A stream with a low-water
// mark is listed in lowStreams each time its count falls from above the
// mark to the mark or below, for the user's "buffered amount low" event.

// settle takes the bytes of chunk r, newly acknowledged or abandoned in
// flight, out of its stream's count.
func (s *sender) settle(r *record) {
	if st := s.streams.PeekOutSide(r.sid); st != nil {
		s.queue.unbuffer(st, r.sid, int(r.n))
	}
}

// unbuffer takes n bytes out of stream sid's count and lists the stream
// when that makes it fall to its low-water mark.
func (q *sendQueue) unbuffer(st *outSide, sid uint16, n int) {
	was := st.buffered
	st.buffered = max(was-n, 0)
	if st.watchLow && was > st.low && st.buffered <= st.low {
		q.lowStreams = append(q.lowStreams, sid)
	}
}

// StreamBuffered returns the bytes written on outbound stream sid and not
// yet acknowledged nor given up.
func (e *Engine) StreamBuffered(sid uint16) int {
	if st := e.streams.PeekOutSide(sid); st != nil {
		return st.buffered
	}
	return 0
}

// SetBufferedLow sets the low-water mark of outbound stream sid: each time
// its buffered bytes fall from above low to low or below, the stream is
// listed for TakeBufferedLow. A negative low removes the mark.
func (e *Engine) SetBufferedLow(sid uint16, low int) error {
	st := e.streams.OutSide(sid)
	if st == nil {
		return fmt.Errorf("%w: %d, %d outbound streams", ErrStreamID, sid, e.streams.OutCount())
	}
	st.watchLow, st.low = low >= 0, max(low, 0)
	return nil
}

// TakeBufferedLow returns the streams whose buffered bytes fell to their
// low-water mark since the last call, once per fall. The slice is valid
// until the next call into the engine.
func (e *Engine) TakeBufferedLow() []uint16 {
	q := &e.send.queue
	r := q.lowStreams
	q.lowStreams = q.lowStreams[:0]
	return r
}
