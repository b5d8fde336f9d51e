package assoc

import "time"

// The endpoint keeps its associations in a min-heap ordered by their next
// deadline, so that deadline and timeout cost O(log n) with many
// associations instead of a scan. Each association has at most one entry
// (assoc.heapIdx); touch moves it after anything that may have changed the
// association's deadline.

// timerHeap is an indexed binary min-heap of associations keyed by heapAt.
type timerHeap []*Assoc

func (h timerHeap) less(i, j int) bool { return h[i].heapAt.Before(h[j].heapAt) }

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}

func (h timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h timerHeap) down(i int) {
	for n := len(h); ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *timerHeap) push(a *Assoc) {
	a.heapIdx = len(*h)
	*h = append(*h, a)
	h.up(a.heapIdx)
}

// remove takes a out of the heap.
func (h *timerHeap) remove(a *Assoc) {
	i := a.heapIdx
	if i < 0 {
		return
	}
	s := *h
	n := len(s) - 1
	if i != n {
		s.swap(i, n)
	}
	s[n] = nil
	s = s[:n]
	*h = s
	a.heapIdx = -1
	if i < n {
		s.down(i)
		s.up(i)
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
	switch {
	case d.IsZero():
		ep.timerq.remove(a)
	case a.heapIdx >= 0:
		ep.timerq.down(a.heapIdx)
		ep.timerq.up(a.heapIdx)
	default:
		ep.timerq.push(a)
	}
}

// syncPolled updates timerq for the association poll last sent from,
// whose deadline poll left as it was before its packets.
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
	d := ep.jar.nextRotation()
	if len(ep.timerq) > 0 {
		d = earliest(d, ep.timerq[0].heapAt)
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
	for len(ep.timerq) > 0 && !ep.timerq[0].heapAt.After(now) {
		a := ep.timerq[0]
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
