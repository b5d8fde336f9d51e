package transfer

import "time"

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

// ttlEntry is one heap entry: message m, queued as arrival number seq,
// whose lifetime ends at prClock value at.
type ttlEntry struct {
	m   *message
	seq uint32
	at  uint32
}

// ttlHeap is a binary min-heap of lifetimes (serial order).
type ttlHeap struct {
	h    []ttlEntry
	live int        // entries after the last compaction
	sent []*message // scratch: sent messages expireLifetimes abandons
}

func (t *ttlHeap) less(i, j int) bool { return int32(t.h[i].at-t.h[j].at) < 0 }

func (t *ttlHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.less(i, p) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *ttlHeap) down(i int) {
	for n := len(t.h); ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && t.less(l, m) {
			m = l
		}
		if r < n && t.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

func (t *ttlHeap) push(e ttlEntry) {
	t.h = append(t.h, e)
	t.up(len(t.h) - 1)
}

func (t *ttlHeap) pop() ttlEntry {
	e := t.h[0]
	n := len(t.h) - 1
	t.h[0] = t.h[n]
	t.h[n] = ttlEntry{}
	t.h = t.h[:n]
	if n > 0 {
		t.down(0)
	}
	return e
}

// valid reports whether e still names a live message whose lifetime runs:
// not recycled (same arrival number, referenced), not given up or drained.
func (e *ttlEntry) valid() bool {
	m := e.m
	return m.refs > 0 && m.seq == e.seq && m.policy() == PRTTL && m.bits&(msgAbandoned|msgDrained) == 0
}

// watchLifetime adds m, just queued with a PRTTL lifetime, to the heap.
func (s *sender) watchLifetime(m *message) {
	t := &s.pr.ttl
	if len(t.h) >= 2*t.live+64 {
		s.compactLifetimes()
	}
	t.push(ttlEntry{m: m, seq: m.seq, at: m.prValue})
}

// compactLifetimes drops the entries of messages that left the send buffer
// and rebuilds the heap.
func (s *sender) compactLifetimes() {
	t := &s.pr.ttl
	n := 0
	for _, e := range t.h {
		if e.valid() {
			t.h[n] = e
			n++
		}
	}
	clear(t.h[n:])
	t.h = t.h[:n]
	for i := n/2 - 1; i >= 0; i-- {
		t.down(i)
	}
	t.live = n
}

// lifetimeDeadline returns when the earliest lifetime of a message in the
// send buffer ends, or the zero time when none is watched. Entries of
// messages that left come off the top first, so that a message
// acknowledged long before its lifetime ends wakes nobody then (the
// association asks after every packet: amortised O(log n) per message).
func (s *sender) lifetimeDeadline() time.Time {
	t := &s.pr.ttl
	for len(t.h) > 0 && !t.h[0].valid() {
		t.pop()
	}
	if len(t.h) == 0 {
		return time.Time{}
	}
	return s.pr.clockBase.Add(time.Duration(s.pr.ttl.h[0].at) * time.Millisecond)
}

// expireLifetimes gives up every message whose lifetime ended at or before
// now: a message not yet sent leaves the queue (TR3); one partly or wholly
// sent is abandoned (RFC 3758 section 3.5 A2/A3) when PR-SCTP was
// negotiated, and a FORWARD-TSN becomes due; without PR-SCTP a message
// already started is sent on (the peer could not be told to skip it). The
// messages given up are reported through TakeFailed.
func (s *sender) expireLifetimes(now time.Time) {
	t := &s.pr.ttl
	if len(t.h) == 0 {
		return
	}
	clock := s.pr.clock(now)
	sent := t.sent[:0]
	for len(t.h) > 0 && int32(clock-t.h[0].at) >= 0 {
		e := t.pop()
		if !e.valid() {
			continue
		}
		m := e.m
		switch {
		case m.off == 0 && s.queue.pinned != m:
			s.dropQueued(m)
		case s.cfg.PartialReliability:
			sent = append(sent, m)
		}
	}
	if t.live > len(t.h) {
		t.live = len(t.h)
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
