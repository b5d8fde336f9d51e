package interleave

import (
	"github.com/usctp/usctp/internal/indexheap"
	"github.com/usctp/usctp/sctp/chunk"
)

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
// streams only grow, and DataReassembler.release frees only side objects
// of streams that hold nothing and are in no heap), so the heap can hold
// their addresses.
//
// The same structure, as a max-heap (slot 1), keeps the streams that hold
// fragments the receiver may drop to make room (RFC 9260 section 6.2
// reneging), keyed by the highest TSN among them, so DropHighest finds its
// stream in O(1) instead of looking at every stream.
//
// The heap is an indexheap keyed by the TSN (its negation in a max-heap:
// serial order reversed), whose Indexer keeps each stream's position + 1
// in its InSide (hat, 0 when out).
type candidates struct {
	heap candHeap
	slot uint8 // which of InSide.hat this heap uses
	max  bool  // a max-heap: min returns the highest key
}

// candHeap is the heap of a candidates set.
type candHeap = indexheap.Heap[chunk.TSN, *InSide, hatIndex]

// hatIndex keeps a stream's position + 1 in slot of its InSide.hat.
type hatIndex struct{ slot uint8 }

// SetIndex records that s sits at index i of the heap (-1: out).
func (x hatIndex) SetIndex(s *InSide, i int) { s.hat[x.slot] = int32(i + 1) }

// newCandidates returns an empty set that keeps its positions in slot of
// InSide.hat, a max-heap if max. (The zero candidates is a min-heap in
// slot 0.)
func newCandidates(slot uint8, max bool) candidates {
	c := candidates{slot: slot, max: max}
	c.heap.Init(2, hatIndex{slot})
	return c
}

// order returns the heap key of tsn: tsn itself, or in a max-heap its
// negation, which reverses serial order.
func (c *candidates) order(tsn chunk.TSN) chunk.TSN {
	if c.max {
		return -tsn
	}
	return tsn
}

// set makes s a candidate with key tsn (ok), or removes it (!ok).
func (c *candidates) set(s *InSide, tsn chunk.TSN, ok bool) {
	i := int(s.hat[c.slot]) - 1
	switch {
	case !ok:
		if i >= 0 {
			c.heap.Remove(i)
		}
	case i < 0:
		c.heap.Push(indexheap.Entry[chunk.TSN, *InSide]{Key: c.order(tsn), Val: s})
	case c.heap.At(i).Key != c.order(tsn):
		c.heap.Fix(i, indexheap.Entry[chunk.TSN, *InSide]{Key: c.order(tsn), Val: s})
	}
}

// remove takes s out of the set, if it is in.
func (c *candidates) remove(s *InSide) {
	if i := int(s.hat[c.slot]) - 1; i >= 0 {
		c.heap.Remove(i)
	}
}

// key returns s's key in this heap (0 if s is not in it).
func (c *candidates) key(s *InSide) chunk.TSN {
	i := int(s.hat[c.slot]) - 1
	if i < 0 {
		return 0
	}
	return c.order(c.heap.At(i).Key)
}

// in reports whether s is in this heap.
func (c *candidates) in(s *InSide) bool { return s.hat[c.slot] != 0 }

// min returns the candidate with the lowest key (the highest in a
// max-heap), or nil.
func (c *candidates) min() *InSide {
	if c.heap.Len() == 0 {
		return nil
	}
	return c.heap.Min().Val
}

// clear empties the set.
func (c *candidates) clear() { c.heap.Clear() }
