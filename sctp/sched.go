package sctp

// SetSchedulerValue sets the stream's scheduler value, as
// Association.SetStreamValue does for its id (the Linux socket option
// SCTP_STREAM_SCHEDULER_VALUE): its priority under sched.Priority (lower
// is served first) or its weight under sched.WFQ (1 to 65535). The value
// lasts until the association's scheduler changes.
func (s *Stream) SetSchedulerValue(v uint16) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.as.SetStreamValue(s.sid, v)
}

// SchedulerValue returns the stream's scheduler value (0 under the
// schedulers that have none).
func (s *Stream) SchedulerValue() (uint16, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.as.StreamValue(s.sid)
}
