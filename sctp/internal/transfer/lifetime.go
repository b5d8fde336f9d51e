package transfer

import (
	"time"

	"github.com/usctp/usctp/internal/indexheap"
)

// Lifetime expiry (PR-SCTP timed reliability, RFC 3758 section 4.1 TR5:
// "The sending SCTP MAY evaluate the lifetime of messages at anytime").
// Messages with a lifetime sit in a min-heap by lifetime end (lifetimes
// differ within a stream, hence not a list), and Deadline includes the
// earliest. Entries are not removed when a message leaves the send buffer:
// an entry whose message was recycled or is gone is skipped, and the heap
// is compacted once it doubles since the last compaction.

// ttlRef is a heap entry's value: message m, queued as arrival number
// seq. The key is the lifetime clock (abandoner.clock) at m's end.
type ttlRef struct {
	m   *message
	seq uint32
}

// ttlHeap is a binary min-heap of lifetimes (serial order).
type ttlHeap struct {
	h    indexheap.Heap[uint32, ttlRef, indexheap.NoIndex[ttlRef]]
	live int        // entries after the last compaction
	sent []*message // scratch: sent messages expireLifetimes abandons
}

// valid reports whether r still names a live message whose lifetime runs.
func (r ttlRef) valid() bool {
	m := r.m
	return m.refs > 0 && m.seq == r.seq && m.policy() == PRTTL && m.bits&(msgAbandoned|msgDrained) == 0
}

// watchLifetime adds m, just queued with a PRTTL lifetime, to the heap.
func (s *sender) watchLifetime(m *message) {
	t := &s.pr.ttl
	if t.h.Len() >= 2*t.live+64 {
		s.compactLifetimes()
	}
	t.h.Push(indexheap.Entry[uint32, ttlRef]{Key: m.prValue, Val: ttlRef{m: m, seq: m.seq}})
}

// compactLifetimes drops the entries of messages that left the send buffer
// and rebuilds the heap.
func (s *sender) compactLifetimes() {
	t := &s.pr.ttl
	t.h.Filter(func(e *indexheap.Entry[uint32, ttlRef]) bool { return e.Val.valid() })
	t.live = t.h.Len()
}

// lifetimeDeadline returns when the earliest watched lifetime ends, or the
// zero time. Stale entries come off the top first, so a message acked long
// before its lifetime ends wakes nobody.
func (s *sender) lifetimeDeadline() time.Time {
	t := &s.pr.ttl
	for t.h.Len() > 0 && !t.h.Min().Val.valid() {
		t.h.Remove(0)
	}
	if t.h.Len() == 0 {
		return time.Time{}
	}
	return s.pr.clockBase.Add(time.Duration(t.h.Min().Key) * time.Millisecond)
}

// expireLifetimes gives up every message whose lifetime ended by now: one
// not yet sent leaves the queue (TR3); one partly or wholly sent is
// abandoned (RFC 3758 section 3.5 A2/A3) with PR-SCTP, and sent on without
// it, since the peer could not be told to skip it.
func (s *sender) expireLifetimes(now time.Time) {
	t := &s.pr.ttl
	if t.h.Len() == 0 {
		return
	}
	clock := s.pr.clock(now)
	sent := t.sent[:0]
	for t.h.Len() > 0 && int32(clock-t.h.Min().Key) >= 0 {
		e := t.h.Remove(0)
		if !e.Val.valid() {
			continue
		}
		m := e.Val.m
		switch {
		case m.off == 0 && s.queue.pinned != m:
			s.dropQueued(m)
		case s.cfg.PartialReliability:
			sent = append(sent, m)
		}
	}
	if t.live > t.h.Len() {
		t.live = t.h.Len()
	}
	if len(sent) == 1 {
		s.abandon(now, sent[0])
	} else if len(sent) > 1 {
		s.abandonAll(sent)
	}
	clear(sent)
	t.sent = sent[:0]
}

// abandonAll is abandon for several messages with one pass over the
// outstanding chunks: O(flight), not O(messages x flight).
func (s *sender) abandonAll(ms []*message) {
	for _, m := range ms {
		m.bits |= msgAbandoned
		s.pr.report(m, true)
	}
	for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {
		if r := s.ledger.rec(t); r.msg != nil && r.msg.abandoned() {
			s.abandonRec(r) // no-op for chunks abandoned before
		}
	}
	for _, m := range ms {
		if int(m.off) < len(m.buf) {
			s.unqueue(m)
			s.placeholder(m)
			m.refs--
		}
	}
	s.pr.advance(&s.ledger)
}
