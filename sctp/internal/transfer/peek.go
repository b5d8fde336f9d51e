package transfer

import "github.com/usctp/usctp/sched"

// NextStream returns the stream of the data the next Read returns; ok is
// false when nothing is ready. A shell uses it to hand each stream's
// messages to that stream's reader.
func (r *Receiver) NextStream() (sid uint16, ok bool) {
	f := r.reasm.Peek()
	if f == nil {
		return 0, false
	}
	return f.SID, true
}

// SetScheduler replaces the stream scheduler. It fails with ErrWouldBlock
// while messages wait to be cut into chunks: the new scheduler would not
// know them. Messages in flight are not the scheduler's concern.
func (s *Sender) SetScheduler(sc sched.Scheduler) error {
	if sc == nil {
		return ErrConfig
	}
	if s.unsent > 0 || s.cur != nil {
		return ErrWouldBlock
	}
	s.sched = sc
	return nil
}
