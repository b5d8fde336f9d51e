// Package indexheap is the module's indexed priority queue: a binary or
// 4-ary min-heap of entries ordered by an integer key in serial number
// order (RFC 1982), that tells its user where each entry's value sits, so
// that the user can change an entry's key or take it out in O(log n).
//
// It serves the endpoint's timer heap of associations, the PR-SCTP
// lifetimes of queued messages, the reassemblers' partial delivery and
// reneging candidates and the fair-queueing schedulers. The keys sit in the
// entries, so sifting compares integers inline without touching the
// values (a comparison function would cost an indirect call per
// comparison); an Indexer, a type parameter, records each move in the
// user's own structures (a position field in the value, or in a table the
// value names).
//
// Storage grows by doubling up to 256 entries, so that a small heap costs
// little, and by pages of 256 entries after that, so that no allocation is
// larger than 256 entries (4096 bytes of 16-byte entries) and growing
// copies nothing. Pushing and removing allocate nothing once the storage
// exists.
//
// It imports the standard library only, so every layer may use it.
package indexheap

import "unsafe"

// Key is the type of a heap key. Keys are compared in serial number order
// (RFC 1982): a precedes b when a-b, read as a signed integer of the key's
// width, is negative. Keys in use must lie within half the key space of
// each other for the order to be total, as TSNs within a window do; plain
// non-negative counts below 2^31 (or 2^63) compare as usual.
type Key interface {
	~uint32 | ~uint64
}

// Entry is one heap entry: the value Val with its key. Among entries with
// equal keys the one with the smaller Tie (serial order, as uint32) comes
// first; a user that needs no such order leaves Tie at zero, and then
// equal keys come in whatever order the heap's moves leave them.
type Entry[K Key, V any] struct {
	Key K
	Tie uint32
	Val V
}

// Before reports whether a comes before b in the heap's order.
func (a *Entry[K, V]) Before(b *Entry[K, V]) bool {
	if a.Key != b.Key {
		// The size is a constant in each instantiation: one
		// subtraction and a sign test.
		if unsafe.Sizeof(a.Key) == 4 {
			return int32(uint32(a.Key-b.Key)) < 0
		}
		return int64(uint64(a.Key-b.Key)) < 0
	}
	return int32(a.Tie-b.Tie) < 0
}

// Indexer records where the heap keeps each value: SetIndex(v, i) says
// that v's entry is now at index i (0 is the minimum), SetIndex(v, -1) that
// it left the heap. The heap calls it on every move, so it should be a
// store and no more.
type Indexer[V any] interface {
	SetIndex(v V, i int)
}

// NoIndex is the Indexer of a heap whose entries are never fixed or
// removed other than at the minimum: it records nothing.
type NoIndex[V any] struct{}

// SetIndex does nothing.
func (NoIndex[V]) SetIndex(V, int) {}

// pageLen is the number of entries in a page of a large heap: 4096 bytes
// of 16-byte entries.
const (
	pageShift = 8
	pageLen   = 1 << pageShift
)

// Heap is an indexed min-heap of Entry values. The zero Heap is an empty
// binary heap with the zero Indexer; Init chooses another arity or an
// Indexer with state. A Heap must not be copied once used.
type Heap[K Key, V any, X Indexer[V]] struct {
	// Entry i is at slot i+skew: in small while the slots fit in one
	// page (small doubles from four slots), in pages after that (small
	// is then nil). Array pages let the hot paths index without a
	// bounds check.
	small []Entry[K, V]
	pages []*[pageLen]Entry[K, V]
	n     int
	x     X
	// skew is 3 in a 4-ary heap, so that the four children of a node
	// (nodes 4i+1 to 4i+4, slots 4i+4 to 4i+7) share an aligned group of
	// four slots and never straddle a page; 0 in a binary heap.
	skew int
	quad bool // 4-ary
}

