package interleave

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// Frag is one received fragment held for reassembly and delivery. Frags
// come from a Pool and own their Data buffer, which is kept across reuse.
type Frag struct {
	// Data is the fragment's user data: a copy of the chunk's payload, or
	// the payload in the receive buffer it arrived in (Pool.Lend).
	Data []byte
	TSN  chunk.TSN
	// PPID is the message's payload protocol identifier: DATA carries it
	// on every fragment; with I-DATA the first fragment carries it and the
	// reassembler copies it to the others when they are queued for
	// delivery.
	PPID uint32
	// MID and FSN serve I-DATA.
	MID stream.MID
	FSN stream.FSN
	// FirstTSN is the TSN of the first fragment of the fragment's message,
	// set when it is queued for delivery: with SID it names the message.
	// While the fragment waits in a DATA reassembly list, it names the
	// other end of the fragment's run (see fragList). While it is in an
	// I-DATA list's tree, FirstTSN, Off, SSN, tbits and tlo hold its
	// subtree's summaries instead (see idata_index.go), cleared when it
	// leaves.
	FirstTSN chunk.TSN
	// Off is how many bytes of Data the reader has taken already (the
	// head of a stream's delivery queue can be partly read).
	Off int32
	// SSN is the stream sequence number (DATA).
	SSN stream.SSN
	SID uint16
	// Flags holds the chunk's E, B and U bits (chunk.FlagEnd,
	// FlagBeginning, chunk.FlagUnordered), or FlagAborted for a marker.
	// While the fragment waits in an I-DATA list, the reassembler also
	// keeps a bit of its own there (flagJudged), cleared when it leaves.
	Flags uint8
	// tbits and tlo serve the tree of an I-DATA list while the fragment
	// is in it (see idata_index.go): tbits says which subtree summaries
	// are there, tlo is the high half of the lowest TSN not looked at by
	// an I-FORWARD-TSN (SSN the low half). They sit in padding.
	tbits uint8
	tlo   uint16
	// next links the fragment in a reassembly list, a stream's delivery
	// queue or the pool's free list; gprev and gnext in the delivery
	// queue's cross-stream order, and while the fragment waits in a DATA
	// reassembly list they are its children in the list's tree.
	next, gprev, gnext *Frag
}

// FragOverhead is what a held fragment costs besides its buffer: its
// record, rounded up to the allocator's 16-byte size classes.
const FragOverhead = int(unsafe.Sizeof(Frag{})+15) &^ 15

// bufClasses are the buffer sizes fragments hold data in: a fragment of n
// bytes gets the smallest class of at least n (class 0: no buffer), so its
// cost is known from n alone and a reused buffer never holds a tiny
// fragment in a large buffer. Classes follow common chunk sizes: tiny,
// small, a 1500-byte MTU's chunk, jumbo frames, the largest chunk.
var bufClasses = [...]int{0, 16, 64, 256, 512, 1024, 1536, 2048, 4096, 9216, 16384, 32768, 65536}

const nClasses = len(bufClasses)

// bufClass returns the index of the smallest buffer class that holds n
// bytes, or -1 when none does (n over 65536, which no chunk carries). It
// runs for every fragment, so it is a table look-up or a bit length.
func bufClass(n int) int {
	if uint(n) <= smallClassMax {
		return int(smallClass[(n+15)>>4])
	}
	switch k := bits.Len(uint(n - 1)); {
	case k > 16: // over 65536
		return -1
	case k == 12: // 2049..4096
		return 8
	case k == 13 || n <= 9216: // 4097..9216
		return 9
	default: // 9217..16384, ..32768, ..65536
		return k - 4
	}
}

// smallClassMax is the largest fragment bufClass finds in smallClass.
const smallClassMax = 2048

// smallClass[i] is the class of fragments of 16(i-1)+1 to 16i bytes (i = 0:
// empty), up to smallClassMax.
var smallClass = func() (t [smallClassMax/16 + 1]uint8) {
	c := 0
	for i := range t {
		for bufClasses[c] < i*16 {
			c++
		}
		t[i] = uint8(c)
	}
	return t
}()

