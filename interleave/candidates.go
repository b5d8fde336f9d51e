package interleave

import "github.com/usctp/usctp/sctp/chunk"

// candidates is the set of streams on which partial delivery can start
// (RFC 9260 section 6.9), each keyed by the TSN of the first fragment of
// the message it would start with: a binary min-heap in serial order, whose
// positions live in the streams' InSides. The reassemblers update a
// stream's entry whenever what decides it changes (its lists' heads, its
// delivery queue becoming empty or not, its next SSN or MID, its partial
// deliveries), each in O(log n), so choosing the message to partially
// deliver costs O(log n) too, whatever the number of streams: a peer that
// spreads first fragments over every stream cannot make each chunk look
// at every stream.
//
// Keys are TSNs of held fragments: all lie within the receive window of
// the cumulative TSN, so serial order is a total order among them, and no
// two streams share one (a TSN names one fragment).
//
// Side objects of streams that hold fragments are never released (inbound
// streams only grow), so the heap can hold their addresses.
//
// The same structure, as a max-heap (slot 1), keeps the streams that hold
// fragments the receiver may drop to make room (RFC 9260 section 6.2
// reneging), keyed by the highest TSN among them, so DropHighest finds its
// stream in O(1) instead of looking at every stream.
type candidates struct {
	heap []*InSide
	slot uint8 // which of InSide.hkey and InSide.hat this heap uses
	max  bool  // a max-heap: min returns the highest key
}

// set makes s a candidate with key tsn (ok), or removes it (!ok).
func (c *candidates) set(s *InSide, tsn chunk.TSN, ok bool) {
	switch {
	case !ok:
		c.remove(s)
	case s.hat[c.slot] == 0:
		s.hkey[c.slot] = tsn
		c.heap = append(c.heap, s)
		s.hat[c.slot] = int32(len(c.heap))
		c.up(len(c.heap) - 1)
	case s.hkey[c.slot] != tsn:
		old := s.hkey[c.slot]
		s.hkey[c.slot] = tsn
		if tsn.LT(old) != c.max {
			c.up(int(s.hat[c.slot]) - 1)
		} else {
			c.down(int(s.hat[c.slot]) - 1)
		}
	}
}

// remove takes s out of the set, if it is in.
func (c *candidates) remove(s *InSide) {
	i := int(s.hat[c.slot]) - 1
	if i < 0 {
		return
	}
	last := len(c.heap) - 1
	if i != last {
		c.swap(i, last)
	}
	c.heap[last] = nil
	c.heap = c.heap[:last]
	s.hat[c.slot] = 0
	if i != last {
		c.down(i)
		c.up(i)
	}
}

// key returns s's key in this heap (valid while s is in it).
func (c *candidates) key(s *InSide) chunk.TSN { return s.hkey[c.slot] }

// in reports whether s is in this heap.
func (c *candidates) in(s *InSide) bool { return s.hat[c.slot] != 0 }

// min returns the candidate with the lowest key (the highest in a
// max-heap), or nil.
func (c *candidates) min() *InSide {
	if len(c.heap) == 0 {
		return nil
	}
	return c.heap[0]
}

// len returns the number of candidates.
func (c *candidates) len() int { return len(c.heap) }

// clear empties the set.
func (c *candidates) clear() {
	for i, s := range c.heap {
		s.hat[c.slot] = 0
		c.heap[i] = nil
	}
	c.heap = c.heap[:0]
}

func (c *candidates) less(i, j int) bool {
	a, b := c.heap[i].hkey[c.slot], c.heap[j].hkey[c.slot]
	if c.max {
		return b.LT(a)
	}
	return a.LT(b)
}

func (c *candidates) swap(i, j int) {
	h := c.heap
	h[i], h[j] = h[j], h[i]
	h[i].hat[c.slot], h[j].hat[c.slot] = int32(i+1), int32(j+1)
}

func (c *candidates) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(i, p) {
			return
		}
		c.swap(i, p)
		i = p
	}
}

func (c *candidates) down(i int) {
	n := len(c.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && c.less(r, l) {
			m = r
		}
		if !c.less(m, i) {
			return
		}
		c.swap(i, m)
		i = m
	}
}
