package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// FSNConvention says how a receiver reads the FSN of the fragments after
// the first of an I-DATA message.
type FSNConvention uint8

const (
	// FSNAuto decides per association from what the peer sends: a
	// fragment without the B bit carrying FSN 0 means Linux's numbering;
	// a second fragment carrying FSN 1 means the RFC's once no fragment
	// can be missing between it and the first (adjacent TSNs, or the
	// cumulative TSN covers it). The first decision sticks.
	FSNAuto FSNConvention = iota
	// FSNRFC: RFC 8260 section 2.1, the first fragment is implicitly FSN
	// 0 and the second carries FSN 1.
	FSNRFC
	// FSNLinux: the second fragment carries FSN 0, the third 1, ... (what
	// Linux's sctp_chunk_assign_mid sends).
	FSNLinux
)

// FlagAborted marks a fragment with no data that a reassembler queues where
// a partial delivery ended without its message's end (RFC 6458
// SCTP_PARTIAL_DELIVERY_ABORTED): the parts of the message queued before it
// are all there will be. Being in the delivery queue, it reaches the reader
// after those parts and before any later message with the same
// identifiers.
const FlagAborted = 0x80

// MIDSkip is one entry of an I-FORWARD-TSN (RFC 8260 section 2.3.1):
// stream SID skips its ordered (or, with Unordered, unordered) messages up
// to and including MID.
type MIDSkip struct {
	SID       uint16
	Unordered bool
	MID       stream.MID
}

// pdState is one I-DATA message in partial delivery, kept in its stream's
// InSide: its PPID (I-DATA carries the PPID on the first fragment only;
// the later parts get it from here) and the TSN of its first fragment.
type pdState struct {
	ppid     uint32
	firstTSN chunk.TSN
}

// IDataReassembler is the I-DATA variant's reassembler (RFC 8260 section
// 2.2.3): fragments of a message share its MID and are ordered by FSN, not
// TSN; ordered messages leave a stream in MID order, unordered ones as soon
// as they are complete. Partial delivery is per stream and per
// ordered/unordered, so several messages can be in partial delivery at once
// and their parts interleave with other messages in the delivery queue
// (RFC 6458 fragment interleave level 2); every part carries the message's
// PPID. A complete message is always queued as one uninterrupted run.
//
// Each stream's InSide keeps its ordered and unordered fragments sorted by
// (MID, B first, FSN), MIDs by their distance from a base, with a tree
// built on demand (see idata_index.go). Frag.FSN holds the FSN as sent (0
// for the first fragment).
type IDataReassembler struct {
	delivery
	pool Pool
	// fwd holds the streams with fragments no I-FORWARD-TSN looked at
	// (without flagJudged), keyed by (at most) the lowest TSN among them:
	// the streams an I-FORWARD-TSN may find dead messages on (see
	// applyCum and cover).
	fwd candidates
	// visit lists the streams an I-FORWARD-TSN changed, delivered from
	// once it is applied (reused), and visitSIDs their numbers, for
	// releasing the side objects left empty (see deliverVisited).
	visit     []*InSide
	visitSIDs []uint16
	// scan and dead are applyCumAbove's work lists (reused).
	scan []*Frag
	dead []fwdMsg
	// fullFwd makes every I-FORWARD-TSN look at all the fragments of the
	// streams it looks at: the plain rule tests compare the incremental
	// look against.
	fullFwd bool
	// fwdMax (valid with fwdAny) is the highest New Cumulative TSN
	// applyCum applied: every fragment an I-FORWARD-TSN looked at
	// (flagJudged) has a TSN at or below it.
	fwdMax chunk.TSN
	fwdAny bool
	// examined counts the fragments looked at by I-FORWARD-TSNs (judged,
	// or walked over by applyCumTo) and by completeness walks (complete):
	// what tests measure the work of a look by.
	examined uint64

	conv      FSNConvention // FSNAuto until decided
	ambiguous bool          // a message waits for the FSN convention
	// ambigTSN is at most the TSN of every second fragment (FSN 1) found
	// ambiguous since SetCumulativeTSN last looked (see at).
	ambigTSN chunk.TSN
	cum      chunk.TSN // cumulative TSN (SetCumulativeTSN)
	cumKnown bool
	highest  chunk.TSN // highest TSN added
	anyTSN   bool
	// midRefused counts the ordered fragments refused for a MID outside
	// the ordered window (see MIDRefused).
	midRefused uint64
}

