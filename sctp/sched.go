package sctp

import "github.com/usctp/usctp/sctp/internal/api"

// SetSchedulerValue sets the stream's scheduler value, as
// Association.SetStreamValue does for its id (the Linux socket option
// SCTP_STREAM_SCHEDULER_VALUE): its priority under SchedulerPriority
// (lower is served first) or its weight under SchedulerWFQ (1 to 65535).
// The value lasts until the association's scheduler changes.
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

// SetStreamValue sets the scheduler value of outbound stream sid: its
// priority under SchedulerPriority (lower is served first) or its weight
// under SchedulerWFQ (1 to 65535); the other schedulers accept and ignore
// it, as Linux does. Values last until the next SetScheduler, which resets
// them to their defaults. A stream id outside the negotiated range gives
// ErrStreamID, a WFQ weight of 0 an error matching sched.ErrValue.
func (as *Association) SetStreamValue(sid uint16, v uint16) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return as.closedErr()
	}
	return publicErr(as.core.SetStreamValue(sid, v))
}

// StreamValue returns the scheduler value of outbound stream sid: its
// priority or weight, 0 under the schedulers that have none.
func (as *Association) StreamValue(sid uint16) (uint16, error) {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if as.closed {
		return 0, as.closedErr()
	}
	v, err := as.core.StreamValue(sid)
	return v, publicErr(err)
}

// SetScheduler changes the association's stream scheduler at any time,
// also with messages queued: none is lost, duplicated or reordered within
// its stream, a message already partly sent finishes first, and the new
// scheduler takes the queued messages in the order they were written.
// Per-stream values (SetStreamValue) go back to their defaults, as in
// Linux.
func (as *Association) SetScheduler(k Scheduler) error {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	if err := api.ValidateScheduler(k); err != nil {
		return err
	}
	if as.closed {
		return as.closedErr()
	}
	return publicErr(as.core.SetScheduler(k))
}

// Scheduler returns the kind of the association's stream scheduler.
func (as *Association) Scheduler() Scheduler {
	as.ep.mu.Lock()
	defer as.ep.mu.Unlock()
	return as.core.Scheduler()
}
