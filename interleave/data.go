package interleave

import (
	"iter"

	"github.com/usctp/usctp/stream"
)

// InSide is the reassembly state of one inbound stream: the side object of
// the stream table's inbound records (stream.Table[O, InSide]). The next
// SSN (or MID) to deliver lives in the stream's In record.
type InSide struct {
	ordered   fragList // ordered fragments waiting, by TSN
	unordered fragList // unordered fragments waiting, by TSN
	sid       uint16
	deferred  bool // on the deferred list while a partial delivery runs
}

// InStreams is the part of the association's stream table the receiving
// side uses: *stream.Table[O, InSide] for any O.
type InStreams interface {
	In(sid uint16) *stream.In
	InSide(sid uint16) *InSide
	InSides() iter.Seq2[uint16, *InSide]
}

// Data is the DATA variant's reassembler (RFC 9260 section 6.5 and 6.9):
// fragments of a message carry consecutive TSNs; ordered messages leave a
// stream in SSN order, unordered ones as soon as they are complete.
type Data struct {
	pool    Pool
	streams InStreams
	ready   fragList
	held    int

	// Partial delivery in progress: the stream and list the message comes
	// from, and the TSN of its next fragment.
	pd        *InSide
	pdList    *fragList
	pdOrdered bool
	pdNext    uint32
	deferred  []*InSide
}

// NewData returns the DATA variant's reassembler over the association's
// stream table: the next SSN of each inbound stream is its In record's
// NextSSN, and fragments wait in its InSide, created on first use.
func NewData(streams InStreams) *Data {
	return &Data{streams: streams}
}

// Pool returns the fragment pool.
func (d *Data) Pool() *Pool { return &d.pool }

// Held returns the user bytes held.
func (d *Data) Held() int { return d.held }

// Peek returns the next fragment to deliver.
func (d *Data) Peek() *Frag { return d.ready.head }

// Pop removes and returns the next fragment to deliver.
func (d *Data) Pop() *Frag {
	f := d.ready.pop()
	if f != nil {
		d.held -= len(f.Data)
	}
	return f
}

// stream returns sid's state, or nil for a stream outside the range.
func (d *Data) stream(sid uint16) *InSide {
	s := d.streams.InSide(sid)
	if s != nil {
		s.sid = sid
	}
	return s
}

// in returns the In record of s's stream (its next SSN, partial delivery).
func (d *Data) in(s *InSide) *stream.In { return d.streams.In(s.sid) }

func ssnLT(a, b uint16) bool { return a != b && int16(a-b) < 0 }

// Add takes an accepted fragment.
func (d *Data) Add(f *Frag) bool {
	s := d.stream(f.SID)
	if s == nil || f.Flags&FlagUnordered == 0 && ssnLT(f.SSN, uint16(d.in(s).NextSSN())) {
		d.pool.Put(f)
		return false
	}
	d.held += len(f.Data)
	if d.pd == s && f.TSN == d.pdNext && (f.Flags&FlagUnordered == 0) == d.pdOrdered {
		d.continuePartial(f)
		return true
	}
	list := &s.ordered
	if f.Flags&FlagUnordered != 0 {
		if f.Flags&(FlagBegin|FlagEnd) == FlagBegin|FlagEnd && d.pd == nil {
			d.ready.push(f) // a whole unordered message: deliver at once
			return true
		}
		list = &s.unordered
	}
	if !list.insert(f) {
		d.held -= len(f.Data)
		d.pool.Put(f)
		return false
	}
	d.deliver(s)
	return true
}

// deliver moves the deliverable messages of s to the ready queue: ordered
// ones in SSN order, unordered ones when complete. During a partial
// delivery it only notes s for later.
func (d *Data) deliver(s *InSide) {
	if d.pd != nil {
		if !s.deferred {
			s.deferred = true
			d.deferred = append(d.deferred, s)
		}
		return
	}
	in := d.in(s)
	for {
		h := s.ordered.head
		if h == nil || h.SSN != uint16(in.NextSSN()) || h.Flags&FlagBegin == 0 {
			break
		}
		last, ok := completeRun(h)
		if !ok {
			break
		}
		d.move(&s.ordered, last)
		in.MID = stream.MID(in.NextSSN().Next())
	}
	// Unordered: any complete run anywhere in the list.
	var prev *Frag
	for f := s.unordered.head; f != nil; {
		if f.Flags&FlagBegin != 0 {
			if last, ok := completeRun(f); ok {
				next := last.next
				d.unlink(&s.unordered, prev, f, last)
				f = next
				continue
			}
		}
		prev, f = f, f.next
	}
}

// move moves the fragments from the head of l through last to the ready
// queue.
func (d *Data) move(l *fragList, last *Frag) {
	for {
		f := l.pop()
		d.ready.push(f)
		if f == last {
			return
		}
	}
}