// MIDRefused returns how many ordered fragments Add refused because their
// MID is serially before the stream's next expected MID (already
// delivered) or 2^31 or more ahead of it, which no conforming peer sends
// (RFC 8260 section 2.1: "the sender MUST NOT have more than 2**31 - 1
// ordered messages for each outgoing stream in flight").
func (d *IDataReassembler) MIDRefused() uint64 { return d.midRefused }

// Recheck is delivery.Recheck after stream sid's In record changed outside
// the reassembler (a stream reset, RFC 6525): the stream's ordered list is
// rebased on the new next expected MID, dropping what can never be
// delivered, and a message whose partial delivery ended this way loses its
// rebased FSN keys (see unkeyPD). O(log n) in the fragments held on the
// stream, plus O(log n) per fragment dropped.
func (d *IDataReassembler) Recheck(sid uint16) {
	if s := d.streams.PeekInSide(sid); s != nil {
		s.sid = sid
		d.reset(s)
	}
	d.delivery.Recheck(sid)
}

// RecheckAll is Recheck for every stream in use.
func (d *IDataReassembler) RecheckAll() {
	for sid, s := range d.streams.InSides() {
		s.sid = sid
		d.reset(s)
	}
	d.delivery.RecheckAll()
}

// ResetAll is delivery.ResetAll with each reset stream's lists brought in
// line with its In record (see Recheck); like delivery.ResetAll it looks
// only at the streams whose In record was used since the last reset.
func (d *IDataReassembler) ResetAll() {
	for _, s := range d.numbered {
		if s.numbered {
			s.in.ResetSequence()
			d.reset(s)
		}
	}
	d.delivery.ResetAll()
}

// reset brings s's lists in line with its In record after a stream reset
// (see Recheck).
func (d *IDataReassembler) reset(s *InSide) {
	in := d.in(s)
	if !in.PD {
		d.unkeyPD(s, &s.ordered)
	}
	if !in.PDUO {
		d.unkeyPD(s, &s.unordered)
	}
	if s.ordered.head != nil {
		d.rebase(s, in.MID)
	}
}

// NewIDataReassembler returns the I-DATA variant's reassembler over the
// association's stream table: In records hold the next ordered MID and the
// partial-delivery state; fragments wait in the stream's InSide. conv says
// how to read the FSN of the second fragment (FSNAuto to detect it).
func NewIDataReassembler(streams InStreams, conv FSNConvention) *IDataReassembler {
	d := &IDataReassembler{conv: conv, fwd: newCandidates(2, false)}
	d.delivery = newDelivery(streams, d)
	return d
}

// Pool returns the fragment pool.
func (d *IDataReassembler) Pool() *Pool { return &d.pool }

// Convention returns the FSN convention in force (FSNAuto while
// undecided).
func (d *IDataReassembler) Convention() FSNConvention { return d.conv }

// SetCumulativeTSN tells the reassembler the receiver's cumulative TSN:
// every TSN up to cum has arrived. With FSNAuto it settles messages whose
// FSN reading waited for a possibly missing fragment, looking at every
// stream once cum reaches such a fragment; that decides the convention, so
// it happens about once per association and costs a comparison otherwise.
func (d *IDataReassembler) SetCumulativeTSN(cum chunk.TSN) {
	d.cum, d.cumKnown = cum, true
	if d.ambiguous && d.conv == FSNAuto && !cum.LT(d.ambigTSN) {
		d.ambiguous = false
		for sid, s := range d.streams.InSides() {
			s.sid = sid
			d.deliver(s)
			d.touch(s)
		}
	}
}

// Pop is delivery.Pop, releasing the side object of a stream read empty
// (see release).
func (d *IDataReassembler) Pop() *Frag {
	if d.head == nil {
		return nil
	}
	return d.PopStream(d.head.SID)
}

// PopStream is delivery.PopStream, releasing the side object of a stream
// read empty (see release).
func (d *IDataReassembler) PopStream(sid uint16) *Frag {
	f := d.delivery.PopStream(sid)
	if f != nil {
		d.releaseSID(sid)
	}
	return f
}

// PopStreamNext is PopStream that also returns the fragment it leaves at
// the head of stream sid's delivery queue (what PeekStream would return
// next), or nil.
func (d *IDataReassembler) PopStreamNext(sid uint16) (f, next *Frag) {
	f, s := d.delivery.popStream(sid)
	if f == nil {
		return nil, nil
	}
	if next = s.ready.head; next == nil && d.streams.InSideCount() > keepIdleSides && s.held == 0 {
		d.release(s)
	}
	return f, next
}

