package interleave

import (
	"iter"
	"slices"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// InSide is the reassembly state of one inbound stream: the side object of
// the stream table's inbound records (stream.Table[O, InSide]). The next
// SSN (or MID) to deliver lives in the stream's In record.
type InSide struct {
	ordered   fragList // ordered fragments waiting, by TSN
	unordered fragList // unordered fragments waiting, by TSN
	ready     fragList // fragments queued for delivery (see delivery)
	// pdO and pdU are the I-DATA messages in partial delivery, ordered
	// and unordered (while the In record's PD and PDUO are set).
	pdO, pdU pdState
	// hat is the stream's position + 1 (0: out) in the reassembler's
	// heaps (see candidates): partial delivery candidates (0), droppable
	// fragments (1) and, for DATA, fragments a FORWARD-TSN has not looked
	// at (2, see DataReassembler.ForwardTSN).
	hat [3]int32
	// fwdSeen (DATA, valid with fwdOK) is the highest New Cumulative TSN
	// ForwardTSN applied to this stream: what it holds at or below it is
	// kept for good (complete messages waiting for their turn).
	fwdSeen chunk.TSN
	fwdOK   bool
	// maxTSN (I-DATA, valid with maxOK) is at least the highest TSN held
	// in ordered and unordered: raised as fragments come, lowered when
	// DropHighest looks (see IData.DropHighest).
	maxTSN chunk.TSN
	// in is the stream's In record, looked up once (see
	// DataReassembler.in): records do not move while their stream exists.
	in *stream.In
	// held counts the fragments the stream holds (waiting or queued for
	// delivery): while it is not 0 the side object is charged (SideCost).
	held     int32
	sid      uint16
	maxOK    bool
	fresh    bool // listed in delivery.fresh
	dirty    bool // listed in delivery.dirty
	numbered bool // listed in delivery.numbered
	// named: delivery.lastSide may name this object for sid. Releasing
	// the object zeroes it, which clears named.
	named bool
}

// InStreams is the part of the association's stream table the receiving
// side uses: *stream.Table[O, InSide] for any O.
type InStreams interface {
	In(sid uint16) *stream.In
	InSide(sid uint16) *InSide
	PeekInSide(sid uint16) *InSide
	InSideHandle(sid uint16) (*InSide, stream.Handle)
	InSideOf(h stream.Handle) *InSide
	InSides() iter.Seq2[uint16, *InSide]
	InSideCount() int
	FreeInSide(sid uint16)
}

// DataReassembler is the DATA variant's reassembler (RFC 9260 sections 6.5
// and 6.9): fragments of a message carry consecutive TSNs; ordered messages
// leave a stream in SSN order, unordered ones as soon as they are complete,
// whatever the other streams hold. A message in partial delivery (one at a
// time) holds back only its own stream, so a stream's queue never
// interleaves two messages.
type DataReassembler struct {
	delivery
	pool Pool
	// fwd holds the streams with fragments above their fwdSeen, keyed by
	// (at most) the lowest TSN among them: the streams a FORWARD-TSN may
	// have to drop fragments from.
	fwd candidates

	// Partial delivery in progress: the stream and list the message comes
	// from, the TSN of its first fragment and of its next one.
	pd        *InSide
	pdList    *fragList
	pdOrdered bool
	pdFirst   chunk.TSN
	pdNext    chunk.TSN
	// pdDone holds the first TSNs of the unordered messages of pd's
	// stream that became complete during the partial delivery, held back
	// until its end (see deliver).
	pdDone []chunk.TSN
}

// NewDataReassembler returns the DATA variant's reassembler over the
// association's stream table: the next SSN of each inbound stream is its In
// record's NextSSN, and fragments wait in its InSide.
func NewDataReassembler(streams InStreams) *DataReassembler {
	d := &DataReassembler{fwd: newCandidates(2, false)}
	d.delivery = newDelivery(streams, d)
	return d
}

// Pool returns the fragment pool.
func (d *DataReassembler) Pool() *Pool { return &d.pool }

// stream returns sid's state, or nil for a stream outside the range.
func (d *DataReassembler) stream(sid uint16) *InSide {
	if s := d.lastSideOf(sid); s != nil {
		return s
	}
	s, _ := d.streams.InSideHandle(sid)
	if s != nil {
		s.sid, s.named = sid, true
		d.lastSide = s
	}
	return s
}

// keepIdleSides is how many side objects a reassembler keeps for
// streams that hold nothing: up to it they stay for the stream's next
// message; beyond it, a stream that holds nothing gives its side object
// back to the stream table (release), so a peer that spreads fragments
// over many streams leaves no more side objects than its window pays for
// (SideCost) plus these.
const keepIdleSides = 64

// release gives the side object of s back to the stream table when s holds
// nothing and more than keepIdleSides side objects are in use. Nothing
// else may point to it then: it is in no heap (a stream waiting in the
// dirty list stays until sync, which calls release again) and not in
// partial delivery. Its In record keeps the stream's sequence; if it was
// listed for ResetAll, its stream is listed again by number. A FORWARD-TSN
// state (fwdSeen) covers no held fragment and is dropped with it.
func (d *DataReassembler) release(s *InSide) {
	if d.pd != s && d.releasable(s) {
		d.free(s, &d.fwd)
	}
}

// Add takes an accepted fragment. A whole message deliverable at once is
// queued straight away with no list, tree or heap work (see addNow), the
// common case of a flow of small in-order messages.
func (d *DataReassembler) Add(f *Frag) bool {
	d.syncIfLong()
	s := d.stream(f.SID)
	if s == nil {
		d.pool.Put(f)
		return false
	}
	if d.addNow(s, f) {
		return true
	}
	ok := d.add(s, f)
	d.touch(s)
	return ok
}

// addNow queues f for delivery at once when it is a whole message
// deliverable now (unordered, or the stream's next SSN with no ordered
// fragment held) and no partial delivery stands in its way, and reports
// whether it did. Nothing the heaps key on changes, so no touch is needed.
func (d *DataReassembler) addNow(s *InSide, f *Frag) bool {
	const whole = chunk.FlagBeginning | chunk.FlagEnd
	if f.Flags&whole != whole || d.pd == s || (d.pd != nil && f.TSN == d.pdNext) {
		return false
	}
	if f.Flags&chunk.FlagUnordered == 0 {
		in := d.in(s)
		if f.SSN != in.NextSSN() || s.ordered.head != nil {
			return false
		}
		in.MID = stream.MID(f.SSN.Next())
	}
	d.hold(s, f)
	d.push(s, f, f.TSN)
	return true
}

func (d *DataReassembler) add(s *InSide, f *Frag) bool {
	if d.pd != nil && f.TSN == d.pdNext {
		if d.pd == s && f.Flags&chunk.FlagBeginning == 0 && (f.Flags&chunk.FlagUnordered == 0) == d.pdOrdered {
			d.hold(s, f)
			d.continuePartial(f)
			return true
		}
		// The TSN that would continue the message in partial delivery
		// holds another message: fragments of a message have consecutive
		// TSNs (RFC 9260 section 6.9), so the sender gave that message up
		// (PR-SCTP) and it will not complete.
		d.abortPartial()
	}
	if f.Flags&chunk.FlagUnordered == 0 && f.SSN.LT(d.in(s).NextSSN()) {
		d.pool.Put(f)
		return false
	}
	d.hold(s, f)
	list := &s.ordered
	if f.Flags&chunk.FlagUnordered != 0 {
		list = &s.unordered
	}
	prev, first, last, ok := list.insertRun(f)
	if !ok {
		d.unhold(s, f)
		d.pool.Put(f)
		return false
	}
	if !d.fwd.in(s) || f.TSN.LT(d.fwd.key(s)) {
		// A key left low by fragments gone since costs ForwardTSN one
		// look at s, paid for by their arrival.
		d.fwd.set(s, f.TSN, true)
	}
	switch {
	case d.pd == s:
		if list == &s.unordered && first.Flags&chunk.FlagBeginning != 0 && last.Flags&chunk.FlagEnd != 0 {
			d.pdDone = append(d.pdDone, first.TSN) // delivered at the partial delivery's end
		}
	case list == &s.unordered:
		d.deliverRun(s, f, prev, first, last)
	case first.Flags&chunk.FlagBeginning != 0 && last.Flags&chunk.FlagEnd != 0:
		// f completed its message (a run is one message's fragments in
		// a row): the stream's next messages may be deliverable now. A
		// fragment that completes nothing changes no message's turn.
		d.deliverOrdered(s)
	}
	return true
}

// deliverRun moves the unordered message that f (just added to
// s.unordered, after prev, in the run first..last) completes, if it does,
// to s's delivery queue, looking only at the run's ends.
func (d *DataReassembler) deliverRun(s *InSide, f, prev, first, last *Frag) {
	if first.Flags&chunk.FlagBeginning == 0 || last.Flags&chunk.FlagEnd == 0 {
		return // f's message lacks its first or its last fragments
	}
	l := &s.unordered
	if first != f {
		prev = l.floor(first.TSN - 1)
	}
	d.unlink(s, l, prev, first, last)
}

// deliverOrdered moves the deliverable ordered messages of s to its
// delivery queue, in SSN order (see deliver).
func (d *DataReassembler) deliverOrdered(s *InSide) {
	if d.pd == s {
		return
	}
	in := d.in(s)
	for {
		h := s.ordered.head
		if h == nil || h.SSN != in.NextSSN() || h.Flags&chunk.FlagBeginning == 0 {
			break
		}
		last, ok := s.ordered.completeRun(h)
		if !ok {
			break
		}
		d.move(s, &s.ordered, last)
		in.MID = stream.MID(in.NextSSN().Next())
	}
}

// deliver moves the messages a partial delivery of s held back to its
// delivery queue at its end: ordered ones in SSN order, and the unordered
// ones that became complete meanwhile (pdDone) in TSN order. It looks at no
// fragment the partial delivery did not see arrive.
func (d *DataReassembler) deliver(s *InSide) {
	if d.pd == s {
		return
	}
	d.deliverOrdered(s)
	if len(d.pdDone) == 0 {
		return
	}
	slices.SortFunc(d.pdDone, func(a, b chunk.TSN) int {
		switch {
		case a.LT(b):
			return -1
		case b.LT(a):
			return 1
		}
		return 0
	})
	l := &s.unordered
	for _, t := range d.pdDone {
		// The message may have lost fragments since (DropHighest), or
		// left (listed twice): it is looked up again.
		f := l.floor(t)
		if f == nil || f.TSN != t || f.Flags&chunk.FlagBeginning == 0 {
			continue
		}
		if last, ok := l.completeRun(f); ok {
			d.unlink(s, l, l.floor(t-1), f, last)
		}
	}
	d.pdDone = d.pdDone[:0]
}

// move moves the fragments from the head of l (a list of s) through last
// (a whole run) to s's delivery queue.
func (d *DataReassembler) move(s *InSide, l *fragList, last *Frag) {
	if !l.tree {
		// A list without its tree: the run leaves it whole.
		rest := last.next
		l.n -= d.pushRun(s, l.head, last)
		l.head = rest
		if rest == nil {
			l.tail = nil
		}
		return
	}
	first := l.head.TSN
	for {
		f := l.pop()
		d.push(s, f, first)
		if f == last {
			return
		}
	}
}

// unlink moves the run first..last (a whole run; prev precedes first, nil
// at the head) from l (a list of s) to s's delivery queue.
func (d *DataReassembler) unlink(s *InSide, l *fragList, prev, first, last *Frag) {
	msg := first.TSN
	for {
		f := first
		done := f == last
		if !done {
			first = f.next
		}
		l.unlinkAfter(prev, f)
		d.push(s, f, msg)
		if done {
			break
		}
	}
}

// Partial starts partial delivery (RFC 9260 section 6.9: a receiver out of
// buffer space "SHOULD dispatch part of its inbound message through a
// partial delivery API") of the message with the lowest TSN whose first
// fragments are in sequence, among the streams with nothing queued for
// delivery (those free window when read). One message at a time: the
// receiver's window-full exception follows that one message's consecutive
// TSNs. It reports whether it started one; O(log n) in the streams (see
// candidates).
func (d *DataReassembler) Partial() bool {
	if d.pd != nil {
		return false
	}
	d.sync()
	s := d.cands.min()
	if s == nil {
		return false
	}
	c := pdCandidate{s: s, list: d.candidate(s)}
	started := d.startPartial(&c)
	d.touch(s)
	return started
}

// pdCandidate is a message to start partial delivery with: the head of
// list of stream s.
type pdCandidate struct {
	s    *InSide
	list *fragList
}

// candidate returns the list of s whose head message partial delivery can
// start with, or nil: s's next ordered message or an unordered one at the
// head of its list, the earlier, if its first fragment is there; nothing
// when s has something queued for delivery.
func (d *DataReassembler) candidate(s *InSide) *fragList {
	if s.ready.head != nil {
		return nil
	}
	var l *fragList
	if h := s.ordered.head; h != nil && h.SSN == d.in(s).NextSSN() && h.Flags&chunk.FlagBeginning != 0 {
		l = &s.ordered
	}
	if h := s.unordered.head; h != nil && h.Flags&chunk.FlagBeginning != 0 && (l == nil || h.TSN.LT(l.head.TSN)) {
		l = &s.unordered
	}
	return l
}

// candidateKey is the candidates rule of DATA (candidateKeyer): the TSN of
// the head of s's candidate list.
func (d *DataReassembler) candidateKey(s *InSide) (chunk.TSN, bool) {
	if l := d.candidate(s); l != nil {
		return l.head.TSN, true
	}
	return 0, false
}

// startPartial starts partial delivery of c's message, if there is one.
func (d *DataReassembler) startPartial(c *pdCandidate) bool {
	best, bestList := c.s, c.list
	if best == nil {
		return false
	}
	d.pd, d.pdList, d.pdOrdered = best, bestList, bestList == &best.ordered
	d.pdFirst = bestList.head.TSN
	d.pdNext = d.pdFirst
	if d.pdOrdered {
		d.in(best).PD = true
	} else {
		d.in(best).PDUO = true
	}
	// Queue the fragments in sequence; should they reach the message's
	// end (a complete message not yet moved), the partial delivery ends
	// there as it would on that fragment's arrival.
	d.continuePartial(bestList.popRun())
	return true
}

// continuePartial queues f, the next fragment of the message in partial
// delivery, and what follows it in sequence; at the message's end it
// resumes normal delivery.
func (d *DataReassembler) continuePartial(f *Frag) {
	s := d.pd
	for {
		d.push(s, f, d.pdFirst)
		d.pdNext++
		if f.Flags&chunk.FlagEnd != 0 {
			in := d.in(s)
			if d.pdOrdered {
				in.MID = stream.MID(in.NextSSN().Next())
			}
			in.PD, in.PDUO = false, false
			d.pd, d.pdList = nil, nil
			d.deliver(s)
			return
		}
		h := d.pdList.head
		if h == nil || h.TSN != d.pdNext {
			return
		}
		f = d.pdList.popRun()
	}
}

// PartialNext returns the TSN of the partial delivery's next fragment.
func (d *DataReassembler) PartialNext() (chunk.TSN, bool) { return d.pdNext, d.pd != nil }

// InPartial reports whether a message of stream sid is in partial
// delivery.
func (d *DataReassembler) InPartial(sid uint16) bool { return d.pd != nil && d.pd.sid == sid }

// DropHighest removes the held fragment with the highest TSN above after.
// Fragments of a message in partial delivery are not dropped (some of it
// was delivered already). The stream comes from a heap (see candidates).
func (d *DataReassembler) DropHighest(after chunk.TSN) (chunk.TSN, int, bool) {
	d.sync()
	s := d.drops.min()
	if s == nil || !after.LT(d.drops.key(s)) {
		return 0, 0, false
	}
	l := d.droppable(s)
	f := l.removeTailRun()
	tsn, n := f.TSN, len(f.Data)
	d.unhold(s, f)
	d.pool.Put(f)
	d.touch(s)
	return tsn, n, true
}

// droppable returns the list of s whose tail has the highest TSN among
// those DropHighest may drop (not the list of a message in partial
// delivery), or nil.
func (d *DataReassembler) droppable(s *InSide) *fragList {
	var best *fragList
	for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
		if l.tail != nil && l != d.pdList && (best == nil || best.tail.TSN.LT(l.tail.TSN)) {
			best = l
		}
	}
	return best
}