// Init empties h, drops its storage and sets its arity (2 or 4) and its
// Indexer. Four children per node halve the depth of a binary heap, at
// the cost of more comparisons per level: it pays off when moves are
// dear or the heap is large.
func (h *Heap[K, V, X]) Init(arity int, x X) {
	if arity != 2 && arity != 4 {
		panic("indexheap: arity must be 2 or 4")
	}
	*h = Heap[K, V, X]{x: x, quad: arity == 4}
	if h.quad {
		h.skew = 3
	}
}

// Len returns the number of entries.
func (h *Heap[K, V, X]) Len() int { return h.n }

// Min returns the first entry in the heap's order; the heap must not be
// empty. The entry must not be changed other than through Fix.
func (h *Heap[K, V, X]) Min() *Entry[K, V] { return h.at(0) }

// At returns the entry at index i, which must be below Len: the one whose
// value was last given index i. The entry must not be changed other than
// through Fix.
func (h *Heap[K, V, X]) At(i int) *Entry[K, V] {
	if uint(i) >= uint(h.n) {
		panic("indexheap: index out of range")
	}
	return h.at(i)
}

// Push adds e.
func (h *Heap[K, V, X]) Push(e Entry[K, V]) {
	i := h.n
	h.reserve(i)
	h.n++
	h.up(i, e)
}

// Fix replaces the entry at index i with e (a new key, tie or value) and
// moves it to its place.
func (h *Heap[K, V, X]) Fix(i int, e Entry[K, V]) {
	if uint(i) >= uint(h.n) {
		panic("indexheap: index out of range")
	}
	h.sift(i, e)
}

// Remove takes out the entry at index i and returns it.
func (h *Heap[K, V, X]) Remove(i int) Entry[K, V] {
	if uint(i) >= uint(h.n) {
		panic("indexheap: index out of range")
	}
	e := *h.at(i)
	h.x.SetIndex(e.Val, -1)
	h.n--
	last := h.at(h.n)
	if i != h.n {
		h.sift(i, *last)
	}
	*last = Entry[K, V]{}
	return e
}

// Clear takes out every entry, telling the Indexer of each, and keeps the
// storage.
func (h *Heap[K, V, X]) Clear() {
	for i := range h.n {
		e := h.at(i)
		h.x.SetIndex(e.Val, -1)
		*e = Entry[K, V]{}
	}
	h.n = 0
}

// Filter keeps the entries for which keep returns true, takes out the
// others (telling the Indexer) and restores the heap's order: O(n).
func (h *Heap[K, V, X]) Filter(keep func(*Entry[K, V]) bool) {
	n := 0
	for i := range h.n {
		e := h.at(i)
		if !keep(e) {
			h.x.SetIndex(e.Val, -1)
			continue
		}
		if n != i {
			*h.at(n) = *e
		}
		n++
	}
	for i := n; i < h.n; i++ {
		*h.at(i) = Entry[K, V]{}
	}
	h.n = n
	for i := range n {
		h.x.SetIndex(h.at(i).Val, i)
	}
	if n < 2 {
		return
	}
	for i := h.parent(n - 1); i >= 0; i-- {
		h.down(i, *h.at(i))
	}
}

// Shrink gives back the pages that the entries do not use (all of the
// storage when the heap is empty).
func (h *Heap[K, V, X]) Shrink() {
	if h.n == 0 {
		h.small, h.pages = nil, nil
		return
	}
	keep := (h.n-1+h.skew)>>pageShift + 1
	clear(h.pages[min(keep, len(h.pages)):])
	h.pages = h.pages[:min(keep, len(h.pages))]
}

// Bytes returns the memory the heap's storage holds.
func (h *Heap[K, V, X]) Bytes() int {
	var e Entry[K, V]
	size := int(unsafe.Sizeof(e))
	return cap(h.small)*size + len(h.pages)*pageLen*size + cap(h.pages)*int(unsafe.Sizeof((*[pageLen]Entry[K, V])(nil)))
}