// releaseSID is release for stream sid's side object, if it has one.
func (d *IDataReassembler) releaseSID(sid uint16) {
	if d.streams.InSideCount() > keepIdleSides {
		if s := d.streams.PeekInSide(sid); s != nil && s.held == 0 {
			d.release(s)
		}
	}
}

// release gives the side object of s back to the stream table, as
// DataReassembler.release does, when s holds nothing, is in no heap or
// dirty list, and more than keepIdleSides side objects are in use; and,
// for I-DATA, when neither an ordered nor an unordered message of s is in
// partial delivery: its PPID and first TSN (pdState) and its FSN rebase
// live in the side object. The lists' trees, bases and runs describe no
// fragment when s holds none, so a zeroed side object is as good; the In
// record keeps the next expected MID.
func (d *IDataReassembler) release(s *InSide) {
	if s.held != 0 || s.dirty || s.hat[0] != 0 || s.hat[1] != 0 || d.streams.InSideCount() <= keepIdleSides {
		return
	}
	in := s.in
	if in == nil {
		in = d.streams.In(s.sid)
	}
	if in.PD || in.PDUO || s.ordered.fbase != 0 || s.unordered.fbase != 0 {
		return
	}
	if d.fwd.in(s) {
		d.fwd.remove(s)
	}
	if s.numbered {
		d.noteRenumber(s.sid)
	}
	d.streams.FreeInSide(s.sid)
}

func (d *IDataReassembler) stream(sid uint16) *InSide {
	s := d.streams.InSide(sid)
	if s != nil {
		s.sid = sid
	}
	return s
}

func isBegin(f *Frag) bool { return f.Flags&chunk.FlagBeginning != 0 }
func isEnd(f *Frag) bool   { return f.Flags&chunk.FlagEnd != 0 }

// at reports whether f is the fragment at position want (0 is the first
// fragment) of its message, whose first fragment had TSN firstTSN. With
// FSNAuto undecided, the second position is ambiguous for FSN 1: it is
// taken the RFC way only when no fragment can be missing between the two.
func (d *IDataReassembler) at(f *Frag, want stream.FSN, firstTSN chunk.TSN) bool {
	if isBegin(f) {
		return want == 0
	}
	switch d.conv {
	case FSNRFC:
		return f.FSN == want
	case FSNLinux:
		return f.FSN == want-1
	}
	// FSNAuto, undecided: FSN 0 on a later fragment latched Linux in Add,
	// so here the second fragment must carry FSN 1.
	if want != 1 || f.FSN != 1 {
		return false
	}
	if f.TSN == firstTSN+1 || (d.cumKnown && !d.cum.LT(f.TSN)) {
		d.conv = FSNRFC
		return true
	}
	if !d.ambiguous || f.TSN.LT(d.ambigTSN) {
		d.ambigTSN = f.TSN
	}
	d.ambiguous = true
	return false
}

// complete reports whether list l from h (a first fragment) holds its
// whole message and returns its last fragment (the last in sequence, when
// incomplete).
//
// The walk resumes where the last one on the message stopped (fragList.run,
// or through the tree from the run length kept in the first fragment's
// FSN), so a message whose fragments come in sequence costs O(1) per
// fragment rather than a walk from its start. A fragment of the message
// leaving (see unlinkOne, iunlink) cuts what the walks knew.
func (d *IDataReassembler) complete(l *fragList, h *Frag) (*Frag, bool) {
	f, pos := h, stream.FSN(0)
	switch {
	case l.run != nil && l.runMID == h.MID:
		f, pos = l.run, l.runPos
	case h.FSN > smallWalk:
		if g := l.ifind(h.MID, d.wireFSN(h.FSN)); g != nil {
			f, pos = g, h.FSN
		}
	}
	for !isEnd(f) {
		n := f.next
		if n == nil || n.MID != h.MID || !d.at(n, pos+1, h.TSN) {
			break
		}
		f, pos = n, pos+1
		d.examined++
		if n.Flags&flagTail != 0 {
			// n starts a known run (see unlinkOne): pass it in one step.
			// The run of the message now covers it.
			end := stream.FSN(n.PPID)
			l.setFlags(n, n.Flags&^flagTail)
			if g := l.ifind(h.MID, d.wireFSN(end)); g != nil {
				f, pos = g, end
			}
		}
	}
	l.run, l.runMID, l.runPos = f, h.MID, pos
	h.FSN = pos // a first fragment's FSN is 0: it keeps the run's length
	return f, isEnd(f)
}

