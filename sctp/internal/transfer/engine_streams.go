package transfer

import (
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/stream"
)

// Scheduler returns the kind of the stream scheduler in use.
func (e *Engine) Scheduler() sched.Kind { return e.send.scheduler() }

// SwitchScheduler replaces the scheduler by one of kind k, with data
// queued; per-stream values restart from their defaults.
func (e *Engine) SwitchScheduler(k sched.Kind) error { return e.send.switchScheduler(k) }

// ReplaceScheduler is SwitchScheduler with a fresh scheduler built by the
// caller; one with an active stream is refused with ErrConfig.
func (e *Engine) ReplaceScheduler(sc sched.Scheduler) error { return e.send.replaceScheduler(sc) }

// SetStreamValue sets the scheduler value (priority or weight) of
// outbound stream sid.
func (e *Engine) SetStreamValue(sid, v uint16) error { return e.send.setStreamValue(sid, v) }

// StreamValue returns the scheduler value of outbound stream sid.
func (e *Engine) StreamValue(sid uint16) (uint16, error) { return e.send.streamValue(sid) }

// SetStreamState sets the state of outbound stream sid; a stream not
// stream.Open keeps its messages but is skipped.
func (e *Engine) SetStreamState(sid uint16, st stream.State) error {
	return e.send.setStreamState(sid, st)
}

// StreamState returns the state of outbound stream sid.
func (e *Engine) StreamState(sid uint16) (stream.State, error) { return e.send.streamState(sid) }
