package transfer

import (
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/stream"
)

// Stream scheduling and stream states, the engine's API.

// Scheduler returns the kind of the stream scheduler in use.
func (e *Engine) Scheduler() sched.Kind { return e.send.scheduler() }

// SwitchScheduler replaces the stream scheduler by a new one of kind k at
// any time, with data queued: nothing queued is lost, duplicated or
// reordered within its stream, and per-stream values restart from their
// defaults.
func (e *Engine) SwitchScheduler(k sched.Kind) error { return e.send.switchScheduler(k) }

// ReplaceScheduler is SwitchScheduler with a fresh scheduler the caller
// built (sched.New, for this association's stream count and I-DATA mode);
// one that already has an active stream is refused with ErrConfig.
func (e *Engine) ReplaceScheduler(sc sched.Scheduler) error { return e.send.replaceScheduler(sc) }

// SetStreamValue sets the scheduler value of outbound stream sid (a
// priority or a WFQ weight). It fails with ErrStreamID for a stream
// outside the negotiated range and with an error matching sched.ErrValue
// for an invalid value.
func (e *Engine) SetStreamValue(sid, v uint16) error { return e.send.setStreamValue(sid, v) }

// StreamValue returns the scheduler value of outbound stream sid, or
// ErrStreamID.
func (e *Engine) StreamValue(sid uint16) (uint16, error) { return e.send.streamValue(sid) }

// SetStreamState sets the state of outbound stream sid: a stream that is
// not stream.Open keeps its queued messages but is skipped, so it never
// holds up the other streams.
func (e *Engine) SetStreamState(sid uint16, st stream.State) error {
	return e.send.setStreamState(sid, st)
}

// StreamState returns the state of outbound stream sid, or ErrStreamID.
func (e *Engine) StreamState(sid uint16) (stream.State, error) { return e.send.streamState(sid) }
