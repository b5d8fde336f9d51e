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

// switchScheduler replaces the stream scheduler by a new one of kind k, at
// any time, with data queued (SCTP_STREAM_SCHEDULER on a live association).
// Nothing queued is lost, duplicated or reordered within its stream: the
// new scheduler learns every queued message in arrival order (what is left
// of a partly sent one included), and every stream that cannot send is
// blocked in it again. Without I-DATA a partly sent message stays pinned
// and its remaining fragments go first. Per-stream values (priorities,
// weights) restart from their defaults, as in Linux. Switching to the kind
// in use also resets them. The cost is linear in the streams touched so far
// plus n log n in the queued messages.
func (s *sender) switchScheduler(k sched.Kind) error {
	sc, err := sched.New(k, sched.Options{Interleaved: s.cfg.Interleaved, Streams: s.streams.OutCount()})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s.adopt(sc)
	return nil
}

// replaceScheduler is SwitchScheduler with a scheduler the caller built
// (with sched.New, for this association's stream count and I-DATA mode).
// sc must be fresh: a scheduler that already has an active stream is
// refused with ErrConfig.
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

// adopt makes sc, a fresh scheduler, the sender's: it re-enqueues the
// backlog in arrival order and re-blocks the streams that cannot send.
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
	// The weights restart from their defaults: so do the active
	// streams' shares of the send buffer (streamLimit).
	for sid, st := range s.streams.OutSides() {
		if st.share > 0 {
			s.queue.reshare(uint16(sid))
		}
	}
}

// queued is one queued message as a scheduler switch sees it: age is how
// many messages arrived after it, n what is left of it to send.
type queued struct {
	age uint32
	sid uint16
	n   int
}

// backlog returns every queued message, oldest first (a partly sent one
// with what is left of it). Within a stream the queue is already in
// arrival order; across streams the messages are put in order by their
// arrival numbers, directly by age when the ages are dense (linear), else
// by sorting.
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

// setStreamValue sets the scheduler value of outbound stream sid: its
// priority under sched.Priority (lower is served first) or its weight
// under sched.WFQ (1 to 65535); the other schedulers accept and ignore it.
// It fails with ErrStreamID for a stream outside the negotiated range and
// with an error matching sched.ErrValue for an invalid value. Values last
// until the next scheduler switch.
func (s *sender) setStreamValue(sid uint16, v uint16) error {
	if err := s.checkStream(sid); err != nil {
		return err
	}
	if err := s.queue.sched.SetValue(sid, v); err != nil {
		return fmt.Errorf("transfer: stream %d, %v value %d: %w", sid, s.queue.sched.Kind(), v, err)
	}
	s.queue.reshare(sid) // a WFQ weight is also the stream's share of the buffer
	return nil
}

// streamValue returns the scheduler value of outbound stream sid (0 for
// the schedulers without one), or ErrStreamID.
func (s *sender) streamValue(sid uint16) (uint16, error) {
	if err := s.checkStream(sid); err != nil {
		return 0, err
	}
	return s.queue.sched.Value(sid)
}

// setStreamState sets the state of outbound stream sid and tells the
// scheduler: a stream that is not stream.Open (closed, outgoing reset
// pending, addition pending) keeps its queued messages but is skipped, so
// it never holds up the other streams; back to Open it competes again.
// Without I-DATA a message already partly sent is finished first (Linux
// only resets streams whose queues are empty anyway). Stream
// reconfiguration (RFC 6525) changes states through here.
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

// streamState returns the state of outbound stream sid, or ErrStreamID.
// A stream an outgoing reset blocks is ResetPending from when it has sent
// everything written before the reset began, although the sender marks it
// so only when it would start a later message (beginOutgoingReset).
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
