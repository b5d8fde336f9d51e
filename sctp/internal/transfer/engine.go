package transfer

import "time"

// Engine is the data-transfer engine of one association: the sending and
// receiving halves sharing one Path and one set of counters.
type Engine struct {
	Send  Sender
	Recv  Receiver
	Path  Path
	Stats Stats
	cfg   Config
}

// New returns an engine configured by cfg (zero fields defaulted).
func New(cfg Config) (*Engine, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: c}
	e.Path.init(&e.cfg)
	e.Send.init(&e.cfg, &e.Path, &e.Stats)
	e.Recv.init(&e.cfg, &e.Stats)
	return e, nil
}

// Config returns the configuration in force (defaults filled in).
func (e *Engine) Config() Config { return e.cfg }

// Deadline returns the earliest timer deadline of the engine (T3-rtx or
// the delayed SACK), or the zero time when no timer runs.
func (e *Engine) Deadline() time.Time {
	a, b := e.Send.Deadline(), e.Recv.Deadline()
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// OnTimeout runs the timers whose deadline is at or before now. It reports
// whether T3-rtx expired (an error for the association's counters). A due
// delayed SACK shows in Recv.SACKDue afterwards.
func (e *Engine) OnTimeout(now time.Time) (t3Expired bool) {
	return e.Send.OnTimeout(now)
}

// SetMTU changes the path MTU (after PMTU discovery). Chunks cut before
// keep their size.
func (e *Engine) SetMTU(mtu int) {
	if mtu < 256 || mtu > 65535 {
		return
	}
	e.Path.mtu = mtu
	e.Send.setFragPoint()
}
