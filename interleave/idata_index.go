package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// An I-DATA list (a stream's ordered or unordered fragments waiting for
// reassembly or ordering) is sorted by key: (MID, first fragment before
// the others, FSN). As with the DATA lists (see fragList), a treap built
// on demand makes every operation a peer's chunk can trigger O(log n)
// expected whatever order fragments come in; a list that fills in order
// and empties from the head builds none.
//
// MIDs are serial numbers, and serial comparison is not transitive over
// values 2^31 or more apart, so a tree ordered by it could be corrupted by
// a peer. Keys compare MIDs by their unsigned distance from the list's
// base, a total order:
//
//   - An ordered list's base is the stream's next expected MID when the
//     list was started or last rebased. Only MIDs less than 2^31 ahead of
//     the next expected one are taken, and the list is rebased once that
//     moved 2^30 past the base (see rebase), so distance from base orders
//     held MIDs as serial order does.
//   - An unordered list's base is 0: its messages are delivered as each
//     completes, so any total order that keeps a message's fragments
//     together in FSN order will do.
//
// FSNs compare as plain unsigned numbers: before partial delivery the
// fragments held of a message lie within the receive window of its first.
// Only a message in partial delivery can pass FSN 2^31 and wrap (RFC 8260
// section 2.1: "the FSN MAY wrap completely multiple times"); once its next
// FSN is 2^30 past the list's fbase it is rekeyed (see rekeyPD).
//
// Each tree node carries summaries of its subtree in fields free while a
// fragment waits (see Frag): the highest TSN (FirstTSN), for DropHighest;
// the lowest TSN no I-FORWARD-TSN looked at yet (SSN and tlo, with
// sumPending), for judge; whether a judged fragment is there (sumJudged);
// and the lowest TSN of a first fragment (Off, with sumBegin), for
// choosing an unordered message to start partial delivery with.

// Bits of Frag.tbits in a tree (see idata_index.go).
const (
	sumBegin   = 1 // Off holds the lowest TSN of a first fragment
	sumPending = 2 // SSN and tlo hold the lowest TSN not looked at
	sumJudged  = 4 // a fragment looked at is in the subtree
	sumTail    = 8 // a fragment with flagTail is in the subtree
)

// flagJudged is the bit of Frag.Flags that says an I-FORWARD-TSN looked at
// the fragment (see applyCum); cleared when it leaves its list.
const flagJudged = 0x40

// flagTail is the bit of Frag.Flags that says a later fragment (no B
// bit) of an I-DATA list starts a known run in sequence: the fragments at
// its position up to the position in its PPID (free while it waits; the
// message's PPID is set when it is queued) are held, in sequence, with no
// end before the last (see IDataReassembler.unlinkOne and complete);
// cleared when it leaves its list.
const flagTail = 0x10

// lowTSN returns the lowest TSN of a fragment not looked at in the subtree
// of x (which is in a tree), valid when x.tbits has sumPending.
func lowTSN(x *Frag) chunk.TSN { return chunk.TSN(uint32(x.SSN) | uint32(x.tlo)<<16) }

// smallWalk is the length up to which a look-up walks a list without a
// tree rather than building one.
const smallWalk = 8

// orderedWindow is how far ahead of a stream's next expected MID an
// ordered MID may be: a MID at least this far ahead reads, in serial
// arithmetic, as behind it (or is undefined, at exactly 2^31), and is
// refused (see IDataReassembler.Add).
const orderedWindow = 1 << 31

// rebaseDrift is how far a stream's next expected MID may move past its
// ordered list's base before the list is rebased (see rebase): with held
// MIDs less than orderedWindow ahead of it, their distance from base stays
// below rebaseDrift+orderedWindow < 2^32.
const rebaseDrift = 1 << 30

// ilt reports whether a sorts before b in I-DATA list l.
func (l *fragList) ilt(a, b *Frag) bool {
	ra, rb := a.MID-l.base, b.MID-l.base
	if ra != rb {
		return ra < rb
	}
	if ab, bb := isBegin(a), isBegin(b); ab != bb || ab {
		return ab && !bb // a message's first fragments are one key
	}
	return l.fsnKey(a) < l.fsnKey(b)
}