// dropKey is the droppable rule of DATA (candidateKeyer): the TSN of the
// tail of droppable's list.
func (d *DataReassembler) dropKey(s *InSide) (chunk.TSN, bool) {
	if l := d.droppable(s); l != nil {
		return l.tail.TSN, true
	}
	return 0, false
}

// ForwardTSN applies a FORWARD-TSN whose entries were validated (streams
// in range), after the TSN map moved its cumulative TSN to newCum (RFC 3758
// section 3.6):
//
//   - a partial delivery whose next fragment is at or below newCum (or
//     whose message a stream entry skips) will not complete: its held
//     fragments go and a FlagAborted marker follows the parts delivered;
//   - each stream entry makes the stream skip past its SSN: complete
//     messages up to it are delivered, incomplete ones dropped;
//   - incomplete messages with a fragment at or below newCum are dropped
//     ("The receiver MUST remove any partially reassembled message, which
//     is still missing one or more TSNs earlier than or equal to the new
//     cumulative TSN point");
//
// then whatever became deliverable is queued.
func (d *DataReassembler) ForwardTSN(newCum chunk.TSN, skips []Skip) {
	if s := d.pd; s != nil {
		dead := !newCum.LT(d.pdNext)
		if d.pdOrdered {
			ssn := d.in(s).NextSSN()
			for _, k := range skips {
				if k.SID == s.sid && !k.SSN.LT(ssn) {
					dead = true
				}
			}
		}
		if dead {
			d.abortPartial()
		}
	}
	for _, k := range skips {
		s := d.stream(k.SID)
		if s == nil {
			continue
		}
		in := d.in(s)
		if k.SSN.LT(in.NextSSN()) {
			d.release(s) // already past it: if it holds nothing, it needs no side object
			continue
		}
		for h := s.ordered.head; h != nil && !k.SSN.LT(h.SSN); h = s.ordered.head {
			if h.Flags&chunk.FlagBeginning != 0 {
				if last, ok := s.ordered.completeRun(h); ok {
					d.move(s, &s.ordered, last)
					continue
				}
			}
			s.ordered.popRun()
			d.unhold(s, h)
			d.pool.Put(h)
		}
		in.MID = stream.MID(k.SSN + 1)
		d.deliverOrdered(s) // dropping completes no unordered message
		d.touch(s)
		d.release(s) // if it holds nothing now
	}
	// The streams holding fragments at or below newCum not yet looked at
	// come from the fwd heap. Nothing at or below newCum arrives again
	// (the TSN map has it), so each fragment is looked at by one
	// ForwardTSN.
	for {
		s := d.fwd.min()
		if s == nil || newCum.LT(d.fwd.key(s)) {
			break
		}
		d.fwd.remove(s)
		d.dropDead(s, &s.ordered, newCum)
		d.dropDead(s, &s.unordered, newCum)
		if !s.fwdOK || s.fwdSeen.LT(newCum) {
			s.fwdSeen, s.fwdOK = newCum, true
		}
		d.deliverOrdered(s)
		d.touch(s)
		d.fwdTouch(s)
	}
}

