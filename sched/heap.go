package sched

// This file holds fq's heap: a 4-ary min-heap of (tag, seq, stream id)
// ordered by tag, then seq, with each stream's position kept in its record
// so that a stream can be taken out or moved in O(log n). Four children per
// node halve the depth of a binary heap (8 levels for 65535 streams), and
// the children of a node are adjacent in memory.
//
// The slots live in pages of 256 (4096 bytes) reached by a page table, so no
// allocation is larger than a page and the hot path indexes with a shift and
// a mask; pages are added as the number of active streams reaches a new
// high, and released only by Resize. Node i is stored in slot i+3, so that
// the four children of a node (nodes 4i+1 to 4i+4, slots 4i+4 to 4i+7) fill
// one aligned 64-byte cache line and never straddle a page.

// heapEnt is a heap slot: the tag is copied in so that sifting compares
// without touching the stream table.
type heapEnt struct {
	tag uint64
	seq uint32 // among equal tags, the smaller (serial) sequence goes first
	sid uint16
}

// less reports whether a is served before b.
func (a *heapEnt) less(b *heapEnt) bool {
	if a.tag != b.tag {
		return before(a.tag, b.tag)
	}
	return int32(a.seq-b.seq) < 0
}

const (
	heapPageShift = 8
	heapPageLen   = 1 << heapPageShift // slots per page: 4096 bytes
	heapArity     = 4
	heapSkew      = heapArity - 1 // node i is in slot i+heapSkew
)

// heapPages is the paged slot storage of the heap.
type heapPages struct {
	pages []*[heapPageLen]heapEnt
}

// at returns node i, which must be below the capacity.
func (p *heapPages) at(i int) *heapEnt {
	i += heapSkew
	return &p.pages[i>>heapPageShift][i&(heapPageLen-1)]
}

// kids returns the four nodes starting at c, which must be the first child
// of a node; all four must be below the capacity.
func (p *heapPages) kids(c int) *[heapArity]heapEnt {
	c += heapSkew
	return (*[heapArity]heapEnt)(p.pages[c>>heapPageShift][c&(heapPageLen-1):])
}

// reserve makes room for node i.
func (p *heapPages) reserve(i int) {
	i += heapSkew
	for i>>heapPageShift >= len(p.pages) {
		p.pages = append(p.pages, new([heapPageLen]heapEnt))
	}
}

// shrink releases the pages not needed for n nodes.
func (p *heapPages) shrink(n int) {
	keep := (n + heapSkew + heapPageLen - 1) >> heapPageShift
	if n == 0 {
		keep = 0
	}
	clear(p.pages[keep:])
	p.pages = p.pages[:keep]
}

// place stores h at slot i and records the position in its stream.
func (s *fq) place(i int, h heapEnt) {
	*s.heap.at(i) = h
	s.t.Get(int(h.sid)).pos = uint16(i + 1)
}

// link puts sid into the heap, starting at max(V, its tag).
func (s *fq) link(sid uint16, e *fqEnt) {
	e.flags |= fLinked
	if d := e.tag - s.v; int64(d) < 0 || d > maxLead {
		e.tag = s.v
	}
	i := s.n
	s.heap.reserve(i)
	s.n++
	s.seq++
	s.up(i, heapEnt{e.tag, s.seq, sid})
}

// unlink takes the stream with record e out of the heap; its tag stays as
// its last finish. (sid is the stream's id, which the heap does not need.)
func (s *fq) unlink(_ uint16, e *fqEnt) {
	e.flags &^= fLinked
	i := int(e.pos) - 1
	e.pos = 0
	s.n--
	if i == s.n {
		return
	}
	last := *s.heap.at(s.n)
	if i > 0 && last.less(s.heap.at((i-1)/heapArity)) {
		s.up(i, last)
	} else {
		s.down(i, last)
	}
}

// up places h, which belongs at slot i or above, moving parents down.
func (s *fq) up(i int, h heapEnt) {
	for i > 0 {
		p := (i - 1) / heapArity
		ph := s.heap.at(p)
		if !h.less(ph) {
			break
		}
		s.place(i, *ph)
		i = p
	}
	s.place(i, h)
}

// down places h, which belongs at slot i or below, moving children up.
func (s *fq) down(i int, h heapEnt) {
	for {
		c := heapArity*i + 1
		if c >= s.n {
			break
		}
		var best *heapEnt
		if c+heapArity <= s.n {
			// All four children: one cache line.
			kids := s.heap.kids(c)
			k := 0
			if kids[1].less(&kids[0]) {
				k = 1
			}
			m := 2
			if kids[3].less(&kids[2]) {
				m = 3
			}
			if kids[m].less(&kids[k]) {
				k = m
			}
			c += k
			best = &kids[k]
		} else {
			best = s.heap.at(c)
			for j := c + 1; j < min(c+heapArity, s.n); j++ {
				if x := s.heap.at(j); x.less(best) {
					c, best = j, x
				}
			}
		}
		if !best.less(&h) {
			break
		}
		s.place(i, *best)
		i = c
	}
	s.place(i, h)
}