// bufCap returns the capacity of the buffer a fragment of n bytes gets.
func bufCap(n int) int {
	if c := bufClass(n); c >= 0 {
		return bufClasses[c]
	}
	return n
}

// Cost returns what f costs in memory while held: its record and its whole
// buffer. A receiver charges it against its memory limit, as Linux charges
// an skb's truesize, so tiny fragments cannot hold many times the window in
// memory. It equals FragCost(len(f.Data)) for a copy; a lent fragment
// costs its record, its buffer being charged by its pool (Pool.LentCost).
func (f *Frag) Cost() int {
	if c := cap(f.Data); !lentCap(c) {
		return FragOverhead + c
	}
	return FragOverhead
}

// FragCost returns what a fragment of n user bytes costs held (Frag.Cost).
func FragCost(n int) int { return FragOverhead + bufCap(n) }

// Pool is a free list of fragments, one per buffer class; its zero value
// is ready to use. A fragment keeps its buffer while free, so a steady flow
// of same-sized fragments allocates nothing. Trim hands free fragments to a
// process-wide sync.Pool per class that every Pool draws from before it
// allocates, so an idle association gives back what its traffic needed.
type Pool struct {
	free  [nClasses]*Frag
	count int32
	cost  int32 // what the free fragments cost (their Cost), at most maxFreeCost and one more
	// id names the pool in the receive buffers it lends from (0 until it
	// first lends); lentBufs counts those buffers (see Lend).
	id       uint32
	lentBufs int32
	// Max bounds the free fragments kept (default 4096).
	Max int
}

// shared holds the fragments Pools trimmed off, by buffer class.
var shared [nClasses]sync.Pool // of *Frag

// Get returns a fragment holding a copy of payload, its other fields zero.
func (p *Pool) Get(payload []byte) *Frag {
	c := bufClass(len(payload))
	if c < 0 {
		return &Frag{Data: append([]byte(nil), payload...)}
	}
	f := p.free[c]
	if f != nil {
		p.free[c] = f.next
		p.count--
		p.cost -= int32(FragOverhead + bufClasses[c])
		buf := f.Data[:0]
		*f = Frag{Data: buf}
	} else if g, ok := shared[c].Get().(*Frag); ok {
		f = g
	} else {
		f = &Frag{}
		if n := bufClasses[c]; n > 0 {
			f.Data = make([]byte, 0, n)
		}
	}
	f.Data = append(f.Data, payload...)
	return f
}

// Free returns the number of free fragments the pool holds.
func (p *Pool) Free() int { return int(p.count) }

// FreeCost returns what the free fragments the pool holds cost in memory
// (the sum of their Cost).
func (p *Pool) FreeCost() int { return int(p.cost) }

// Trim keeps free fragments costing at most keep bytes (their Cost) and
// hands the others, the largest first, to the process-wide pool. The
// receiver calls it when it holds no data. A budget in bytes, not
// fragments, lets a flow keep what each message needs without a round trip
// through the shared pool per message, and bounds what an idle receiver
// keeps whatever the fragment sizes.
func (p *Pool) Trim(keep int) {
	for c := nClasses - 1; c >= 0 && int(p.cost) > keep; c-- {
		for int(p.cost) > keep && p.free[c] != nil {
			f := p.free[c]
			p.free[c] = f.next
			p.count--
			p.cost -= int32(FragOverhead + bufClasses[c])
			*f = Frag{Data: f.Data[:0]}
			shared[c].Put(f)
		}
	}
}

// maxFreeCost bounds what the free fragments of a pool cost, so that its
// count fits 32 bits whatever Max is.
const maxFreeCost = 1 << 30

// Put returns a fragment to the pool; a lent fragment gives back its
// reference to its receive buffer and is kept without one. One whose
// buffer is not of a class (not from Get) is left to the garbage
// collector.
func (p *Pool) Put(f *Frag) {
	if lentCap(cap(f.Data)) {
		p.unlend(f)
	}
	limit := p.Max
	if limit == 0 {
		limit = 4096
	}
	c := bufClass(cap(f.Data))
	if int(p.count) >= limit || p.cost > maxFreeCost || c < 0 || bufClasses[c] != cap(f.Data) {
		return
	}
	f.next = p.free[c]
	p.free[c] = f
	p.count++
	p.cost += int32(FragOverhead + bufClasses[c])
}

