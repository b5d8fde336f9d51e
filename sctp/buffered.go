package sctp

// Buffered returns the bytes written on the stream and not yet
// acknowledged by the peer nor given up under a PR-SCTP policy: WebRTC's
// bufferedAmount. A message counts from the moment its write returns; each
// chunk's bytes leave the count when a SACK first acknowledges it.
func (s *Stream) Buffered() int {
	as := s.as
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.StreamBuffered(s.sid)
}

// SetBufferedLow sets the stream's low-water mark: each time Buffered
// falls from above low to low or below, through an acknowledgement or a
// message given up, an EventBufferedLow names the stream, as WebRTC's
// bufferedamountlow event fires. A negative low removes the mark (none by
// default). The mark belongs to the stream of the association, not to the
// handle.
func (s *Stream) SetBufferedLow(low int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	as := s.as
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return as.closedErr()
	}
	return publicErr(as.core.SetBufferedLow(s.sid, low))
}