// fwdTouch puts s in the fwd heap keyed by the lowest TSN it holds above
// fwdSeen, if any.
func (d *DataReassembler) fwdTouch(s *InSide) {
	var key chunk.TSN
	ok := false
	for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
		f := l.head
		if s.fwdOK && f != nil && !s.fwdSeen.LT(f.TSN) {
			f = nil
			if p := l.floor(s.fwdSeen); p != nil {
				f = p.next
			}
		}
		if f != nil && (!ok || f.TSN.LT(key)) {
			key, ok = f.TSN, true
		}
	}
	d.fwd.set(s, key, ok)
}

// dropDead drops from l (a list of s) the fragments at or below newCum
// that are not part of a complete message. It starts after the fragments
// at or below s.fwdSeen, which an earlier ForwardTSN kept, and stops past
// newCum: what it looks at is what arrived since.
func (d *DataReassembler) dropDead(s *InSide, l *fragList, newCum chunk.TSN) {
	var prev *Frag
	f := l.head
	if s.fwdOK {
		if p := l.floor(s.fwdSeen); p != nil {
			prev, f = p, p.next
		}
	}
	for f != nil && !newCum.LT(f.TSN) {
		next := f.next
		switch {
		case prev != nil && f.TSN == prev.TSN+1 && f.Flags&chunk.FlagBeginning == 0 && prev.Flags&chunk.FlagEnd == 0:
			// The rest of a message kept (complete, or begun at or
			// below fwdSeen and kept then).
		case f.Flags&chunk.FlagBeginning != 0:
			if _, ok := l.completeRun(f); ok {
				break
			}
			fallthrough
		default:
			l.unlinkFirst(prev, f) // f begins its run: the case above did not match
			d.unhold(s, f)
			d.pool.Put(f)
			f = next
			continue
		}
		prev, f = f, next
	}
}