// fragList is a singly linked list of fragments sorted by TSN (serial
// order), with a tail pointer for in-order appends.
//
// The DATA reassembler's lists (those filled by insert) can also be a
// treap keyed by TSN, rooted at root: while a fragment waits its gprev and
// gnext links (free until it is queued for delivery) are its children, and
// its priority is a hash of its TSN under a per-process random seed, so a
// peer cannot choose TSNs that unbalance it. insert, removeTail, floor and
// unlinking then cost O(log n) expected whatever order fragments come in.
//
// The tree is built only when a list needs it: fragments that come in
// order and leave from the head, the usual case, cost no tree work. The
// first insert in the middle, floor below the tail or removeTail builds it
// (O(log n) amortised over the fragments that came without it), and it is
// kept until the list empties. Lists filled by push never build one; the
// I-DATA lists build their own, keyed by MID and FSN (see idata_index.go).
type fragList struct {
	head, tail *Frag
	root       *Frag
	n          int
	tree       bool // root is a treap of the list (see fragList)
	// tails says that an I-DATA list may hold a fragment with flagTail
	// (set when one is marked, cleared when the list empties), so that a
	// list that never had one is not searched for one.
	tails bool
	// base is what an I-DATA list's keys are relative to (see
	// IDataReassembler and idata_index.go): MIDs are serial numbers, so
	// the list and its tree order them by their distance from base.
	base stream.MID
	// fbase is what the FSNs of message pdMID in an I-DATA list are
	// relative to (0 for every other message): nonzero only for a message
	// in partial delivery past FSN 2^30, whose FSNs may wrap (see
	// IDataReassembler.rekeyPD).
	fbase stream.FSN
	pdMID stream.MID
	// run is the last fragment in sequence from the first of message
	// runMID (at position runPos) that the I-DATA reassembler's last
	// completeness walk on the list reached; nil when unknown (see
	// IDataReassembler.complete).
	run    *Frag
	runMID stream.MID
	runPos stream.FSN
}

// treapSeed keys the treap priorities (see fragList).
var treapSeed = rand.Uint32()

