package sched

import (
	"fmt"
	"math/bits"
)

// This file holds the invariant checks the tests run after every operation:
// each scheduler's internal structure is consistent, and its view of which
// streams have data and are blocked can be read back.

// checker is implemented by every scheduler in this package.
type checker interface {
	// check verifies the scheduler's internal invariants in O(streams).
	check() error
	// state reports what the scheduler believes about sid: it has data, it
	// is blocked, and it is in the active structure.
	state(sid uint16) (data, blocked, active bool)
}

func (s *rr) state(sid uint16) (data, blocked, active bool) {
	e := s.t.Get(int(sid))
	if e == nil {
		return false, false, false
	}
	return e.flags&fData != 0, e.flags&fBlocked != 0, e.flags&fLinked != 0
}

func (s *prio) state(sid uint16) (data, blocked, active bool) {
	e := s.t.Get(int(sid))
	if e == nil {
		return false, false, false
	}
	return e.flags&fData != 0, e.flags&fBlocked != 0, e.flags&fLinked != 0
}

func (s *fq) state(sid uint16) (data, blocked, active bool) {
	e := s.t.Get(int(sid))
	if e == nil {
		return false, false, false
	}
	return e.flags&fData != 0, e.flags&fBlocked != 0, e.flags&fLinked != 0
}

func (s *fcfs) state(sid uint16) (data, blocked, active bool) {
	e := s.t.Get(int(sid))
	if e == nil {
		return false, false, false
	}
	data = e.live+e.parked > 0
	blocked = e.flags&fBlocked != 0
	return data, blocked, data && !blocked
}

// checkFlags verifies that linked == data && !blocked.
func checkFlags(sid int, f uint8) error {
	want := f&(fData|fBlocked) == fData
	if (f&fLinked != 0) != want {
		return fmt.Errorf("stream %d: flags %03b: linked must equal data && !blocked", sid, f)
	}
	return nil
}

// checkRing walks the ring with cursor cur and returns its members; every
// member must be linked and its links consistent.
func checkRing(t interface{ Get(int) *linkEnt }, n int, cur uint16) (map[uint16]bool, error) {
	seen := map[uint16]bool{}
	if cur == none {
		return seen, nil
	}
	sid := cur
	for {
		if int(sid) >= n {
			return nil, fmt.Errorf("ring: stream %d out of range %d", sid, n)
		}
		if seen[sid] {
			return nil, fmt.Errorf("ring: stream %d seen twice", sid)
		}
		seen[sid] = true
		e := t.Get(int(sid))
		if e == nil || e.flags&fLinked == 0 {
			return nil, fmt.Errorf("ring: stream %d not linked", sid)
		}
		if t.Get(int(e.next)).prev != sid {
			return nil, fmt.Errorf("ring: %d.next.prev != %d", sid, sid)
		}
		sid = e.next
		if sid == cur {
			return seen, nil
		}
	}
}

func (s *rr) check() error {
	ring, err := checkRing(s.t, s.t.Len(), s.cur)
	if err != nil {
		return err
	}
	linked := 0
	for sid, e := range s.t.All() {
		if err := checkFlags(sid, e.flags); err != nil {
			return err
		}
		if e.flags&fLinked != 0 {
			linked++
			if !ring[uint16(sid)] {
				return fmt.Errorf("stream %d linked but not in the ring", sid)
			}
		}
	}
	if linked != len(ring) {
		return fmt.Errorf("%d linked streams, ring of %d", linked, len(ring))
	}
	return nil
}

