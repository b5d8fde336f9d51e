package sched

import (
	"github.com/usctp/usctp/flexarray"
	"github.com/usctp/usctp/internal/indexheap"
)

// This file holds fq's heap: a 4-ary indexheap of (tag, seq, stream id)
// ordered by tag, then seq, with each stream's position kept in its record
// so that a stream can be taken out or moved in O(log n). Four children per
// node halve the depth of a binary heap (8 levels for 65535 streams), and
// the children of a node are adjacent in memory, in one 64-byte group. The
// tag is copied into the entry so that sifting compares without touching
// the stream table; the heap's pages hold no more than 4096 bytes each.

// heapArity is the number of children of a node of fq's heap.
const heapArity = 4

// heapEnt is a heap entry: the stream's tag as the key, the stamp of its
// insertion or last update as the tie (among equal tags, the smaller
// serial stamp goes first) and the stream id as the value.
type heapEnt = indexheap.Entry[uint64, uint16]

// fqHeap is fq's heap.
type fqHeap = indexheap.Heap[uint64, uint16, fqIndex]

// fqIndex keeps each stream's heap position + 1 in its record (0: out).
type fqIndex struct{ t *flexarray.Array[fqEnt] }

// SetIndex records that stream sid sits at index i of the heap (-1: out).
func (x fqIndex) SetIndex(sid uint16, i int) { x.t.Get(int(sid)).pos = uint16(i + 1) }

// link puts sid into the heap, starting at max(V, its tag).
func (s *fq) link(sid uint16, e *fqEnt) {
	e.flags |= fLinked
	if d := e.tag - s.v; int64(d) < 0 || d > maxLead {
		e.tag = s.v
	}
	s.seq++
	s.heap.Push(heapEnt{Key: e.tag, Tie: s.seq, Val: sid})
}

// unlink takes the stream with record e out of the heap; its tag stays as
// its last finish. (sid is the stream's id, which the heap does not need.)
func (s *fq) unlink(_ uint16, e *fqEnt) {
	e.flags &^= fLinked
	s.heap.Remove(int(e.pos) - 1)
}