// fsnKey returns what f's FSN sorts by in I-DATA list l: the FSN itself,
// or, for the message in partial delivery that rekeyPD rebased, its
// distance from the list's fbase.
func (l *fragList) fsnKey(f *Frag) stream.FSN {
	if l.fbase != 0 && f.MID == l.pdMID {
		return f.FSN - l.fbase
	}
	return f.FSN
}

// sameKey reports whether a and b have the same key (a duplicate).
func sameKey(a, b *Frag) bool {
	return a.MID == b.MID && isBegin(a) == isBegin(b) && (isBegin(a) || a.FSN == b.FSN)
}

// ifind returns the later fragment (no B bit) of message mid with FSN fsn
// in l, or nil. It builds the tree.
func (l *fragList) ifind(mid stream.MID, fsn stream.FSN) *Frag {
	l.ibuild()
	rel := mid - l.base
	for x := l.root; x != nil; {
		r := x.MID - l.base
		switch {
		case r < rel || (r == rel && (isBegin(x) || l.fsnKey(x) < fsn-l.fbaseOf(mid))):
			x = x.gnext
		case r == rel && !isBegin(x) && x.FSN == fsn:
			return x
		default:
			x = x.gprev
		}
	}
	return nil
}

// fbaseOf returns what the FSNs of message mid are relative to in l (see
// fsnKey).
func (l *fragList) fbaseOf(mid stream.MID) stream.FSN {
	if mid == l.pdMID {
		return l.fbase
	}
	return 0
}

// fix recomputes x's subtree summaries from its own TSN and its
// children's.
func fix(x *Frag) {
	hi := x.TSN
	var lo, low chunk.TSN
	has := isBegin(x)
	if has {
		lo = x.TSN
	}
	pend := x.Flags&flagJudged == 0
	if pend {
		low = x.TSN
	}
	bits := uint8(0)
	if !pend {
		bits = sumJudged
	}
	if x.Flags&flagTail != 0 {
		bits |= sumTail
	}
	for _, c := range [2]*Frag{x.gprev, x.gnext} {
		if c == nil {
			continue
		}
		if hi.LT(c.FirstTSN) {
			hi = c.FirstTSN
		}
		if c.tbits&sumPending != 0 {
			if t := lowTSN(c); !pend || t.LT(low) {
				low, pend = t, true
			}
		}
		bits |= c.tbits & (sumJudged | sumTail)
		if c.tbits&sumBegin != 0 {
			if t := chunk.TSN(uint32(c.Off)); !has || t.LT(lo) {
				lo, has = t, true
			}
		}
	}
	x.FirstTSN = hi
	x.SSN, x.tlo, x.Off = 0, 0, 0
	if pend {
		x.SSN, x.tlo = stream.SSN(uint32(low)), uint16(uint32(low)>>16)
		bits |= sumPending
	}
	if has {
		x.Off = int32(uint32(lo))
		bits |= sumBegin
	}
	x.tbits = bits
}

// refix recomputes the summaries of the subtree x, every node's (after
// flagJudged changed on many fragments).
func refix(x *Frag) {
	if x == nil {
		return
	}
	refix(x.gprev)
	refix(x.gnext)
	fix(x)
}

// clearNode resets the fields a fragment used while in a tree.
func clearNode(f *Frag) {
	f.gprev, f.gnext = nil, nil
	f.FirstTSN, f.Off, f.SSN, f.tbits, f.tlo = 0, 0, 0, 0, 0
}

// ibuild makes l's tree from its list, if it has none.
func (l *fragList) ibuild() {
	if l.tree || l.head == nil {
		return
	}
	l.tree, l.root = true, nil
	for f := l.head; f != nil; f = f.next {
		clearNode(f)
		l.root = l.tins(l.root, f)
	}
}

// tins inserts f (not in the tree) into the subtree t and returns the
// subtree's new root.
func (l *fragList) tins(t, f *Frag) *Frag {
	if t == nil || prio(f.TSN) > prio(t.TSN) {
		f.gprev, f.gnext = l.split(t, f)
		fix(f)
		return f
	}
	if l.ilt(t, f) {
		t.gnext = l.tins(t.gnext, f)
	} else {
		t.gprev = l.tins(t.gprev, f)
	}
	fix(t)
	return t
}

// split splits subtree t into the keys before f and those after it.
func (l *fragList) split(t, f *Frag) (lo, hi *Frag) {
	if t == nil {
		return nil, nil
	}
	if l.ilt(t, f) {
		a, b := l.split(t.gnext, f)
		t.gnext = a
		fix(t)
		return t, b
	}
	a, b := l.split(t.gprev, f)
	t.gprev = b
	fix(t)
	return a, t
}