// unlink moves the run first..last (prev precedes first, nil at the head)
// from l to the ready queue.
func (d *Data) unlink(l *fragList, prev, first, last *Frag) {
	next := last.next
	if prev == nil {
		l.head = next
	} else {
		prev.next = next
	}
	if l.tail == last {
		l.tail = prev
	}
	for f := first; ; {
		n := f.next
		l.n--
		d.ready.push(f)
		if f == last {
			break
		}
		f = n
	}
}

// Partial starts partial delivery (RFC 9260 section 6.9: "the receiver
// MAY choose to deliver the partial message to the upper layer") of the
// message with the lowest TSN whose first fragments are in sequence.
func (d *Data) Partial() bool {
	if d.pd != nil || d.ready.head != nil {
		return false
	}
	var best *InSide
	var bestList *fragList
	for _, s := range d.streams.InSides() {
		if h := s.ordered.head; h != nil && h.SSN == uint16(d.in(s).NextSSN()) && h.Flags&FlagBegin != 0 {
			if best == nil || tsnLT(h.TSN, bestList.head.TSN) {
				best, bestList = s, &s.ordered
			}
		}
		if h := s.unordered.head; h != nil && h.Flags&FlagBegin != 0 {
			if best == nil || tsnLT(h.TSN, bestList.head.TSN) {
				best, bestList = s, &s.unordered
			}
		}
	}
	if best == nil {
		return false
	}
	d.pd, d.pdList, d.pdOrdered = best, bestList, bestList == &best.ordered
	d.pdNext = bestList.head.TSN
	if d.pdOrdered {
		d.in(best).PD = true
	} else {
		d.in(best).PDUO = true
	}
	for h := bestList.head; h != nil && h.TSN == d.pdNext; h = bestList.head {
		d.ready.push(bestList.pop())
		d.pdNext++
	}
	return true
}

// continuePartial queues f, the next fragment of the message in partial
// delivery, and what follows it in sequence; at the message's end it
// resumes normal delivery.
func (d *Data) continuePartial(f *Frag) {
	for {
		d.ready.push(f)
		d.pdNext++
		if f.Flags&FlagEnd != 0 {
			s := d.pd
			in := d.in(s)
			if d.pdOrdered {
				in.MID = stream.MID(in.NextSSN().Next())
			}
			in.PD, in.PDUO = false, false
			d.pd, d.pdList = nil, nil
			d.deliver(s)
			for _, o := range d.deferred {
				o.deferred = false
				d.deliver(o)
			}
			d.deferred = d.deferred[:0]
			return
		}
		h := d.pdList.head
		if h == nil || h.TSN != d.pdNext {
			return
		}
		f = d.pdList.pop()
	}
}

// PartialNext returns the TSN of the partial delivery's next fragment.
func (d *Data) PartialNext() (uint32, bool) { return d.pdNext, d.pd != nil }

// DropHighest removes the held fragment with the highest TSN above after.
// Fragments of a message in partial delivery are not dropped (some of it
// was delivered already).
func (d *Data) DropHighest(after uint32) (uint32, int, bool) {
	var bestList *fragList
	for _, s := range d.streams.InSides() {
		for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
			if l.tail == nil || !tsnLT(after, l.tail.TSN) || l == d.pdList {
				continue
			}
			if bestList == nil || tsnLT(bestList.tail.TSN, l.tail.TSN) {
				bestList = l
			}
		}
	}
	if bestList == nil {
		return 0, 0, false
	}
	f := bestList.removeTail()
	tsn, n := f.TSN, len(f.Data)
	d.held -= n
	d.pool.Put(f)
	return tsn, n, true
}

// ForwardTSN drops fragments up to newCum and skips the named streams past
// their SSNs (RFC 3758 section 3.6). Minimal: a partial delivery cut short
// by it ends without its last fragment.
func (d *Data) ForwardTSN(newCum uint32, skips []Skip) {
	drop := func(l *fragList) {
		var prev *Frag
		for f := l.head; f != nil; {
			next := f.next
			if !tsnLT(newCum, f.TSN) {
				if prev == nil {
					l.head = next
				} else {
					prev.next = next
				}
				if l.tail == f {
					l.tail = prev
				}
				l.n--
				d.held -= len(f.Data)
				d.pool.Put(f)
			} else {
				prev = f
			}
			f = next
		}
	}
	if d.pd != nil && !tsnLT(newCum, d.pdNext) {
		in := d.in(d.pd)
		in.PD, in.PDUO = false, false
		d.pd, d.pdList = nil, nil
		for _, o := range d.deferred {
			o.deferred = false
		}
		d.deferred = d.deferred[:0]
	}
	for _, s := range d.streams.InSides() {
		drop(&s.ordered)
		drop(&s.unordered)
	}
	for _, k := range skips {
		if in := d.streams.In(k.SID); in != nil && !ssnLT(k.SSN, uint16(in.NextSSN())) {
			in.MID = stream.MID(k.SSN + 1)
		}
	}
	for _, s := range d.streams.InSides() {
		d.deliver(s)
	}
}
