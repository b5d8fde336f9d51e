package interleave

import (
	"slices"
	"unsafe"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// delivery is the delivery queue both reassemblers embed: the fragments
// ready for the reader (complete messages, and the parts of messages in
// partial delivery), reachable two ways at once:
//
//   - in arrival order across streams, on one doubly linked list
//     (Frag.gprev, Frag.gnext) that Peek and Pop follow;
//   - per stream, as a FIFO in the stream's InSide (linked by Frag.next)
//     that PeekStream and PopStream follow; taking a stream's head also
//     unlinks it from the cross-stream list in O(1).
//
// Both lists are intrusive, so queueing and taking a fragment allocates
// nothing. A stream's head fragment may be partly read (Frag.Off): whoever
// reads next continues from there. Fragments of different messages of one
// stream alternate only with I-DATA, when an ordered and an unordered
// message of the stream are both in partial delivery.
type delivery struct {
	streams    InStreams
	keys       candidateKeyer // the variant: a stream's partial delivery candidate
	cands      candidates     // the streams partial delivery can start on
	drops      candidates     // the streams holding fragments DropHighest may drop
	head, tail *Frag
	n          Counts    // held, charged and ready bytes
	fresh      []uint16  // streams whose queue became non-empty since AppendReadable
	dirty      []*InSide // streams touched since the heaps were brought up to date (see touch)
	numbered   []*InSide // streams whose In record was used since ResetAll (see in)
	// renumber holds the streams whose side object was released while
	// listed in numbered: their In records still need a ResetAll (see
	// DataReassembler.release). numberedCap and renumberCap are the
	// lengths at which the two lists are compacted.
	renumber                 []uint16
	numberedCap, renumberCap int
	// lastSide is the side object the last fragment added went to, set
	// by the reassembler (see lastSideOf): the fragments of a packet, the
	// packets of a burst and the reads of a message mostly go to one
	// stream.
	lastSide *InSide
}

// lastSideOf returns lastSide when it is sid's live side object, else
// nil: named, which the object loses when it is released, and sid's. The
// pool keeps released objects in place, so the pointer stays valid
// memory; a miss costs a few comparisons.
func (q *delivery) lastSideOf(sid uint16) *InSide {
	if s := q.lastSide; s != nil && s.named && s.sid == sid {
		return s
	}
	return nil
}

// SideCost is what the side object of an inbound stream (InSide) costs in
// memory while its stream holds fragments: its slot in the stream table's
// page-chunked pool. Counts.Charged includes it, as Linux's truesize
// includes an skb's overhead, so a peer spreading tiny fragments over
// many streams is bounded by what it makes the receiver allocate, not only
// by the fragments.
const SideCost = int(unsafe.Sizeof(InSide{})) + 8

// minListCap is the least length at which numbered and renumber are
// compacted.
const minListCap = 1024

// in returns the In record of s's stream, looked up once per side object.
// It is the reassemblers' only way to an In record they change, so it also
// lists s, once, among the streams whose record may have left the all-zero
// reset state since the last ResetAll, which resets those and no others.
func (q *delivery) in(s *InSide) *stream.In {
	if !s.numbered {
		q.noteNumbered(s)
	}
	return s.in
}

// noteNumbered looks up s's In record, if it was not yet, and lists s in
// q.numbered (see in).
func (q *delivery) noteNumbered(s *InSide) {
	if s.in == nil {
		s.in = q.streams.In(s.sid)
	}
	s.numbered = true
	if len(q.numbered) >= max(q.numberedCap, minListCap) {
		q.compactNumbered()
	}
	q.numbered = append(q.numbered, s)
}

// compactNumbered drops from q.numbered the side objects released after
// they were listed and the ones listed twice (a slot released and reused
// by another stream). Each entry was paid for by the
// fragment that listed it; compacting at twice the length left keeps the
// cost O(1) per entry.
func (q *delivery) compactNumbered() {
	kept := q.numbered[:0]
	for _, s := range q.numbered {
		if s.numbered {
			s.numbered = false // marks s kept once
			kept = append(kept, s)
		}
	}
	for _, s := range kept {
		s.numbered = true
	}
	clear(q.numbered[len(kept):])
	q.numbered = kept
	q.numberedCap = 2 * len(kept)
}

// noteRenumber lists sid, whose side object is being released while
// numbered, for the next ResetAll.
func (q *delivery) noteRenumber(sid uint16) {
	if len(q.renumber) >= max(q.renumberCap, minListCap) {
		slices.Sort(q.renumber)
		q.renumber = slices.Compact(q.renumber)
		q.renumberCap = 2 * len(q.renumber)
	}
	q.renumber = append(q.renumber, sid)
}

// push queues f (the next deliverable fragment of stream s, which holds
// s.sid) as part of the message whose first fragment has TSN first.
func (q *delivery) push(s *InSide, f *Frag, first chunk.TSN) {
	f.FirstTSN = first
	f.gnext, f.gprev = nil, q.tail
	if q.tail == nil {
		q.head = f
	} else {
		q.tail.gnext = f
	}
	q.tail = f
	if s.ready.head == nil && !s.fresh {
		s.fresh = true
		q.fresh = append(q.fresh, s.sid)
	}
	if q.cands.in(s) {
		q.cands.remove(s) // a stream with data queued is not a candidate
	}
	s.ready.push(f)
	q.n.Ready += len(f.Data)
}

// pushRun is push for each fragment of first..last in turn, a run linked
// by next (a whole message off a reassembly list, whose first fragment
// has TSN first.TSN), in one pass; it returns how many fragments the run
// holds.
func (q *delivery) pushRun(s *InSide, first, last *Frag) int {
	if s.ready.head == nil && !s.fresh {
		s.fresh = true
		q.fresh = append(q.fresh, s.sid)
	}
	if q.cands.in(s) {
		q.cands.remove(s)
	}
	if s.ready.tail == nil {
		s.ready.head = first
	} else {
		s.ready.tail.next = first
	}
	s.ready.tail = last
	msg, prev := first.TSN, q.tail
	n, bytes := 0, 0
	for f := first; ; f = f.next {
		f.FirstTSN, f.gprev = msg, prev
		if prev == nil {
			q.head = f
		} else {
			prev.gnext = f
		}
		prev = f
		n++
		bytes += len(f.Data)
		if f == last {
			break
		}
	}
	last.next, last.gnext = nil, nil
	q.tail = last
	s.ready.n += n
	q.n.Ready += bytes
	return n
}

// Peek returns the next fragment to deliver in arrival order across
// streams, or nil.
func (q *delivery) Peek() *Frag { return q.head }

// Pop removes and returns the next fragment to deliver in arrival order,
// or nil. It is the head of its stream's queue too.
func (q *delivery) Pop() *Frag {
	if q.head == nil {
		return nil
	}
	return q.PopStream(q.head.SID)
}

// peekSide is PeekInSide, through lastSide when sid is the stream the
// last fragment added went to (a reader following a bulk sender).
func (q *delivery) peekSide(sid uint16) *InSide {
	if s := q.lastSideOf(sid); s != nil {
		return s
	}
	return q.streams.PeekInSide(sid)
}

// PeekStream returns the next fragment of stream sid to deliver, or nil.
// It creates nothing for a stream never used.
func (q *delivery) PeekStream(sid uint16) *Frag {
	if s := q.peekSide(sid); s != nil {
		return s.ready.head
	}
	return nil
}

// PopStream removes and returns the next fragment of stream sid to
// deliver, or nil. A stream read empty gives its side object back when the
// variant's release allows (see DataReassembler.release).
func (q *delivery) PopStream(sid uint16) *Frag {
	f, _ := q.popStream(sid)
	return f
}

// PopStreamNext is PopStream that also returns the fragment it leaves at
// the head of stream sid's delivery queue (what PeekStream would return
// next), or nil: a reader that continues a message looks the stream up
// once.
func (q *delivery) PopStreamNext(sid uint16) (f, next *Frag) { return q.popStream(sid) }

// popStream is PopStreamNext. The side object may be released by the time
// it returns, so it returns the next fragment, not the side object.
func (q *delivery) popStream(sid uint16) (f, next *Frag) {
	s := q.peekSide(sid)
	if s == nil {
		return nil, nil
	}
	f = s.ready.pop()
	if f == nil {
		return nil, nil
	}
	if f.gprev == nil {
		q.head = f.gnext
	} else {
		f.gprev.gnext = f.gnext
	}
	if f.gnext == nil {
		q.tail = f.gprev
	} else {
		f.gnext.gprev = f.gprev
	}
	f.gprev, f.gnext = nil, nil
	q.n.Ready -= len(f.Data)
	q.unhold(s, f)
	if next = s.ready.head; next == nil {
		q.touch(s) // its queue read empty: it may be a candidate now
		if s.held == 0 && q.streams.InSideCount() > keepIdleSides {
			q.keys.release(s) // and it may need no side object
		}
	}
	return f, next
}

// candidateKeyer is a reassembler variant's rule for its two heaps:
// whether partial delivery can start on stream s, and the TSN of the first
// fragment of the message it would start with; whether s holds fragments
// DropHighest may drop, and the highest TSN among them.
type candidateKeyer interface {
	candidateKey(s *InSide) (tsn chunk.TSN, ok bool)
	dropKey(s *InSide) (tsn chunk.TSN, ok bool)
	// release may give back the side object of s, out of both heaps
	// now, if s holds nothing (see DataReassembler.release).
	release(s *InSide)
}

// newDelivery returns the delivery queue of a reassembler variant.
func newDelivery(streams InStreams, keys candidateKeyer) delivery {
	return delivery{streams: streams, keys: keys, drops: newCandidates(1, true)}
}

// touch notes that something that decides s's entries in the heaps
// changed. The entries are brought up to date (rekey) lazily, when the
// heaps are next used (sync): a stream changes with every fragment but the
// heaps are used only when partial delivery or reneging is due, so a
// fragment costs a note rather than two heap updates. A stream that holds
// nothing and is in neither heap needs no note.
func (q *delivery) touch(s *InSide) {
	if s.ordered.head == nil && s.unordered.head == nil && s.hat[0] == 0 && s.hat[1] == 0 {
		s.maxOK = false
		return
	}
	if !s.dirty {
		s.dirty = true
		q.dirty = append(q.dirty, s)
	}
}

// releasable reports whether the side object of s may go back to the
// stream table as far as the delivery queue can tell: s holds nothing, is
// in no heap and not in the dirty list (sync calls release again for a
// stream listed there), and more than keepIdleSides side objects are in
// use. Each variant adds its own conditions (see DataReassembler.release).
func (q *delivery) releasable(s *InSide) bool {
	return s.held == 0 && !s.dirty && s.hat[0] == 0 && s.hat[1] == 0 && q.streams.InSideCount() > keepIdleSides
}

// free gives the side object of s back to the stream table: out of the
// variant's forward candidates fwd, its stream listed by number for
// ResetAll if it was listed by side object.
func (q *delivery) free(s *InSide, fwd *candidates) {
	if fwd.in(s) {
		fwd.remove(s)
	}
	if s.numbered {
		q.noteRenumber(s.sid)
	}
	q.streams.FreeInSide(s.sid)
}

// maxDirty is the length of the dirty list at which a reassembler's Add
// brings the heaps up to date first (syncIfLong). A stream read empty while
// listed keeps its side object until sync releases it, so without the
// bound a peer that sends a message of two fragments on each of many
// streams would leave a side object per stream behind, uncharged, until
// partial delivery or reneging next looked at the heaps. One rekey per
// distinct stream per maxDirty touched keeps the lazy updates' gain.
const maxDirty = minListCap

// syncIfLong is sync once the dirty list reached maxDirty. It may release
// side objects, so it is called only where no pointer to one is held: on
// entry to Add.
func (q *delivery) syncIfLong() {
	if len(q.dirty) >= maxDirty {
		q.sync()
	}
}

// sync brings the heap entries of the streams touched since its last call
// up to date. Whatever reads the heaps calls it first.
func (q *delivery) sync() {
	for i, s := range q.dirty {
		s.dirty = false
		q.rekey(s)
		q.dirty[i] = nil
		if s.held == 0 {
			q.keys.release(s)
		}
	}
	q.dirty = q.dirty[:0]
}

// rekey updates s's entries in the heaps from its state now.
func (q *delivery) rekey(s *InSide) {
	tsn, ok := q.keys.candidateKey(s)
	q.cands.set(s, tsn, ok)
	tsn, ok = q.keys.dropKey(s)
	q.drops.set(s, tsn, ok)
}

// Recheck updates stream sid's partial delivery candidacy after its In
// record changed outside the reassembler (a stream reset, RFC 6525).
func (q *delivery) Recheck(sid uint16) {
	if s := q.streams.PeekInSide(sid); s != nil {
		s.sid = sid
		q.touch(s)
	}
}

// ResetAll resets every inbound stream's In record (an Outgoing SSN Reset
// Request naming no stream, or an SSN/TSN Reset, RFC 6525 sections 5.2.2
// and 5.2.4) and brings the heaps up to date, as resetting each record and
// calling RecheckAll would. It looks only at the streams whose In record
// was used since the last ResetAll (see in), every other record being zero
// already, so a flood of resets costs O(1) each.
func (q *delivery) ResetAll() {
	for i, s := range q.numbered {
		q.numbered[i] = nil
		if !s.numbered {
			continue // released since (a zeroed side object), or listed twice
		}
		s.numbered = false
		s.in.ResetSequence()
		q.touch(s)
	}
	q.numbered = q.numbered[:0]
	for _, sid := range q.renumber {
		q.streams.In(sid).ResetSequence()
		q.Recheck(sid)
	}
	q.renumber = q.renumber[:0]
}

// RecheckAll rebuilds the partial delivery candidates by looking at every
// stream in use. Tests use it as the plain rule the kept heaps stand for,
// and as the eager form of ResetAll.
func (q *delivery) RecheckAll() {
	q.cands.clear()
	q.drops.clear()
	for sid, s := range q.streams.InSides() {
		s.sid = sid
		q.rekey(s)
	}
}

// Held returns the user bytes held: queued for delivery or waiting for
// reassembly or ordering.
func (q *delivery) Held() int { return q.n.Held }

// Charged returns what the held fragments cost in memory: the sum of their
// Cost (see Frag.Cost) and SideCost for each stream holding any.
func (q *delivery) Charged() int { return q.n.Charged }

// hold counts f, taken in on stream s.
func (q *delivery) hold(s *InSide, f *Frag) {
	q.n.Held += len(f.Data)
	q.n.Charged += f.Cost()
	if s.held == 0 {
		q.n.Charged += SideCost
	}
	s.held++
}

// unhold uncounts f, leaving stream s.
func (q *delivery) unhold(s *InSide, f *Frag) {
	q.n.Held -= len(f.Data)
	q.n.Charged -= f.Cost()
	if s.held--; s.held == 0 {
		q.n.Charged -= SideCost
	}
}

// Ready returns the user bytes queued for delivery (on every stream).
func (q *delivery) Ready() int { return q.n.Ready }

// Counts returns the reassembler's byte counts, kept up to date as it
// changes (see Counts).
func (q *delivery) Counts() *Counts { return &q.n }

// AppendReadable appends to dst the streams whose delivery queue became
// non-empty since the last call, each once, and returns the extended
// slice. A reader waiting on one stream needs waking only when its stream
// shows up here.
func (q *delivery) AppendReadable(dst []uint16) []uint16 {
	for _, sid := range q.fresh {
		if s := q.streams.PeekInSide(sid); s != nil {
			s.fresh = false
		}
	}
	dst = append(dst, q.fresh...)
	q.fresh = q.fresh[:0]
	return dst
}