// wireFSN returns the FSN a later fragment at position pos carries under
// the convention in force (decided: a run past position 0 decided it).
func (d *IDataReassembler) wireFSN(pos stream.FSN) stream.FSN {
	if d.conv == FSNLinux {
		return pos - 1
	}
	return pos
}

// Add takes an accepted fragment. It reports false (and keeps nothing)
// for a fragment that cannot be valid: a stream outside the table, an
// ordered MID it cannot place (see MIDRefused), a fragment already held
// under another TSN, or one of a message in partial delivery that was
// delivered already.
func (d *IDataReassembler) Add(f *Frag) bool {
	d.syncIfLong()
	sid := f.SID
	ok := d.add(f)
	if s := d.streams.PeekInSide(sid); s != nil {
		d.touch(s)
		if s.held == 0 {
			d.release(s) // f was refused or dropped what the stream held
		}
	}
	return ok
}

// cover keeps what an I-FORWARD-TSN judged of message mid of list l (a
// list of s) right after the message changed other than by an arrival in
// sequence: a fragment of it left (delivered, reneged, or its partial
// delivery went on) while others stayed, or a later fragment numbered 0
// under RFC 8260's FSNs came between its first fragment and its second.
//
// A fragment looked at (flagJudged) was kept because it was in sequence
// from its message's first fragment, or the message was complete (see
// applyCumAbove); after such a change that may not hold, and the message
// may be dead at the next I-FORWARD-TSN. Rather than have that look at the
// whole stream again, cover unmarks one fragment of the message: the
// judged one with the highest key. Invariant: every judged fragment out of
// sequence (or of a message in partial delivery) has an unjudged fragment
// of its message after it with a TSN at or below fwdMax, so the next
// I-FORWARD-TSN (New Cumulative TSN at least fwdMax) judges that one, finds
// it out of sequence and drops the message. O(log n) through the tree.
func (d *IDataReassembler) cover(s *InSide, l *fragList, mid stream.MID) {
	if !s.fwdOK {
		return // no I-FORWARD-TSN looked at the stream yet
	}
	g := l.lastJudged(mid)
	if g == nil {
		return
	}
	l.unjudge(g)
	if !d.fwd.in(s) || g.TSN.LT(d.fwd.key(s)) {
		d.fwd.set(s, g.TSN, true)
	}
}

func (d *IDataReassembler) add(f *Frag) bool {
	s := d.stream(f.SID)
	if s == nil {
		d.pool.Put(f)
		return false
	}
	begin := isBegin(f)
	if begin {
		f.FSN = 0
	} else if f.FSN == 0 && d.conv == FSNAuto {
		// Only the first fragment is FSN 0 by RFC 8260: a later one
		// numbered 0 comes from a sender counting as Linux does.
		d.conv = FSNLinux
	}
	in := d.in(s)
	unordered := f.Flags&chunk.FlagUnordered != 0
	if !unordered && f.MID-in.MID >= orderedWindow {
		d.midRefused++
		d.pool.Put(f)
		return false
	}
	if d.stale(in, f, unordered) {
		d.pool.Put(f)
		return false
	}
	if !d.anyTSN || d.highest.LT(f.TSN) {
		d.highest, d.anyTSN = f.TSN, true
	}
	d.hold(s, f)
	if begin && isEnd(f) {
		// A whole message in one chunk.
		if unordered {
			d.push(s, f, f.TSN)
			return true
		}
		if f.MID == in.MID && !in.PD {
			d.push(s, f, f.TSN)
			in.MID = in.MID.Next()
			if s.ordered.head != nil {
				// Only ordered messages can have become deliverable.
				d.deliverOrdered(s, in)
			}
			return true
		}
	}
	list := &s.ordered
	switch {
	case unordered:
		list = &s.unordered
	case list.head == nil:
		list.base = in.MID
	case in.MID-list.base >= rebaseDrift:
		d.rebase(s, in.MID)
		if list.head == nil {
			list.base = in.MID
		}
	}
	if !begin {
		switch {
		case unordered && in.PDUO && f.MID == in.MIDUO:
			d.rekeyPD(s, list, f.MID, in.FSNUO)
		case !unordered && in.PD && f.MID == in.MID:
			d.rekeyPD(s, list, f.MID, in.FSN)
		}
	}
	if !list.iinsert(f) {
		d.unhold(s, f)
		d.pool.Put(f)
		return false
	}
	if !begin && f.FSN == 0 && d.conv == FSNRFC {
		// A later fragment numbered 0, which RFC 8260 gives to none,
		// sorts between its message's first fragment and the second: it
		// breaks the message's known run, and what an I-FORWARD-TSN kept
		// for being in sequence may not be any more.
		if list.run != nil && list.runMID == f.MID {
			list.run = nil
		}
		if _, h := list.iseek(f.MID); h != nil && h.MID == f.MID && isBegin(h) {
			if n := f.next; h.FSN >= 2 && n != nil && n.MID == f.MID && !isBegin(n) && n.FSN == 1 {
				// What the run held from the second fragment on stays
				// known (see unlinkOne), for when f leaves.
				n.PPID = uint32(h.FSN)
				list.setFlags(n, n.Flags|flagTail)
			}
			h.FSN = 0
		}
		d.cover(s, list, f.MID)
	}
	if !s.maxOK || s.maxTSN.LT(f.TSN) {
		s.maxTSN, s.maxOK = f.TSN, true
	}
	if !d.fwd.in(s) || f.TSN.LT(d.fwd.key(s)) {
		// A fragment no I-FORWARD-TSN looked at. A key left low by
		// fragments gone since costs applyCum one look at s, paid for
		// by their arrival.
		d.fwd.set(s, f.TSN, true)
	}
	d.deliverAfter(s, f)
	return true
}

