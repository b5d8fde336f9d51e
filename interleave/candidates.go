package interleave

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
type candidates struct {
	heap []*InSide
}

// set makes s a candidate with key tsn (ok), or removes it (!ok).
func (c *candidates) set(s *InSide, tsn uint32, ok bool) {
	switch {
	case !ok:
		c.remove(s)
	case s.pdAt == 0:
		s.pdKey = tsn
		c.heap = append(c.heap, s)
		s.pdAt = int32(len(c.heap))
		c.up(len(c.heap) - 1)
	case s.pdKey != tsn:
		old := s.pdKey
		s.pdKey = tsn
		if tsnLT(tsn, old) {
			c.up(int(s.pdAt) - 1)
		} else {
			c.down(int(s.pdAt) - 1)
		}
	}
}

// remove takes s out of the set, if it is in.
func (c *candidates) remove(s *InSide) {
	i := int(s.pdAt) - 1
	if i < 0 {
		return
	}
	last := len(c.heap) - 1
	if i != last {
		c.swap(i, last)
	}
	c.heap[last] = nil
	c.heap = c.heap[:last]
	s.pdAt = 0
	if i != last {
		c.down(i)
		c.up(i)
	}
}

// min returns the candidate with the lowest key, or nil.
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
		s.pdAt = 0
		c.heap[i] = nil
	}
	c.heap = c.heap[:0]
}

func (c *candidates) less(i, j int) bool { return tsnLT(c.heap[i].pdKey, c.heap[j].pdKey) }

func (c *candidates) swap(i, j int) {
	h := c.heap
	h[i], h[j] = h[j], h[i]
	h[i].pdAt, h[j].pdAt = int32(i+1), int32(j+1)
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
