package assoc

import "github.com/usctp/usctp/sched"

// Stream scheduling (RFC 8260 section 3): the association's engine owns the
// scheduler and the message pin; these are the core's entry points for the
// public API (Association.SetScheduler, the per-stream value through the
// stream handle) and for stream reconfiguration (stream states).

// newStreamScheduler builds the stream scheduler of a new engine: the endpoint's
// default kind for every new association (config.Scheduler).
func (a *Assoc) newStreamScheduler() sched.Scheduler {
	s, err := sched.New(a.ep.cfg.Scheduler, sched.Options{Streams: int(a.outStreams), Interleaved: a.Interleaved()})
	if err != nil {
		return nil // an unknown kind was refused by the config check: FCFS then
	}
	return s
}

// usable returns nil when the association has an engine, else the error a
// user call gets.
func (a *Assoc) usable() error {
	switch {
	case a.closed:
		return ErrClosed
	case a.data.eng == nil:
		return errNotReady
	}
	return nil
}

// SetScheduler switches the stream scheduler to kind k at any time, with
// data queued: nothing queued is lost, duplicated or reordered within its
// stream, a partly sent message finishes first, and per-stream values go
// back to their defaults (as in Linux).
func (a *Assoc) SetScheduler(k sched.Kind) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.data.eng.SwitchScheduler(k)
}

// Scheduler returns the kind of the association's stream scheduler (the
// endpoint default before the engine exists).
func (a *Assoc) Scheduler() sched.Kind {
	if a.data.eng == nil {
		return a.ep.cfg.Scheduler
	}
	return a.data.eng.Scheduler()
}

// SetStreamValue sets the priority (Priority) or weight (WFQ) of outbound
// stream sid; it lasts until the next scheduler switch.
func (a *Assoc) SetStreamValue(sid uint16, v uint16) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.data.eng.SetStreamValue(sid, v)
}

// StreamValue returns the priority or weight of outbound stream sid.
func (a *Assoc) StreamValue(sid uint16) (uint16, error) {
	if err := a.usable(); err != nil {
		return 0, err
	}
	return a.data.eng.StreamValue(sid)
}