// stale reports whether f belongs to a message in partial delivery at a
// position already delivered (or is a second first fragment of it).
func (d *IDataReassembler) stale(in *stream.In, f *Frag, unordered bool) bool {
	var mid stream.MID
	var next stream.FSN
	switch {
	case unordered && in.PDUO:
		mid, next = in.MIDUO, in.FSNUO
	case !unordered && in.PD:
		mid, next = in.MID, in.FSN
	default:
		return false
	}
	if f.MID != mid {
		return false
	}
	if isBegin(f) {
		return true
	}
	pos, ok := d.position(f)
	return ok && pos.LT(next)
}

// position returns the position of a later fragment in its message, when
// the convention is known.
func (d *IDataReassembler) position(f *Frag) (stream.FSN, bool) {
	switch d.conv {
	case FSNRFC:
		return f.FSN, true
	case FSNLinux:
		return f.FSN + 1, true
	}
	return 0, false
}

// pd returns the partial-delivery record of s's ordered or unordered
// message.
func pdOf(s *InSide, unordered bool) *pdState {
	if unordered {
		return &s.pdU
	}
	return &s.pdO
}

// pdList returns s's ordered or unordered list.
func pdList(s *InSide, unordered bool) *fragList {
	if unordered {
		return &s.unordered
	}
	return &s.ordered
}

// endPD clears the partial-delivery record of s's ordered or unordered
// message.
func endPD(s *InSide, unordered bool) { *pdOf(s, unordered) = pdState{} }

// deliver moves what became deliverable on s to the ready queue.
func (d *IDataReassembler) deliver(s *InSide) {
	in := d.in(s)
	d.deliverOrdered(s, in)
	d.deliverUnordered(s, in)
}

// deliverAfter is deliver after f was added to s: only f's message can
// have become deliverable, so only its place in the lists is looked at.
func (d *IDataReassembler) deliverAfter(s *InSide, f *Frag) {
	in := d.in(s)
	if f.Flags&chunk.FlagUnordered == 0 {
		if f.MID == in.MID {
			d.deliverOrdered(s, in)
		}
		return
	}
	if in.PDUO && f.MID == in.MIDUO {
		d.continuePD(s, in, &s.unordered, true)
		return
	}
	// The first fragment of f's message, if held, and what precedes it.
	prev, g := s.unordered.iseek(f.MID)
	if g != nil && g.MID == f.MID && isBegin(g) {
		if last, ok := d.complete(&s.unordered, g); ok {
			d.moveRun(s, &s.unordered, prev, g, last)
		}
	}
}

