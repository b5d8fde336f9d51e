package sched

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// harness plays the association against a scheduler and a simple reference
// model of the stream queues: it fragments messages into chunks of at most
// frag bytes, pins the stream of a partly sent message when not interleaved,
// and checks after every operation that the scheduler agrees with the model.
type harness struct {
	tb      testing.TB
	kind    Kind
	opt     Options
	s       Scheduler
	frag    int
	q       [][]hmsg // per stream: queued messages, oldest first
	blocked []bool
	values  []uint16
	pin     int // stream of the partly sent message without I-DATA, or -1
	seq     uint64
	served  []int64  // bytes sent per stream
	blocks  bool     // a stream was blocked since the scheduler was built
	noBlock bool     // op never blocks a stream
	order   []uint16 // stream of every chunk sent, when logging
	logging bool
}

type hmsg struct {
	left int
	seq  uint64 // arrival order, for re-enqueueing after a switch
}

func newHarness(tb testing.TB, k Kind, opt Options, frag int) *harness {
	tb.Helper()
	s, err := New(k, opt)
	if err != nil {
		tb.Fatalf("New(%v, %+v): %v", k, opt, err)
	}
	h := &harness{tb: tb, kind: k, opt: opt, s: s, frag: frag, pin: -1}
	h.resizeModel(opt.Streams)
	return h
}

func (h *harness) fail(format string, args ...any) {
	h.tb.Helper()
	h.tb.Fatalf("%v interleaved=%v streams=%d: %s", h.kind, h.opt.Interleaved, len(h.q), fmt.Sprintf(format, args...))
}

func (h *harness) defaultValue() uint16 {
	if h.kind == WFQ {
		return DefaultWeight
	}
	return 0
}

func (h *harness) resizeModel(n int) {
	if n < len(h.q) {
		h.q, h.blocked, h.values, h.served = h.q[:n], h.blocked[:n], h.values[:n], h.served[:n]
	}
	for len(h.q) < n {
		h.q = append(h.q, nil)
		h.blocked = append(h.blocked, false)
		h.values = append(h.values, h.defaultValue())
		h.served = append(h.served, 0)
	}
	if h.pin >= n {
		h.pin = -1
	}
}

func (h *harness) enqueue(sid uint16, size int) {
	h.s.Enqueue(sid, size)
	if int(sid) < len(h.q) {
		h.seq++
		h.q[sid] = append(h.q[sid], hmsg{left: size, seq: h.seq})
	}
}

// active reports whether the model has a stream with data that is not
// blocked.
func (h *harness) active() bool {
	for sid, q := range h.q {
		if len(q) > 0 && !h.blocked[sid] {
			return true
		}
	}
	return false
}

// next calls Next and checks its answer against the model.
func (h *harness) next() (uint16, bool) {
	h.tb.Helper()
	sid, ok := h.s.Next()
	if want := h.active(); ok != want {
		h.fail("Next() ok = %v, want %v", ok, want)
	}
	if !ok {
		return 0, false
	}
	if int(sid) >= len(h.q) {
		h.fail("Next() = %d, out of range", sid)
	}
	if len(h.q[sid]) == 0 {
		h.fail("Next() = %d, which has no data", sid)
	}
	if h.blocked[sid] {
		h.fail("Next() = %d, which is blocked", sid)
	}
	switch {
	case h.kind == FCFS && !h.blocks:
		// Exact arrival order; after blocking, Unblock puts the parked
		// messages first, which may reorder them among blocked streams.
		for o, q := range h.q {
			if len(q) > 0 && q[0].seq < h.q[sid][0].seq {
				h.fail("FCFS Next() = %d (message %d), but stream %d has older message %d", sid, h.q[sid][0].seq, o, q[0].seq)
			}
		}
	case h.kind == Priority:
		for o, q := range h.q {
			if len(q) > 0 && !h.blocked[o] && h.values[o] < h.values[sid] {
				h.fail("Priority Next() = %d (priority %d), but stream %d has priority %d", sid, h.values[sid], o, h.values[o])
			}
		}
	}
	return sid, true
}

// step sends one chunk, as the association would; it reports false when
// there was nothing to send.
func (h *harness) step() bool {
	h.tb.Helper()
	var sid uint16
	if h.pin >= 0 {
		sid = uint16(h.pin)
	} else {
		var ok bool
		if sid, ok = h.next(); !ok {
			return false
		}
	}
	m := &h.q[sid][0]
	n := min(h.frag, m.left)
	m.left -= n
	msgEnd := m.left == 0
	if msgEnd {
		h.q[sid] = h.q[sid][1:]
	}
	empty := len(h.q[sid]) == 0
	h.s.Sent(sid, n, msgEnd, empty)
	h.served[sid] += int64(n)
	if h.logging {
		h.order = append(h.order, sid)
	}
	h.pin = -1
	if !h.opt.Interleaved && !msgEnd {
		h.pin = int(sid)
	}
	return true
}

func (h *harness) packetDone() { h.s.PacketDone() }

func (h *harness) block(sid uint16) {
	h.s.Block(sid)
	if int(sid) < len(h.q) {
		h.blocked[sid] = true
		h.blocks = true
	}
}

func (h *harness) unblock(sid uint16) {
	h.s.Unblock(sid)
	if int(sid) < len(h.q) {
		h.blocked[sid] = false
	}
}