// AbortPartial ends the partial delivery in progress, if any, as one whose
// message will not complete (see abortPartial). The receiver calls it when
// the TSN the message needs next arrived, holding another message, before
// the partial delivery started; Add catches only later arrivals.
func (d *DataReassembler) AbortPartial() {
	if d.pd != nil {
		d.abortPartial()
	}
}

// abortPartial ends the partial delivery in progress without its end: the
// rest of its message still held goes, and a FlagAborted marker follows its
// delivered parts. An ordered message's SSN is used up.
func (d *DataReassembler) abortPartial() {
	s, l := d.pd, d.pdList
	in := d.in(s)
	for h := l.head; h != nil && h.Flags&chunk.FlagBeginning == 0; h = l.head {
		l.popRun()
		d.unhold(s, h)
		d.pool.Put(h)
		if h.Flags&chunk.FlagEnd != 0 {
			break
		}
	}
	m := d.pool.Get(nil)
	d.hold(s, m) // no user bytes, but memory
	m.SID, m.Flags = s.sid, FlagAborted
	if d.pdOrdered {
		m.SSN = in.NextSSN()
		in.MID = stream.MID(in.NextSSN().Next())
	} else {
		m.Flags |= chunk.FlagUnordered
	}
	d.push(s, m, d.pdFirst)
	in.PD, in.PDUO = false, false
	d.pd, d.pdList = nil, nil
	d.deliver(s) // what the partial delivery held back
	d.touch(s)
}