// deliverOrdered moves s's ordered messages that are next in MID order
// (and the parts of one in partial delivery) to the ready queue.
func (d *IDataReassembler) deliverOrdered(s *InSide, in *stream.In) {
	for {
		if in.PD {
			if !d.continuePD(s, in, &s.ordered, false) {
				break
			}
			continue
		}
		// Fragments of delivered MIDs (a peer sending past a message's
		// end) would block the stream: drop them.
		for h := s.ordered.head; h != nil && h.MID.LT(in.MID); h = s.ordered.head {
			s.ordered.iunlink(nil, h)
			d.unhold(s, h)
			d.pool.Put(h)
		}
		h := s.ordered.head
		if h == nil || h.MID != in.MID || !isBegin(h) {
			break
		}
		last, ok := d.complete(&s.ordered, h)
		if !ok {
			break
		}
		d.moveRun(s, &s.ordered, nil, h, last)
		d.dropMID(s, &s.ordered, h.MID)
		in.MID = in.MID.Next()
	}
}

// deliverUnordered moves s's complete unordered messages (and the parts of
// one in partial delivery) to the ready queue.
func (d *IDataReassembler) deliverUnordered(s *InSide, in *stream.In) {
	if in.PDUO {
		d.continuePD(s, in, &s.unordered, true)
	}
	var prev *Frag
	for f := s.unordered.head; f != nil; {
		if isBegin(f) && !(in.PDUO && f.MID == in.MIDUO) {
			if last, ok := d.complete(&s.unordered, f); ok {
				next := last.next
				d.moveRun(s, &s.unordered, prev, f, last)
				f = next
				continue
			}
		}
		prev, f = f, f.next
	}
}

// continuePD queues the next fragments in sequence of the message in
// partial delivery on (s, unordered). It reports whether the message
// ended.
func (d *IDataReassembler) continuePD(s *InSide, in *stream.In, l *fragList, unordered bool) bool {
	mid, next := &in.MID, &in.FSN
	if unordered {
		mid, next = &in.MIDUO, &in.FSNUO
	}
	p := pdOf(s, unordered)
	m := *mid
	prev, f := l.iseek(m)
	if f != nil && f.MID == m && d.at(f, *next, p.firstTSN) {
		// What this leaves of the message follows a gap (or, unordered,
		// its end): see cover. Its fragments looked at are found now,
		// before the list changes.
		d.cover(s, l, m)
	}
	for f != nil && f.MID == m && d.at(f, *next, p.firstTSN) {
		n := f.next
		d.unlinkOne(l, prev, f)
		if isBegin(f) {
			f.FSN = 0 // it held the run's length (see complete)
		}
		f.PPID = p.ppid
		d.push(s, f, p.firstTSN)
		*next = next.Next()
		if isEnd(f) {
			endPD(s, unordered)
			if unordered {
				in.PDUO, in.MIDUO, in.FSNUO = false, 0, 0
			} else {
				in.PD, in.FSN = false, 0
				d.dropMID(s, l, in.MID)
				in.MID = in.MID.Next()
			}
			d.unkeyPD(s, l)
			return true
		}
		f = n
	}
	return false
}

// unlinkOne removes f (after prev, nil at the head) from l, a fragment
// alone rather than its whole message. What complete knew of the message is
// cut at f rather than forgotten: the run from the first fragment ends
// before f, and what followed f becomes a known run of its own, marked on
// f's successor (flagTail, end position in its PPID), so the next walk
// passes it in one step once f's position is filled again. O(log n).
func (d *IDataReassembler) unlinkOne(l *fragList, prev, f *Frag) {
	nx := f.next
	if isBegin(f) {
		l.iunlink(prev, f)
		return
	}
	_, h := l.iseek(f.MID)
	if h != nil && (h.MID != f.MID || !isBegin(h)) {
		h = nil
	}
	pos, ok := d.position(f)
	end := pos // the last position known in sequence after f
	switch {
	case !ok || pos == 0:
		// Undecided convention (no run past the first fragment), or a
		// later fragment numbered 0 under RFC 8260's FSNs (which broke
		// the run when it came).
		if h != nil {
			h.FSN = 0
		}
	case h != nil && h.FSN >= pos:
		end = h.FSN
		h.FSN = pos - 1
	case f.Flags&flagTail != 0:
		end = stream.FSN(f.PPID)
	default:
		if y := l.tailBefore(f); y != nil {
			// Positions compare by their distance from y's (a message in
			// partial delivery may pass the FSN wrap).
			if yp, _ := d.position(y); pos-yp <= stream.FSN(y.PPID)-yp {
				end = stream.FSN(y.PPID)
				if pos-yp >= 2 {
					y.PPID = uint32(pos - 1)
				} else {
					l.setFlags(y, y.Flags&^flagTail)
				}
			}
		}
	}
	l.iunlink(prev, f)
	if end-pos >= 2 && end-pos < 1<<31 && nx != nil && nx.MID == f.MID && !isBegin(nx) {
		if np, _ := d.position(nx); np == pos+1 {
			nx.PPID = uint32(end)
			l.setFlags(nx, nx.Flags|flagTail)
		}
	}
}

