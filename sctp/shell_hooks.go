package sctp

import "github.com/usctp/usctp/sched"

// newScheduler returns the stream scheduler for a new engine, or nil for
// the transfer default.
func (a *assoc) newScheduler() sched.Scheduler {
	if a.ep.cfg.newScheduler == nil {
		return nil
	}
	s := a.ep.cfg.newScheduler(int(a.outStreams))
	a.data.sched = s
	return s
}