// merge joins subtrees a and b, every key of a before every key of b.
func merge(a, b *Frag) *Frag {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case prio(a.TSN) >= prio(b.TSN):
		a.gnext = merge(a.gnext, b)
		fix(a)
		return a
	}
	b.gprev = merge(a, b.gprev)
	fix(b)
	return b
}

// tdel removes f from subtree t and returns the subtree's new root.
func (l *fragList) tdel(t, f *Frag) *Frag {
	if t == nil {
		return nil // not in the tree (cannot happen)
	}
	if t == f {
		return merge(f.gprev, f.gnext)
	}
	if l.ilt(t, f) {
		t.gnext = l.tdel(t.gnext, f)
	} else {
		t.gprev = l.tdel(t.gprev, f)
	}
	fix(t)
	return t
}

// iinsert adds f to I-DATA list l in key order; false for a duplicate
// key (f is then not linked).
func (l *fragList) iinsert(f *Frag) bool {
	f.next = nil
	clearNode(f) // Off and SSN, which the tree borrows, may have been set by the caller
	switch {
	case l.head == nil:
		l.head, l.tail = f, f
	case l.ilt(l.tail, f):
		l.tail.next = f
		l.tail = f
	case l.ilt(f, l.head):
		f.next = l.head
		l.head = f
	default:
		l.ibuild()
		p := l.ifloor(f)
		if p == nil || sameKey(p, f) {
			return false
		}
		f.next = p.next
		p.next = f
	}
	if l.tree {
		l.root = l.tins(l.root, f)
	}
	l.n++
	return true
}

// ifloor returns the fragment of l's tree with the highest key at or
// before f's, or nil.
func (l *fragList) ifloor(f *Frag) *Frag {
	var best *Frag
	for x := l.root; x != nil; {
		if x == f || !l.ilt(f, x) {
			best, x = x, x.gnext
		} else {
			x = x.gprev
		}
	}
	return best
}

// ipred returns the fragment before f (which is in l) in l, or nil.
func (l *fragList) ipred(f *Frag) *Frag {
	if l.head == f {
		return nil
	}
	if !l.tree && l.n <= smallWalk {
		p := l.head
		for p.next != f {
			p = p.next
		}
		return p
	}
	l.ibuild()
	var best *Frag
	for x := l.root; x != nil; {
		if l.ilt(x, f) {
			best, x = x, x.gnext
		} else {
			x = x.gprev
		}
	}
	return best
}

// iunlink removes f (after prev, nil at the head) from I-DATA list l.
func (l *fragList) iunlink(prev, f *Frag) {
	if l.run != nil && l.runMID == f.MID {
		l.run = nil // complete's walk passed a fragment of f's message
	}
	if prev == nil {
		l.head = f.next
	} else {
		prev.next = f.next
	}
	if l.tail == f {
		l.tail = prev
	}
	if l.tree {
		l.root = l.tdel(l.root, f)
		clearNode(f)
		if l.head == nil {
			l.root, l.tree = nil, false
		}
	}
	if l.head == nil {
		l.tails = false
	}
	f.next = nil
	f.Flags &^= flagJudged | flagTail
	l.n--
}

// iseek returns the first fragment of l at or after the first fragment
// of message mid (the message's fragments, if any are held, start there)
// and the fragment before it (nil at the head).
func (l *fragList) iseek(mid stream.MID) (prev, g *Frag) {
	h := l.head
	if h == nil || h.MID == mid {
		return nil, h
	}
	rel := mid - l.base
	if !l.tree && l.n <= smallWalk {
		for g = h; g != nil && g.MID-l.base < rel; prev, g = g, g.next {
		}
		return prev, g
	}
	l.ibuild()
	for x := l.root; x != nil; {
		if x.MID-l.base < rel {
			prev, x = x, x.gnext
		} else {
			g, x = x, x.gprev
		}
	}
	return prev, g
}

// imax returns the fragment of l with the highest TSN, or nil.
func (l *fragList) imax() *Frag {
	if l.head == nil {
		return nil
	}
	if !l.tree && l.n <= smallWalk {
		best := l.head
		for f := best.next; f != nil; f = f.next {
			if best.TSN.LT(f.TSN) {
				best = f
			}
		}
		return best
	}
	l.ibuild()
	x, t := l.root, l.root.FirstTSN
	for x.TSN != t {
		if c := x.gprev; c != nil && c.FirstTSN == t {
			x = c
		} else {
			x = x.gnext
		}
	}
	return x
}