// moveRun moves the run first..last (prev precedes first, nil at the head)
// from l (a list of s) to s's delivery queue.
func (d *IDataReassembler) moveRun(s *InSide, l *fragList, prev, first, last *Frag) {
	left := last.next != nil && last.next.MID == first.MID
	for f := first; ; {
		n := f.next
		l.iunlink(prev, f)
		f.PPID = first.PPID // every part names the message's PPID
		if f == first {
			f.FSN = 0 // it held the run's length (see complete)
		}
		d.push(s, f, first.TSN)
		if f == last {
			break
		}
		f = n
	}
	if left {
		// Fragments past the message's end stay, without their first
		// fragment: see cover.
		d.cover(s, l, first.MID)
	}
}

// dropMID drops the fragments of message mid left at the head of l (a
// peer sending fragments past a message's end).
func (d *IDataReassembler) dropMID(s *InSide, l *fragList, mid stream.MID) {
	for h := l.head; h != nil && !mid.LT(h.MID); h = l.head {
		l.iunlink(nil, h)
		d.unhold(s, h)
		d.pool.Put(h)
	}
}

// Partial starts partial delivery of one message: among the streams with
// nothing queued for delivery and the kinds not in partial delivery
// already, the message whose first fragment has the lowest TSN and is next
// in order (any, for unordered messages) starts to be queued with the
// fragments in sequence after it. Called again, it starts another.
// O(log n) in the streams (see candidates).
func (d *IDataReassembler) Partial() bool {
	d.sync()
	s := d.cands.min()
	if s == nil {
		return false
	}
	var c ipdCandidate
	d.consider(&c, s.sid, s)
	started := d.startPartial(&c)
	d.touch(s)
	return started
}

// ipdCandidate is the best message found so far to start partial delivery
// with: its first fragment f, with the lowest TSN, on stream s.
type ipdCandidate struct {
	s  *InSide
	f  *Frag
	uo bool
}

// consider makes a message of stream sid (side s) the candidate if
// partial delivery can start with it and its first fragment has a lower
// TSN: the next ordered message or any unordered one whose first fragment
// is there, unless s has something queued for delivery or a message of
// that kind in partial delivery already.
func (d *IDataReassembler) consider(c *ipdCandidate, sid uint16, s *InSide) {
	s.sid = sid
	if s.ready.head != nil {
		return
	}
	in := d.in(s)
	if h := s.ordered.head; !in.PD && h != nil && h.MID == in.MID && isBegin(h) {
		if c.f == nil || h.TSN.LT(c.f.TSN) {
			c.s, c.f, c.uo = s, h, false
		}
	}
	if !in.PDUO {
		if f := s.unordered.iminBegin(); f != nil && (c.f == nil || f.TSN.LT(c.f.TSN)) {
			c.s, c.f, c.uo = s, f, true
		}
	}
}

// candidateKey is the candidates rule of I-DATA (candidateKeyer): the TSN
// of the first fragment of the message consider picks on s.
func (d *IDataReassembler) candidateKey(s *InSide) (chunk.TSN, bool) {
	var c ipdCandidate
	d.consider(&c, s.sid, s)
	if c.f == nil {
		return 0, false
	}
	return c.f.TSN, true
}

// startPartial starts partial delivery of c's message, if there is one.
func (d *IDataReassembler) startPartial(c *ipdCandidate) bool {
	best, bestF, bestUO := c.s, c.f, c.uo
	if best == nil {
		return false
	}
	in := d.in(best)
	if l := pdList(best, bestUO); l.pdMID != bestF.MID {
		d.unkeyPD(best, l) // left by a partial delivery ended outside (a stream reset)
	}
	*pdOf(best, bestUO) = pdState{ppid: bestF.PPID, firstTSN: bestF.TSN}
	if bestUO {
		in.PDUO, in.MIDUO, in.FSNUO = true, stream.MID(bestF.MID), 0
		d.continuePD(best, in, &best.unordered, true)
	} else {
		in.PD, in.FSN = true, 0
		if d.continuePD(best, in, &best.ordered, false) {
			d.deliverOrdered(best, in) // only ordered ones can follow
		}
	}
	return true
}

