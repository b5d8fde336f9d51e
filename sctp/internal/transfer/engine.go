package transfer

import (
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/stream"
)

// Engine is the data-transfer engine of one association: the sending and
// receiving halves sharing the paths, one stream table and one set of
// counters. Its API is split over engine*.go and paths.go.
type Engine struct {
	send  sender
	recv  receiver
	path  Path // the path of the handshake's address, path 0
	stats Stats
	// streams holds the per-stream records and the engine's side objects
	// (send queues, reassembly).
	streams *streamTable
	cfg     Config
}

// streamTable is an association's stream table.
type streamTable = stream.Table[outSide, interleave.InSide]

// New returns an engine configured by cfg (zero fields defaulted).
func New(cfg Config) (*Engine, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: c}
	e.streams = stream.NewTable[outSide, interleave.InSide](uint16(c.OutStreams), uint16(c.InStreams))
	e.path.init(&e.cfg)
	e.send.init(&e.cfg, &e.path, &e.stats, e.streams)
	e.recv.init(&e.cfg, &e.stats, e.streams)
	e.send.followFSN(&e.recv)
	return e, nil
}

// Config returns the configuration in force (defaults filled in).
func (e *Engine) Config() Config { return e.cfg }

// Deadline returns the earliest timer deadline of the engine, or the zero
// time when no timer runs.
func (e *Engine) Deadline() time.Time {
	return earliest(e.SendDeadline(), e.recv.acks.deadline)
}

// SendDeadline returns the earliest deadline of the sending half (T3-rtx,
// zero window probe, loss detection, message lifetime).
func (e *Engine) SendDeadline() time.Time {
	d := e.send.deadline()
	if e.send.pr.ttl.h.Len() == 0 {
		return d // no lifetime watched: the usual case, asked per packet
	}
	return earliest(d, e.send.lifetimeDeadline())
}

// SACKDeadline returns when the delayed SACK is due, or the zero time
// when none waits.
func (e *Engine) SACKDeadline() time.Time { return e.recv.acks.deadline }

// earliest returns the earlier of two deadlines, zero meaning none.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// OnTimeout runs the timers due at now: expired message lifetimes
// (TakeFailed reports them), loss detection and T3-rtx. It reports whether
// T3-rtx expired (an error for the association); FaultedPaths says on
// which paths.
func (e *Engine) OnTimeout(now time.Time) (t3Expired bool) {
	e.send.expireLifetimes(now)
	return e.send.onTimeout(now)
}

// FaultedPaths returns the set of paths (bit i for path i) whose T3-rtx
// expired in the last OnTimeout call and counted an error on the path.
func (e *Engine) FaultedPaths() uint32 { return e.send.paths.faulted }

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats { return e.stats }

// StreamCounts returns the numbers of outbound and inbound streams.
func (e *Engine) StreamCounts() (out, in int) { return e.streams.OutCount(), e.streams.InCount() }

// ReleaseBudgets gives back everything the engine charged to the
// endpoint's budgets, for an association that ends or restarts.
func (e *Engine) ReleaseBudgets() {
	e.recv.release()
	e.send.queue.leaveBudget()
}