func (s *prio) check() error {
	perLevel := map[uint16]int{}
	for sid, e := range s.t.All() {
		if err := checkFlags(sid, e.flags); err != nil {
			return err
		}
		if e.flags&fLinked != 0 {
			perLevel[e.value]++
		}
	}
	for v, h := range s.heads.All() {
		if *h == 0 {
			continue
		}
		cur := *h - 1
		if _, ok := perLevel[uint16(v)]; !ok {
			return fmt.Errorf("priority %d: cursor %d but no linked stream", v, cur)
		}
	}
	for w, word := range s.levels.leaf.All() {
		for x := *word; x != 0; x &= x - 1 {
			v := uint16(w<<6 | bits.TrailingZeros64(x))
			if _, ok := perLevel[v]; !ok {
				return fmt.Errorf("priority %d: in level set without linked streams", v)
			}
		}
	}
	for v, count := range perLevel {
		h := s.heads.Get(int(v))
		if h == nil || *h == 0 {
			return fmt.Errorf("priority %d: %d linked streams but no cursor", v, count)
		}
		if w := s.levels.leaf.Get(int(v >> 6)); w == nil || *w&(1<<(v&63)) == 0 {
			return fmt.Errorf("priority %d: %d linked streams but not in the level set", v, count)
		}
		ring, err := checkRing(s.t, s.t.Len(), *h-1)
		if err != nil {
			return fmt.Errorf("priority %d: %v", v, err)
		}
		if len(ring) != count {
			return fmt.Errorf("priority %d: ring of %d, %d linked streams", v, len(ring), count)
		}
		for sid := range ring {
			if s.t.Get(int(sid)).value != v {
				return fmt.Errorf("priority %d: ring holds stream %d of priority %d", v, sid, s.t.Get(int(sid)).value)
			}
		}
	}
	for m := range 16 {
		if (s.levels.top&(1<<m) != 0) != (s.levels.mid[m] != 0) {
			return fmt.Errorf("level summary %d inconsistent", m)
		}
		for b := range 64 {
			w := s.levels.leaf.Get(m<<6 | b)
			if (s.levels.mid[m]&(1<<b) != 0) != (w != nil && *w != 0) {
				return fmt.Errorf("level word %d inconsistent", m<<6|b)
			}
		}
	}
	if len(perLevel) > 0 {
		lo := 1 << 16
		for v := range perLevel {
			lo = min(lo, int(v))
		}
		if got := s.levels.min(); int(got) != lo {
			return fmt.Errorf("level set min %d, want %d", got, lo)
		}
	} else if !s.levels.empty() {
		return fmt.Errorf("level set not empty")
	}
	return nil
}

func (s *fq) check() error {
	if s.heap.Len() > s.t.Len() {
		return fmt.Errorf("heap of %d for %d streams", s.heap.Len(), s.t.Len())
	}
	linked := 0
	for sid, e := range s.t.All() {
		if err := checkFlags(sid, e.flags); err != nil {
			return err
		}
		if e.flags&fLinked != 0 {
			linked++
			i := int(e.pos) - 1
			if i < 0 || i >= s.heap.Len() || s.heap.At(i).Val != uint16(sid) || s.heap.At(i).Key != e.tag {
				return fmt.Errorf("stream %d: heap position %d wrong", sid, i)
			}
			if before(e.tag, s.v) {
				return fmt.Errorf("stream %d: tag %d before virtual time %d", sid, e.tag, s.v)
			}
		} else if e.pos != 0 {
			return fmt.Errorf("stream %d: not linked but heap position %d", sid, e.pos)
		}
	}
	if linked != s.heap.Len() {
		return fmt.Errorf("%d linked streams, heap of %d", linked, s.heap.Len())
	}
	for i := 1; i < s.heap.Len(); i++ {
		if s.heap.At(i).Before(s.heap.At((i - 1) / heapArity)) {
			return fmt.Errorf("heap order broken at %d", i)
		}
	}
	return nil
}

func (s *fcfs) check() error {
	if c := s.q.Len(); c&(c-1) != 0 || s.count > c {
		return fmt.Errorf("ring capacity %d, %d runs", c, s.count)
	}
	inRing := map[uint16]uint32{}
	for i := range s.count {
		r := s.run(i)
		if int(r.sid) >= s.t.Len() {
			return fmt.Errorf("run %d: stream %d out of range %d", i, r.sid, s.t.Len())
		}
		if r.n == 0 {
			return fmt.Errorf("run %d: empty", i)
		}
		inRing[r.sid] += r.n
	}
	for sid, e := range s.t.All() {
		if inRing[uint16(sid)] != e.live+e.dead {
			return fmt.Errorf("stream %d: %d messages in the ring, live %d + dead %d", sid, inRing[uint16(sid)], e.live, e.dead)
		}
		if e.parked > 0 && (e.flags&fBlocked == 0 || e.dead > 0) {
			return fmt.Errorf("stream %d: %d parked, flags %b, dead %d", sid, e.parked, e.flags, e.dead)
		}
		delete(inRing, uint16(sid))
	}
	if len(inRing) > 0 {
		return fmt.Errorf("ring holds streams without a record: %v", inRing)
	}
	return nil
}