// InPartial reports whether a message of stream sid, ordered or
// unordered, is in partial delivery.
func (d *IDataReassembler) InPartial(sid uint16) bool {
	in := d.streams.In(sid)
	return in != nil && (in.PD || in.PDUO)
}

// PartialNext is the Data variant's hook for the window-full exception;
// with I-DATA the fragments of a message do not have consecutive TSNs, so
// it reports false. The receiver asks PartialWants instead.
func (d *IDataReassembler) PartialNext() (chunk.TSN, bool) { return 0, false }

// PartialWants reports whether a fragment of (sid, unordered, mid) with
// FSN fsn (as sent; begin for a first fragment) is the next one of a
// message in partial delivery: the receiver accepts it even with its
// window full, since it is what lets the reader free the window.
func (d *IDataReassembler) PartialWants(sid uint16, unordered, begin bool, mid stream.MID, fsn stream.FSN) bool {
	in := d.streams.In(sid)
	if in == nil || begin {
		return false
	}
	switch {
	case unordered && in.PDUO && mid == in.MIDUO:
		return d.wants(fsn, in.FSNUO)
	case !unordered && in.PD && mid == in.MID:
		return d.wants(fsn, in.FSN)
	}
	return false
}

// wants reports whether a later fragment with FSN fsn may be at position
// want; undecided, either reading counts.
func (d *IDataReassembler) wants(fsn, want stream.FSN) bool {
	switch d.conv {
	case FSNRFC:
		return fsn == want
	case FSNLinux:
		return fsn+1 == want
	}
	return want >= 1 && (fsn == want || fsn+1 == want)
}

// DropHighest removes the held fragment with the highest TSN above after
// that waits for reassembly or ordering (reneging, RFC 9260 section 6.2),
// including later fragments of a message in partial delivery: they were
// not delivered, and the peer sends them again.
//
// The stream comes from a heap keyed by an upper bound of each stream's
// highest TSN held (InSide.maxTSN, raised in O(1) as fragments come): the
// stream on top either holds that TSN, or is rekeyed to its true highest
// and the next is tried, so looks are bounded by drops and arrivals. Within
// a stream the fragment is found through the list's tree, O(log n).
func (d *IDataReassembler) DropHighest(after chunk.TSN) (chunk.TSN, int, bool) {
	d.sync()
	for {
		s := d.drops.min()
		if s == nil || !after.LT(d.drops.key(s)) {
			return 0, 0, false
		}
		l, best := highestHeld(s)
		if best == nil {
			s.maxOK = false
			d.drops.remove(s)
			continue
		}
		if best.TSN != d.drops.key(s) {
			s.maxTSN = best.TSN // what was above it left since
			d.drops.set(s, best.TSN, true)
			continue
		}
		d.unlinkOne(l, l.ipred(best), best)
		tsn, n, mid := best.TSN, len(best.Data), best.MID
		d.unhold(s, best)
		d.pool.Put(best)
		// The fragments of best's message after it can have left their
		// message's run: see cover.
		d.cover(s, l, mid)
		if _, f := highestHeld(s); f != nil {
			s.maxTSN = f.TSN
		}
		d.touch(s)
		return tsn, n, true
	}
}

// highestHeld returns the fragment of s's lists with the highest TSN and
// its list, or a nil fragment.
func highestHeld(s *InSide) (*fragList, *Frag) {
	o, u := s.ordered.imax(), s.unordered.imax()
	if u != nil && (o == nil || o.TSN.LT(u.TSN)) {
		return &s.unordered, u
	}
	return &s.ordered, o
}

// dropKey is the droppable rule of I-DATA (candidateKeyer): an upper
// bound of the highest TSN held on s (InSide.maxTSN), when s holds any.
func (d *IDataReassembler) dropKey(s *InSide) (chunk.TSN, bool) {
	if s.ordered.head == nil && s.unordered.head == nil {
		s.maxOK = false
		return 0, false
	}
	if !s.maxOK {
		_, f := highestHeld(s)
		s.maxTSN, s.maxOK = f.TSN, true
	}
	return s.maxTSN, true
}
