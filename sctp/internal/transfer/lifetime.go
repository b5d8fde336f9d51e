package transfer

import (
	"time"

	"github.com/usctp/usctp/internal/indexheap"
)

// Lifetime expiry (PR-SCTP timed reliability, RFC 3758 section 4.1 TR5:
// "The sending SCTP MAY evaluate the lifetime of messages at anytime").
// Every message queued with a lifetime has an entry in a min-heap ordered
// by the end of its lifetime; Deadline includes the earliest one, so the
// message is given up when its lifetime ends rather than when it is next
// picked for sending or another timer runs. Messages of one stream queue in
// order but their lifetimes differ, hence a heap and not a list.
//
// Entries are not removed when a message leaves the send buffer
// (acknowledged, abandoned, drained): an entry names its message and the
// message's arrival number, and one whose message was recycled or is gone
// is skipped when it comes up. So that entries of messages long gone do
// not pile up (a long lifetime on messages acknowledged at once), the heap
// is compacted once it holds twice as many entries as after the last
// compaction: O(1) amortised per message, at most twice the live entries.

// ttlRef is the value of a heap entry: message m, queued as arrival
// number seq. The entry's key is the value of the lifetime clock
// (abandoner.clock) at which m's lifetime ends.
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

// valid reports whether r still names a live message whose lifetime runs:
// not recycled (same arrival number, referenced), not given up or drained.
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

// lifetimeDeadline returns when the earliest lifetime of a message in the
// send buffer ends, or the zero time when none is watched. Entries of
// messages that left come off the top first, so that a message
// acknowledged long before its lifetime ends wakes nobody then (the
// association asks after every packet: amortised O(log n) per message).
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

// expireLifetimes gives up every message whose lifetime ended at or before
// now: a message not yet sent leaves the queue (TR3); one partly or wholly
// sent is abandoned (RFC 3758 section 3.5 A2/A3) when PR-SCTP was
// negotiated, and a FORWARD-TSN becomes due; without PR-SCTP a message
// already started is sent on (the peer could not be told to skip it). The
// messages given up are reported through TakeFailed.
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

// abandonAll is abandon for several messages at once with one pass over
// the outstanding chunks, not one per message: thousands of small
// messages in flight whose lifetimes end together cost O(flight), not
// O(messages x flight). The effect is that of abandoning them one after
// the other in order.
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