func (h *harness) forget(sid uint16) {
	h.s.Forget(sid)
	if int(sid) < len(h.q) {
		h.q[sid] = nil
		if h.pin == int(sid) {
			h.pin = -1
		}
	}
}

// abandon drops the oldest message of sid, which may be partly sent
// (PR-SCTP).
func (h *harness) abandon(sid uint16) {
	if int(sid) >= len(h.q) || len(h.q[sid]) == 0 {
		return
	}
	if h.pin == int(sid) {
		h.pin = -1
	}
	h.q[sid] = h.q[sid][1:]
	h.s.Sent(sid, 0, true, len(h.q[sid]) == 0)
}

func (h *harness) setValue(sid uint16, v uint16) {
	h.tb.Helper()
	err := h.s.SetValue(sid, v)
	switch {
	case int(sid) >= len(h.q):
		if !errors.Is(err, ErrStream) {
			h.fail("SetValue(%d, %d) = %v, want ErrStream", sid, v, err)
		}
		return
	case h.kind == WFQ && v == 0:
		if !errors.Is(err, ErrValue) {
			h.fail("SetValue(%d, 0) = %v, want ErrValue", sid, err)
		}
		return
	case err != nil:
		h.fail("SetValue(%d, %d) = %v", sid, v, err)
	}
	if h.kind == WFQ || h.kind == Priority {
		h.values[sid] = v
	}
}

func (h *harness) resize(n int) {
	h.s.Resize(n)
	h.resizeModel(clampStreams(n))
	h.opt.Streams = len(h.q)
}

// switchTo replaces the scheduler by a new one of kind k and re-enqueues
// the backlog in arrival order, as the association does; values go back to
// their defaults.
func (h *harness) switchTo(k Kind) {
	h.tb.Helper()
	h.opt.Streams = len(h.q)
	s, err := New(k, h.opt)
	if err != nil {
		h.fail("New(%v): %v", k, err)
	}
	h.s, h.kind = s, k
	h.blocks = false
	type ent struct {
		sid uint16
		m   hmsg
	}
	var all []ent
	for sid, q := range h.q {
		for _, m := range q {
			all = append(all, ent{uint16(sid), m})
		}
	}
	slices.SortFunc(all, func(a, b ent) int { return int(a.m.seq - b.m.seq) })
	for _, e := range all {
		s.Enqueue(e.sid, e.m.left)
	}
	for sid := range h.q {
		h.values[sid] = h.defaultValue()
		if h.blocked[sid] {
			s.Block(uint16(sid))
			h.blocks = true
		}
	}
}

// verify checks the scheduler's invariants and its view of every stream
// against the model.
func (h *harness) verify() {
	h.tb.Helper()
	c := h.s.(checker)
	if err := c.check(); err != nil {
		h.fail("invariant: %v", err)
	}
	if h.s.Kind() != h.kind {
		h.fail("Kind() = %v", h.s.Kind())
	}
	for sid := range h.q {
		data, blocked, active := c.state(uint16(sid))
		want := len(h.q[sid]) > 0
		if data != want {
			h.fail("stream %d: scheduler has data %v, model %v", sid, data, want)
		}
		if blocked != h.blocked[sid] {
			h.fail("stream %d: scheduler blocked %v, model %v", sid, blocked, h.blocked[sid])
		}
		if active != (want && !h.blocked[sid]) {
			h.fail("stream %d: active %v, data %v, blocked %v", sid, active, want, h.blocked[sid])
		}
		v, err := h.s.Value(uint16(sid))
		if err != nil || v != h.values[sid] {
			h.fail("Value(%d) = %d, %v; want %d", sid, v, err, h.values[sid])
		}
	}
	if _, err := h.s.Value(uint16(len(h.q))); !errors.Is(err, ErrStream) {
		h.fail("Value(%d) out of range = %v, want ErrStream", len(h.q), err)
	}
	h.next()
}

// op applies one operation chosen by the bytes a, b and c.
func (h *harness) op(a, b, c byte) {
	n := len(h.q)
	sid := uint16(b)
	if n > 0 && b < 250 {
		sid = uint16(int(b) % n) // mostly in range; 250-255 probe out-of-range ids
	} else {
		sid = uint16(n + int(b) - 250)
	}
	switch a % 16 {
	case 0, 1, 2:
		h.enqueue(sid, 1+int(c)*37)
	case 3, 4, 5, 6:
		for range 1 + c%4 {
			h.step()
		}
	case 7:
		h.packetDone()
	case 8:
		if !h.noBlock {
			h.block(sid)
		}
	case 9:
		h.unblock(sid)
	case 10:
		h.forget(sid)
	case 11:
		h.abandon(sid)
	case 12:
		h.setValue(sid, uint16(c)%5)
	case 13:
		if c < 40 {
			h.resize(int(c) % 48)
		}
	case 14:
		if c < 60 {
			h.switchTo(Kind(c % numKinds))
		}
	case 15:
		// Drive out-of-range ids through every method: all ignored.
		bad := uint16(n + int(c)%3)
		h.s.Enqueue(bad, 1)
		h.s.Sent(bad, 1, true, false)
		h.s.Block(bad)
		h.s.Unblock(bad)
		h.s.Forget(bad)
	}
	h.verify()
}