// at returns entry i, whose slot must exist.
func (h *Heap[K, V, X]) at(i int) *Entry[K, V] {
	i += h.skew
	if h.pages == nil {
		return &h.small[i]
	}
	return &h.pages[i>>pageShift][i&(pageLen-1)]
}

// kids returns the four entries from c, the first child of a node in a
// 4-ary heap; all four slots must exist.
func (h *Heap[K, V, X]) kids(c int) *[4]Entry[K, V] {
	c += h.skew
	if h.pages == nil {
		return (*[4]Entry[K, V])(h.small[c:])
	}
	return (*[4]Entry[K, V])(h.pages[c>>pageShift][c&(pageLen-1):])
}

// parent returns the index of entry i's parent (i > 0).
func (h *Heap[K, V, X]) parent(i int) int {
	if h.quad {
		return (i - 1) >> 2
	}
	return (i - 1) >> 1
}

// reserve makes the slot of entry i exist.
func (h *Heap[K, V, X]) reserve(i int) {
	s := i + h.skew
	if h.pages != nil {
		for s>>pageShift >= len(h.pages) {
			h.pages = append(h.pages, new([pageLen]Entry[K, V]))
		}
		return
	}
	if s < len(h.small) {
		return
	}
	if s >= pageLen {
		// small is a whole page: it becomes the first.
		h.pages = append(h.pages, (*[pageLen]Entry[K, V])(h.small))
		h.small = nil
		h.reserve(i)
		return
	}
	size := max(4, 2*len(h.small))
	for size <= s {
		size *= 2
	}
	small := make([]Entry[K, V], size)
	copy(small, h.small)
	h.small = small
}

// sift stores e, which replaces the entry at i, at its place: above i if
// it comes before i's parent, else at i or below.
func (h *Heap[K, V, X]) sift(i int, e Entry[K, V]) {
	if i > 0 && e.Before(h.at(h.parent(i))) {
		h.up(i, e)
	} else {
		h.down(i, e)
	}
}

// up stores e, which belongs at index i or above, moving parents down.
func (h *Heap[K, V, X]) up(i int, e Entry[K, V]) {
	hole := h.at(i)
	for i > 0 {
		p := h.parent(i)
		pe := h.at(p)
		if !e.Before(pe) {
			break
		}
		*hole = *pe
		h.x.SetIndex(pe.Val, i)
		hole, i = pe, p
	}
	*hole = e
	h.x.SetIndex(e.Val, i)
}

// down stores e, which belongs at index i or below, moving children up.
// The hole moves down by a pointer, so that each level costs one store of
// an entry and one SetIndex.
func (h *Heap[K, V, X]) down(i int, e Entry[K, V]) {
	n := h.n
	hole := h.at(i)
	if !h.quad {
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			best := h.at(c)
			if c+1 < n {
				if r := h.at(c + 1); r.Before(best) {
					c, best = c+1, r
				}
			}
			if !best.Before(&e) {
				break
			}
			*hole = *best
			h.x.SetIndex(best.Val, i)
			hole, i = best, c
		}
		*hole = e
		h.x.SetIndex(e.Val, i)
		return
	}
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		var best *Entry[K, V]
		if c+4 <= n {
			// All four children, in one group of slots.
			kids := h.kids(c)
			k := 0
			if kids[1].Before(&kids[0]) {
				k = 1
			}
			m := 2
			if kids[3].Before(&kids[2]) {
				m = 3
			}
			if kids[m].Before(&kids[k]) {
				k = m
			}
			c += k
			best = &kids[k]
		} else {
			best = h.at(c)
			for j := c + 1; j < n; j++ {
				if x := h.at(j); x.Before(best) {
					c, best = j, x
				}
			}
		}
		if !best.Before(&e) {
			break
		}
		*hole = *best
		h.x.SetIndex(best.Val, i)
		hole, i = best, c
	}
	*hole = e
	h.x.SetIndex(e.Val, i)
}
