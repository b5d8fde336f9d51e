package transfer

import (
	"fmt"
	"slices"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/stream"
)

// Scheduler returns the kind of the stream scheduler in use.
func (s *Sender) Scheduler() sched.Kind { return s.sched.Kind() }

// SwitchScheduler replaces the stream scheduler by a new one of kind k, at
// any time, with data queued (SCTP_STREAM_SCHEDULER on a live association).
// Nothing queued is lost, duplicated or reordered within its stream: the
// new scheduler learns every queued message in arrival order (what is left
// of a partly sent one included), and every stream that cannot send is
// blocked in it again. Without I-DATA a partly sent message stays pinned
// and its remaining fragments go first. Per-stream values (priorities,
// weights) restart from their defaults, as in Linux. Switching to the kind
// in use also resets them. The cost is linear in the streams touched so far
// plus n log n in the queued messages.
func (s *Sender) SwitchScheduler(k sched.Kind) error {
	sc, err := sched.New(k, sched.Options{Interleaved: s.cfg.Interleaved, Streams: s.streams.OutCount()})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s.adopt(sc)
	return nil
}

// ReplaceScheduler is SwitchScheduler with a scheduler the caller built
// (with sched.New, for this association's stream count and I-DATA mode).
// sc must be fresh: a scheduler that already has an active stream is
// refused with ErrConfig.
func (s *Sender) ReplaceScheduler(sc sched.Scheduler) error {
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
func (s *Sender) adopt(sc sched.Scheduler) {
	for sid, o := range s.streams.Outs() {
		if o.State != stream.Open {
			sc.Block(sid)
		}
	}
	// Every queued message, oldest first. Within a stream the queue is
	// already in arrival order; the sort interleaves the streams.
	var backlog []*message
	for _, st := range s.streams.OutSides() {
		for m := st.head; m != nil; m = m.next {
			backlog = append(backlog, m)
		}
	}
	slices.SortFunc(backlog, func(a, b *message) int {
		// Serial order: fewer than 2^31 messages are ever queued at once.
		return int(int32(a.seq - b.seq))
	})
	for _, m := range backlog {
		sc.Enqueue(m.sid, len(m.buf)-m.off)
	}
	s.sched = sc
}

// SetStreamValue sets the scheduler value of outbound stream sid: its
// priority under sched.Priority (lower is served first) or its weight
// under sched.WFQ (1 to 65535); the other schedulers accept and ignore it.
// It fails with ErrStreamID for a stream outside the negotiated range and
// with an error matching sched.ErrValue for an invalid value. Values last
// until the next scheduler switch.
func (s *Sender) SetStreamValue(sid uint16, v uint16) error {
	if err := s.checkStream(sid); err != nil {
		return err
	}
	if err := s.sched.SetValue(sid, v); err != nil {
		return fmt.Errorf("transfer: stream %d, %v value %d: %w", sid, s.sched.Kind(), v, err)
	}
	return nil
}

// StreamValue returns the scheduler value of outbound stream sid (0 for
// the schedulers without one), or ErrStreamID.
func (s *Sender) StreamValue(sid uint16) (uint16, error) {
	if err := s.checkStream(sid); err != nil {
		return 0, err
	}
	return s.sched.Value(sid)
}

// SetStreamState sets the state of outbound stream sid and tells the
// scheduler: a stream that is not stream.Open (closed, outgoing reset
// pending, addition pending) keeps its queued messages but is skipped, so
// it never holds up the other streams; back to Open it competes again.
// Without I-DATA a message already partly sent is finished first (Linux
// only resets streams whose queues are empty anyway). Stream
// reconfiguration (RFC 6525) changes states through here.
func (s *Sender) SetStreamState(sid uint16, st stream.State) error {
	if err := s.checkStream(sid); err != nil {
		return err
	}
	s.streams.Out(sid).State = st
	if st == stream.Open {
		s.sched.Unblock(sid)
	} else {
		s.sched.Block(sid)
	}
	return nil
}

// StreamState returns the state of outbound stream sid, or ErrStreamID.
func (s *Sender) StreamState(sid uint16) (stream.State, error) {
	if err := s.checkStream(sid); err != nil {
		return stream.Closed, err
	}
	return s.streams.Out(sid).State, nil
}

// checkStream returns ErrStreamID unless sid is an outbound stream.
func (s *Sender) checkStream(sid uint16) error {
	if n := s.streams.OutCount(); int(sid) >= n {
		return fmt.Errorf("%w: %d, %d outbound streams", ErrStreamID, sid, n)
	}
	return nil
}
