package transfer

import (
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/stream"
)

// Engine is the data-transfer engine of one association: the sending and
// receiving halves sharing one Path, one stream table and one set of
// counters.
type Engine struct {
	Send  Sender
	Recv  Receiver
	Path  Path
	Stats Stats
	// Streams is the association's stream table: the per-stream records
	// (next SSN to send and to deliver, state) and the engine's side
	// objects (send queues, reassembly). Stream reconfiguration (RFC 6525)
	// works on it.
	Streams *Streams
	cfg     Config
}

// Streams is the stream table type of an association: outbound side
// objects hold the send queues, inbound ones the reassembly state.
type Streams = stream.Table[OutSide, interleave.InSide]

// New returns an engine configured by cfg (zero fields defaulted).
func New(cfg Config) (*Engine, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: c}
	e.Streams = stream.NewTable[OutSide, interleave.InSide](uint16(c.OutStreams), uint16(c.InStreams))
	e.Path.init(&e.cfg)
	e.Send.init(&e.cfg, &e.Path, &e.Stats, e.Streams)
	e.Recv.init(&e.cfg, &e.Stats, e.Streams)
	e.Send.followFSN(&e.Recv)
	return e, nil
}

// Config returns the configuration in force (defaults filled in).
func (e *Engine) Config() Config { return e.cfg }

// Deadline returns the earliest timer deadline of the engine (T3-rtx,
// the end of a message's lifetime or the delayed SACK), or the zero time
// when no timer runs.
func (e *Engine) Deadline() time.Time {
	return earliest(e.SendDeadline(), e.Recv.Deadline())
}

// SendDeadline returns the earliest deadline of the sending half: T3-rtx,
// a zero window probe or the end of a message's lifetime.
func (e *Engine) SendDeadline() time.Time {
	d := e.Send.Deadline()
	if e.Send.ttl.h.Len() == 0 {
		return d // no lifetime watched: the usual case, asked per packet
	}
	return earliest(d, e.Send.LifetimeDeadline())
}

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

// OnTimeout runs the timers whose deadline is at or before now: messages
// whose lifetime ended are given up (TakeFailed reports them), then
// T3-rtx. It reports whether T3-rtx expired (an error for the
// association's counters). A due delayed SACK shows in Recv.SACKDue
// afterwards.
func (e *Engine) OnTimeout(now time.Time) (t3Expired bool) {
	e.Send.ExpireLifetimes(now)
	return e.Send.OnTimeout(now)
}

// SetMTU changes the path MTU (after PMTU discovery). Chunks cut before
// keep their size: when one no longer fits a packet, AppendData returns it
// alone in a packet longer than room, and the association must send that
// packet with IP fragmentation allowed.
func (e *Engine) SetMTU(mtu int) {
	if mtu < 256 || mtu > 65535 {
		return
	}
	e.Path.mtu = mtu
	e.Send.setFragPoint()
}
