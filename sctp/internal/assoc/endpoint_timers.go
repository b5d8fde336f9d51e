package assoc

import (
	"time"

	"github.com/usctp/usctp/internal/indexheap"
)

// The endpoint keeps its associations in a min-heap ordered by their next
// deadline, so that deadline and timeout cost O(log n) with many
// associations instead of a scan. Each association has at most one entry
// (assoc.heapIdx); touch moves it after anything that may have changed the
// association's deadline.

// timerHeap is a binary indexheap of associations keyed by heapAt, as
// nanoseconds since epoch, the first deadline it was given: that orders
// deadlines as time.Time.Before does (the times an endpoint is given all
// come from one clock, and deadlines lie within centuries of each other).
// While the heap holds one association, its key is not computed (lone):
// an endpoint with one association, a client's, moves its deadline at
// every packet and never compares it.
type timerHeap struct {
	h     indexheap.Heap[uint64, *Assoc, assocIndex]
	epoch time.Time
	lone  bool // the one entry's key is stale; its heapAt is current
}

// assocIndex keeps an association's index in the timer heap in heapIdx
// (-1: out).
type assocIndex struct{}

// SetIndex records that a sits at index i of the timer heap.
func (assocIndex) SetIndex(a *Assoc, i int) { a.heapIdx = i }

// update gives a the deadline d (a.heapAt, already set) in the heap: the
// lone entry needs nothing (its key waits for a second association), any
// other is moved or added by set.
func (q *timerHeap) update(a *Assoc, d time.Time) {
	if !q.lone || a.heapIdx != 0 {
		q.set(a, d)
	}
}

// set is update for all but the lone entry.
func (q *timerHeap) set(a *Assoc, d time.Time) {
	switch n := q.h.Len(); {
	case n == 0 || n == 1 && a.heapIdx == 0:
		if n == 0 {
			q.h.Push(indexheap.Entry[uint64, *Assoc]{Val: a})
		}
		q.lone = true
		return
	case q.lone:
		// A second association: the first one's key is needed now.
		q.lone = false
		first := q.h.Min().Val
		q.h.Fix(0, q.entry(first, first.heapAt))
	}
	if a.heapIdx >= 0 {
		q.h.Fix(a.heapIdx, q.entry(a, d))
	} else {
		q.h.Push(q.entry(a, d))
	}
}

// entry returns a's heap entry for deadline d.
func (q *timerHeap) entry(a *Assoc, d time.Time) indexheap.Entry[uint64, *Assoc] {
	if q.epoch.IsZero() {
		q.epoch = d
	}
	return indexheap.Entry[uint64, *Assoc]{Key: uint64(d.Sub(q.epoch)), Val: a}
}

// remove takes a out of the heap.
func (q *timerHeap) remove(a *Assoc) {
	if a.heapIdx >= 0 {
		q.h.Remove(a.heapIdx)
	}
}

// touch records a's current deadline after anything that may have changed
// it (every entry point that reaches an association calls it).
func (ep *Endpoint) touch(a *Assoc) {
	d := a.nextDeadline()
	if d.Equal(a.heapAt) && (a.heapIdx >= 0) == !d.IsZero() {
		return
	}
	a.heapAt = d
	if d.IsZero() {
		ep.timerq.remove(a)
	} else {
		ep.timerq.update(a, d)
	}
}

// deferTouch is touch for a burst of packets to or from a: a's place in
// timerq is updated when the heap is next read (syncPolled) or another
// association's packet comes, not for every packet. Nothing reads the heap
// between the packets of a burst.
func (ep *Endpoint) deferTouch(a *Assoc) {
	if p := ep.polled; p != a {
		if p != nil {
			ep.touch(p)
		}
		ep.polled = a
	}
}

// syncPolled updates timerq for the association whose touch deferTouch
// deferred.
func (ep *Endpoint) syncPolled() {
	if a := ep.polled; a != nil {
		ep.polled = nil
		ep.touch(a)
	}
}

// Deadline returns the earliest deadline of all associations and of the
// secret rotation, or the zero time.
func (ep *Endpoint) Deadline() time.Time {
	ep.syncPolled()
	d := ep.jar.due // nextRotation, kept by rotate
	if ep.timerq.h.Len() > 0 {
		d = earliest(d, ep.timerq.h.Min().Val.heapAt)
	}
	return d
}

// Expire runs every timer that has expired at now. The expired
// associations are taken off the heap first and each runs once: a deadline
// that only a packet can serve (a delayed SACK) stays due until poll.
// Changed lists them afterwards.
func (ep *Endpoint) Expire(now time.Time) {
	ep.syncPolled()
	ep.jar.rotate(now)
	clear(ep.due)
	due := ep.due[:0]
	for ep.timerq.h.Len() > 0 && !ep.timerq.h.Min().Val.heapAt.After(now) {
		a := ep.timerq.h.Min().Val
		ep.timerq.remove(a)
		a.heapAt = time.Time{}
		due = append(due, a)
	}
	for _, a := range due {
		a.expire(now)
		ep.reached(a)
	}
	ep.due = due
}