// prio returns the treap priority of a fragment with TSN t.
func prio(t chunk.TSN) uint32 {
	x := uint32(t) ^ treapSeed
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// build makes l's tree from its list, if it has none.
func (l *fragList) build() {
	if l.tree || l.head == nil {
		return
	}
	l.tree, l.root = true, nil
	for f := l.head; f != nil; f = f.next {
		f.gprev, f.gnext = nil, nil
		l.treeInsert(f)
	}
}

// emptied drops the tree of a list that became empty.
func (l *fragList) emptied() {
	if l.head == nil {
		l.root, l.tree = nil, false
	}
}

// insert adds f in TSN order and returns the fragment now before it (nil
// at the head); it reports false (and keeps nothing) for a TSN already
// present.
func (l *fragList) insert(f *Frag) (prev *Frag, ok bool) {
	f.next, f.gprev, f.gnext = nil, nil, nil
	switch {
	case l.head == nil:
		l.head, l.tail = f, f
		l.n++
		return nil, true
	case l.tail.TSN.LT(f.TSN):
		prev = l.tail
		l.tail.next = f
		l.tail = f
	case f.TSN.LT(l.head.TSN):
		f.next = l.head
		l.head = f
	default:
		l.build()
		p := l.floor(f.TSN)
		if p == nil || p.TSN == f.TSN {
			return nil, false
		}
		prev = p
		f.next = p.next
		p.next = f
	}
	if l.tree {
		l.treeInsert(f)
	}
	l.n++
	return prev, true
}

// floor returns the fragment of l with the highest TSN at or below t, or
// nil. At or past either end of the list it needs no tree.
func (l *fragList) floor(t chunk.TSN) *Frag {
	switch {
	case l.head == nil || t.LT(l.head.TSN):
		return nil
	case !t.LT(l.tail.TSN):
		return l.tail
	case t == l.head.TSN:
		return l.head
	}
	l.build()
	var best *Frag
	for x := l.root; x != nil; {
		switch {
		case x.TSN == t:
			return x
		case x.TSN.LT(t):
			best, x = x, x.gnext
		default:
			x = x.gprev
		}
	}
	return best
}

// treeInsert links f (not in the tree, its children nil) into l's tree.
func (l *fragList) treeInsert(f *Frag) {
	pf := prio(f.TSN)
	p := &l.root
	for *p != nil && prio((*p).TSN) >= pf {
		if (*p).TSN.LT(f.TSN) {
			p = &(*p).gnext
		} else {
			p = &(*p).gprev
		}
	}
	// Split the subtree at *p around f's TSN into f's children.
	t := *p
	lp, rp := &f.gprev, &f.gnext
	for t != nil {
		if t.TSN.LT(f.TSN) {
			*lp = t
			lp = &t.gnext
			t = t.gnext
		} else {
			*rp = t
			rp = &t.gprev
			t = t.gprev
		}
	}
	*lp, *rp = nil, nil
	*p = f
}

// treeDelete unlinks f from l's tree, if l has one.
func (l *fragList) treeDelete(f *Frag) {
	if !l.tree {
		return
	}
	p := &l.root
	for *p != f {
		x := *p
		if x == nil {
			return // not in the tree
		}
		if x.TSN.LT(f.TSN) {
			p = &x.gnext
		} else {
			p = &x.gprev
		}
	}
	// Merge f's children in its place.
	a, b := f.gprev, f.gnext
	for {
		if a == nil {
			*p = b
			break
		}
		if b == nil {
			*p = a
			break
		}
		if prio(a.TSN) >= prio(b.TSN) {
			*p = a
			p = &a.gnext
			a = a.gnext
		} else {
			*p = b
			p = &b.gprev
			b = b.gprev
		}
	}
	f.gprev, f.gnext = nil, nil
}

// unlinkAfter removes f from l, prev being the fragment before it (nil at
// the head).
func (l *fragList) unlinkAfter(prev, f *Frag) {
	if prev == nil {
		l.head = f.next
	} else {
		prev.next = f.next
	}
	if l.tail == f {
		l.tail = prev
	}
	l.treeDelete(f)
	f.next = nil
	l.n--
	l.emptied()
}

// push appends f at the tail without ordering (the ready queue).
func (l *fragList) push(f *Frag) {
	f.next = nil
	if l.tail == nil {
		l.head = f
	} else {
		l.tail.next = f
	}
	l.tail = f
	l.n++
}

// pop removes the head.
func (l *fragList) pop() *Frag {
	f := l.head
	if f == nil {
		return nil
	}
	l.head = f.next
	if l.head == nil {
		l.tail = nil
	}
	if l.tree {
		l.treeDelete(f)
		l.emptied()
	}
	f.next = nil
	l.n--
	return f
}

// removeTail removes and returns the last fragment, the new tail found
// in the list's tree (built if need be).
func (l *fragList) removeTail() *Frag {
	t := l.tail
	if t == nil {
		return nil
	}
	if l.head == t {
		l.head, l.tail = nil, nil
		l.treeDelete(t)
		l.emptied()
	} else {
		l.build()
		l.treeDelete(t)
		p := l.root
		for p.gnext != nil {
			p = p.gnext
		}
		p.next = nil
		l.tail = p
	}
	l.n--
	return t
}

// Runs. The fragments of a DATA reassembly list fall into runs: maximal
// sequences with consecutive TSNs in which only the first may have the B
// bit and only the last the E bit (RFC 9260 section 6.9: a message's
// fragments have consecutive TSNs). The first and last fragment of each run
// name each other in FirstTSN (free while a fragment waits), so whether a
// message is complete, and where a new fragment's run starts, cost a
// look-up rather than a walk along the message, which a peer can make as
// long as the window with 1-byte fragments.
//
// insertRun, popRun, unlinkFirst and removeTailRun keep the runs linked; a
// whole run (a complete message) may leave through pop and unlinkAfter,
// since no other run names its fragments.

// joined reports whether b, right after a in a list, continues a's run.
func joined(a, b *Frag) bool {
	return b.TSN == a.TSN+1 && a.Flags&chunk.FlagEnd == 0 && b.Flags&chunk.FlagBeginning == 0
}

// link makes first..last one run.
func link(first, last *Frag) { first.FirstTSN, last.FirstTSN = last.TSN, first.TSN }

// runEnd returns the other end of the run that f (of l) begins or ends.
// A run of one or two fragments needs no look-up.
func (l *fragList) runEnd(f *Frag) *Frag {
	if f.FirstTSN == f.TSN {
		return f
	}
	return l.runFar(f)
}

// runFar is runEnd for a run of two fragments or more. It is kept out of
// line so that runEnd, inlined, costs a run of one fragment (a first
// fragment, most of the time) no call.
//
//go:noinline
func (l *fragList) runFar(f *Frag) *Frag {
	if n := f.next; n != nil && n.TSN == f.FirstTSN {
		return n
	}
	// A message arriving in order is the run at the front of the list,
	// and usually the whole list: its ends are the list's.
	if h := l.head; h != nil && h.TSN == f.FirstTSN {
		return h
	}
	if t := l.tail; t != nil && t.TSN == f.FirstTSN {
		return t
	}
	return l.floor(f.FirstTSN)
}

// insertRun is insert for a list that keeps its runs: it also joins f with
// the runs before and after it, and returns the first and last fragment of
// f's run besides the fragment before f.
func (l *fragList) insertRun(f *Frag) (prev, first, last *Frag, ok bool) {
	if t := l.tail; t == nil || (!l.tree && t.TSN.LT(f.TSN)) {
		// The list's first fragment, or one appended without a tree
		// (the usual case). Its tree links are not cleared: build
		// clears them when it makes a tree.
		f.next = nil
		first = f
		if t == nil {
			l.head = f
		} else {
			t.next = f
			if joined(t, f) {
				first = l.runEnd(t)
			}
		}
		l.tail = f
		l.n++
		link(first, f)
		return t, first, f, true
	}
	prev, ok = l.insert(f)
	if !ok {
		return nil, nil, nil, false
	}
	first, last = f, f
	if prev != nil && joined(prev, f) {
		first = l.runEnd(prev)
	}
	if n := f.next; n != nil && joined(f, n) {
		last = l.runEnd(n)
	}
	link(first, last)
	return prev, first, last, true
}

// completeRun reports whether the run f (of l, with the B bit) begins is a
// whole message: it ends with the E bit. It returns the run's last
// fragment.
func (l *fragList) completeRun(f *Frag) (*Frag, bool) {
	last := l.runEnd(f)
	return last, last.Flags&chunk.FlagEnd != 0
}

// popRun is pop for a list that keeps its runs.
func (l *fragList) popRun() *Frag {
	n := l.head
	if n != nil {
		n = n.next
	}
	f := l.pop()
	if f != nil {
		l.cutFirst(f, n)
	}
	return f
}

// unlinkFirst is unlinkAfter for a list that keeps its runs, for f the
// first fragment of its run.
func (l *fragList) unlinkFirst(prev, f *Frag) {
	n := f.next
	l.unlinkAfter(prev, f)
	l.cutFirst(f, n)
}

// cutFirst relinks the run whose first fragment f left l: its rest starts
// at n, f's successor then.
func (l *fragList) cutFirst(f, n *Frag) {
	if f.FirstTSN != f.TSN {
		link(n, l.floor(f.FirstTSN))
	}
}

// removeTailRun is removeTail for a list that keeps its runs.
func (l *fragList) removeTailRun() *Frag {
	t := l.removeTail()
	if t != nil && t.FirstTSN != t.TSN {
		link(l.floor(t.FirstTSN), l.tail)
	}
	return t
}
