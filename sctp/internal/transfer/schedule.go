package transfer

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/stream"
)

// scheduler returns the kind of the stream scheduler in use.
func (s *sender) scheduler() sched.Kind { return s.queue.sched.Kind() }

// switchScheduler is Engine.SwitchScheduler. The new scheduler learns
// every queued message in arrival order and every blocked stream, so
// nothing is lost, duplicated or reordered; without I-DATA a partly sent
// message stays pinned. Per-stream values restart from their defaults, as
// in Linux. The cost is linear in the streams touched plus n log n in the
// queued messages.
func (s *sender) switchScheduler(k sched.Kind) error {
	sc, err := sched.New(k, sched.Options{Interleaved: s.cfg.Interleaved, Streams: s.streams.OutCount()})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s.adopt(sc)
	return nil
}

// replaceScheduler is Engine.ReplaceScheduler.
func (s *sender) replaceScheduler(sc sched.Scheduler) error {
	if sc == nil {
		return fmt.Errorf("%w: nil scheduler", ErrConfig)
	}
	if _, busy := sc.Next(); busy {
		return fmt.Errorf("%w: the new scheduler already has data", ErrConfig)
	}
	sc.Resize(s.streams.OutCount())
	s.adopt(sc)
	return nil
}

// adopt makes sc the sender's scheduler, re-enqueueing the backlog in
// arrival order and re-blocking the streams that cannot send.
func (s *sender) adopt(sc sched.Scheduler) {
	for sid, o := range s.streams.Outs() {
		if o.State != stream.Open {
			sc.Block(sid)
		}
	}
	for _, q := range s.backlog() {
		sc.Enqueue(q.sid, q.n)
	}
	s.queue.sched = sc
	// Default weights mean default buffer shares too (streamLimit).
	for sid, st := range s.streams.OutSides() {
		if st.share > 0 {
			s.queue.reshare(uint16(sid))
		}
	}
}

// queued is one queued message for a scheduler switch: age is how many
// messages arrived after it, n what is left to send.
type queued struct {
	age uint32
	sid uint16
	n   int
}

// backlog returns every queued message, oldest first: by slotting the ages
// when they are dense (linear), else by sorting.
func (s *sender) backlog() []queued {
	var out []queued
	var oldest uint32
	for _, st := range s.streams.OutSides() {
		for m := st.head; m != nil; m = m.next {
			// Serial: fewer than 2^31 messages are ever queued at once.
			age := s.queue.nextArrival - m.seq - 1
			oldest = max(oldest, age)
			out = append(out, queued{age, m.sid, len(m.buf) - int(m.off)})
		}
	}
	if len(out) < 2 {
		return out
	}
	if span := int(oldest) + 1; span <= 4*len(out) {
		slots := make([]queued, span)
		for _, q := range out {
			slots[span-1-int(q.age)] = q
		}
		out = out[:0]
		for _, q := range slots {
			if q.n > 0 {
				out = append(out, q)
			}
		}
		return out
	}
	slices.SortFunc(out, func(a, b queued) int { return cmp.Compare(b.age, a.age) })
	return out
}

// setStreamValue is Engine.SetStreamValue: a priority under
// sched.Priority (lower first), a weight under sched.WFQ (1 to 65535),
// ignored by the others. Values last until the next scheduler switch.
func (s *sender) setStreamValue(sid uint16, v uint16) error {
	if err := s.checkStream(sid); err != nil {
		return err
	}
	if err := s.queue.sched.SetValue(sid, v); err != nil {
		// The scheduler's own text names its package: say it in the
		// association's terms, matching the same error.
		return fmt.Errorf("sctp: stream %d: %v value %d (a weight is 1 to 65535): %w", sid, s.queue.sched.Kind(), v, sched.ErrValue)
	}
	s.queue.reshare(sid) // a WFQ weight is also the stream's share of the buffer
	return nil
}

// streamValue returns the scheduler value of outbound stream sid (0 for
// schedulers without one).
func (s *sender) streamValue(sid uint16) (uint16, error) {
	if err := s.checkStream(sid); err != nil {
		return 0, err
	}
	return s.queue.sched.Value(sid)
}

// setStreamState is Engine.SetStreamState. Without I-DATA a partly sent
// message is finished first (Linux resets only streams with empty queues
// anyway).
func (s *sender) setStreamState(sid uint16, st stream.State) error {
	if err := s.checkStream(sid); err != nil {
		return err
	}
	s.streams.Out(sid).State = st
	if st == stream.Open {
		s.queue.sched.Unblock(sid)
	} else {
		s.queue.sched.Block(sid)
	}
	return nil
}

// streamState returns the state of outbound stream sid. A stream an
// outgoing reset holds reads ResetPending once its old data is sent,
// though it is marked so only when it would start a later message.
func (s *sender) streamState(sid uint16) (stream.State, error) {
	if err := s.checkStream(sid); err != nil {
		return stream.Closed, err
	}
	st := s.streams.Out(sid).State
	if st == stream.Open {
		side := s.streams.PeekOutSide(sid)
		in := s.resets.all || side != nil && side.resetting
		if in && (side == nil || side.head == nil || s.resets.holds(side)) {
			return stream.ResetPending, nil
		}
	}
	return st, nil
}

// checkStream returns ErrStreamID unless sid is an outbound stream.
func (s *sender) checkStream(sid uint16) error {
	if n := s.streams.OutCount(); int(sid) >= n {
		return fmt.Errorf("%w: %d, %d outbound streams", ErrStreamID, sid, n)
	}
	return nil
}