// lastJudged returns the fragment of message mid in I-DATA list l with
// the highest key among those an I-FORWARD-TSN looked at (flagJudged), or
// nil: O(log n) through the tree (see lastFlagged).
func (l *fragList) lastJudged(mid stream.MID) *Frag {
	if l.head == nil {
		return nil
	}
	return l.lastFlagged(mid, flagJudged, sumJudged, nil)
}

// unjudge clears flagJudged on f (in I-DATA list l) and brings the
// summaries of the tree nodes above it up to date: O(log n).
func (l *fragList) unjudge(f *Frag) { l.setFlags(f, f.Flags&^flagJudged) }

// setFlags sets the flags of f (in I-DATA list l) and brings the
// summaries of the tree nodes above it up to date: O(log n).
func (l *fragList) setFlags(f *Frag, flags uint8) {
	f.Flags = flags
	l.tails = l.tails || flags&flagTail != 0
	if l.tree {
		l.refixPath(l.root, f)
	}
}

// tailBefore returns the fragment of f's message in I-DATA list l with
// the highest key before f's among those with flagTail, or nil: O(log n)
// through the tree (see lastFlagged).
func (l *fragList) tailBefore(f *Frag) *Frag {
	if !l.tails || l.head == f {
		return nil
	}
	return l.lastFlagged(f.MID, flagTail, sumTail, f)
}

// lastFlagged returns the fragment of message mid in I-DATA list l with
// the highest key, before stop's when stop is not nil, among those with
// flag set, or nil; sum is the tree summary bit for flag. Short lists
// without a tree are walked; through the tree it costs O(log n), since a
// message's fragments are together in key order and subtrees without the
// flag are passed over.
func (l *fragList) lastFlagged(mid stream.MID, flag uint8, sum uint8, stop *Frag) *Frag {
	if !l.tree && l.n <= smallWalk {
		var last *Frag
		for g := l.head; g != nil && g != stop; g = g.next {
			if g.MID == mid && g.Flags&flag != 0 {
				last = g
			}
		}
		return last
	}
	l.ibuild()
	return l.lastFlaggedTree(l.root, mid-l.base, flag, sum, stop)
}

func (l *fragList) lastFlaggedTree(x *Frag, rel stream.MID, flag uint8, sum uint8, stop *Frag) *Frag {
	for x != nil && x.tbits&sum != 0 {
		switch r := x.MID - l.base; {
		case r < rel:
			x = x.gnext
		case r > rel || stop != nil && !l.ilt(x, stop):
			x = x.gprev
		default: // in the message (before stop)
			if g := l.lastFlaggedTree(x.gnext, rel, flag, sum, stop); g != nil {
				return g
			}
			if x.Flags&flag != 0 {
				return x
			}
			x = x.gprev
		}
	}
	return nil
}

// refixPath recomputes the summaries of the nodes on the path from x down
// to f, bottom up.
func (l *fragList) refixPath(x, f *Frag) {
	if x == nil {
		return
	}
	if x != f {
		if l.ilt(x, f) {
			l.refixPath(x.gnext, f)
		} else {
			l.refixPath(x.gprev, f)
		}
	}
	fix(x)
}

// iminBegin returns the first fragment (B bit) of l with the lowest TSN,
// or nil.
func (l *fragList) iminBegin() *Frag {
	if l.head == nil {
		return nil
	}
	if !l.tree && l.n <= smallWalk {
		var best *Frag
		for f := l.head; f != nil; f = f.next {
			if isBegin(f) && (best == nil || f.TSN.LT(best.TSN)) {
				best = f
			}
		}
		return best
	}
	l.ibuild()
	x := l.root
	if x.tbits&sumBegin == 0 {
		return nil
	}
	t := chunk.TSN(uint32(x.Off))
	for !(isBegin(x) && x.TSN == t) {
		if c := x.gprev; c != nil && c.tbits&sumBegin != 0 && chunk.TSN(uint32(c.Off)) == t {
			x = c
		} else {
			x = x.gnext
		}
	}
	return x
}

// rebase makes the stream's next expected MID mid the base of s's ordered
// list, dropping the fragments of MIDs serially before it, which can never
// be delivered (also when mid is the base already: a stream reset to the
// MID the list started from).
//
// What is left lies from c (mid's distance from the old base) to c+2^31 in
// the old order: one span when that does not wrap, whose tree stays as it
// is; otherwise the part before c moves behind the rest, in the list and,
// by a split and a merge, in the tree. O(log n) plus O(log n) per fragment
// dropped.
func (d *IDataReassembler) rebase(s *InSide, mid stream.MID) {
	l := &s.ordered
	d.dropCircular(s, l, mid+orderedWindow, mid-1)
	l.run = nil
	if l.head == nil {
		l.base = mid
		return
	}
	c := mid - l.base
	if c >= orderedWindow {
		// What is left: from c to the end of the old order, then from
		// its start to c-2^31.
		if prev, g := l.iseek(mid); prev != nil && g != nil {
			if l.tree {
				lo, hi := l.splitRel(l.root, c)
				l.root = merge(hi, lo)
			}
			l.tail.next = l.head
			l.head, l.tail = g, prev
			prev.next = nil
		}
	}
	l.base = mid
}

// splitRel splits subtree t of I-DATA list l into the keys whose MID is
// less than rel from l's base and the others.
func (l *fragList) splitRel(t *Frag, rel stream.MID) (lo, hi *Frag) {
	if t == nil {
		return nil, nil
	}
	if t.MID-l.base < rel {
		a, b := l.splitRel(t.gnext, rel)
		t.gnext = a
		fix(t)
		return t, b
	}
	a, b := l.splitRel(t.gprev, rel)
	t.gprev = b
	fix(t)
	return a, t
}

// dropCircular drops the fragments of l whose MID lies from lo to hi
// (modulo 2^32, which may pass l's base: then two spans of l's order).
func (d *IDataReassembler) dropCircular(s *InSide, l *fragList, lo, hi stream.MID) {
	if lo-l.base <= hi-l.base {
		d.dropSpan(s, l, lo, hi)
		return
	}
	d.dropSpan(s, l, l.base, hi)
	d.dropSpan(s, l, lo, l.base-1)
}

// fsnDrift is how far the next fragment of a message in partial delivery
// may get past its list's fbase before rekeyPD rebases it.
const fsnDrift = 1 << 30

// rekeyPD keys the held fragments of message mid of list l, in partial
// delivery with next position next, by their FSN's distance from next-1,
// once next has moved fsnDrift past the current base, so every FSN still
// to come (under either convention) is less than 2^31 past the base.
// Fragments serially before the new base were delivered already and are
// dropped. O(k log n) for the k fragments held, once every fsnDrift
// fragments delivered.
func (d *IDataReassembler) rekeyPD(s *InSide, l *fragList, mid stream.MID, next stream.FSN) {
	base := stream.FSN(0)
	if l.pdMID == mid {
		base = l.fbase
	}
	nb := next - 1
	if next-1-base < fsnDrift {
		return
	}
	var chain *Frag
	for {
		prev, g := l.iseek(mid)
		if g == nil || g.MID != mid {
			break
		}
		judged := g.Flags & flagJudged
		l.iunlink(prev, g)
		g.Flags |= judged // what I-FORWARD-TSNs looked at stays so
		g.next = chain
		chain = g
	}
	l.pdMID, l.fbase = mid, nb
	dropped := false
	for chain != nil {
		g := chain
		chain = g.next
		if g.FSN-nb >= 1<<31 || !l.iinsert(g) {
			g.Flags &^= flagJudged
			d.unhold(s, g)
			d.pool.Put(g)
			dropped = true
		}
	}
	if dropped {
		d.cover(s, l, mid) // the one covering the others may have gone
	}
}

// unkeyPD ends the FSN rebase of list l (see rekeyPD) when its message's
// partial delivery ends: what is left of the message (fragments past its
// end) is dropped, since its keys would not follow the list's order.
func (d *IDataReassembler) unkeyPD(s *InSide, l *fragList) {
	if l.fbase == 0 {
		return
	}
	for prev, g := l.iseek(l.pdMID); g != nil && g.MID == l.pdMID; prev, g = l.iseek(l.pdMID) {
		l.iunlink(prev, g)
		d.unhold(s, g)
		d.pool.Put(g)
	}
	l.fbase = 0
}
