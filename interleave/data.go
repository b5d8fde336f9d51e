package interleave

// inStream is the receiving state of one inbound stream (DATA variant).
// It moves into the stream package's In records when package stream lands.
type inStream struct {
	ordered   fragList // ordered fragments waiting, by TSN
	unordered fragList // unordered fragments waiting, by TSN
	expect    uint16   // next SSN to deliver
	deferred  bool     // on the deferred list while a partial delivery runs
}

// Data is the DATA variant's reassembler (RFC 9260 section 6.5 and 6.9):
// fragments of a message carry consecutive TSNs; ordered messages leave a
// stream in SSN order, unordered ones as soon as they are complete.
type Data struct {
	pool    Pool
	streams map[uint16]*inStream
	ready   fragList
	held    int

	// Partial delivery in progress: the stream and list the message comes
	// from, and the TSN of its next fragment.
	pd        *inStream
	pdList    *fragList
	pdOrdered bool
	pdNext    uint32
	deferred  []*inStream
}

// NewData returns the DATA variant's reassembler.
func NewData() *Data {
	return &Data{streams: make(map[uint16]*inStream)}
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

func (d *Data) stream(sid uint16) *inStream {
	s := d.streams[sid]
	if s == nil {
		s = &inStream{}
		d.streams[sid] = s
	}
	return s
}

func ssnLT(a, b uint16) bool { return a != b && int16(a-b) < 0 }

// Add takes an accepted fragment.
func (d *Data) Add(f *Frag) bool {
	s := d.stream(f.SID)
	if f.Flags&FlagUnordered == 0 && ssnLT(f.SSN, s.expect) {
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
func (d *Data) deliver(s *inStream) {
	if d.pd != nil {
		if !s.deferred {
			s.deferred = true
			d.deferred = append(d.deferred, s)
		}
		return
	}
	for {
		h := s.ordered.head
		if h == nil || h.SSN != s.expect || h.Flags&FlagBegin == 0 {
			break
		}
		last, ok := completeRun(h)
		if !ok {
			break
		}
		d.move(&s.ordered, last)
		s.expect++
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
	var best *inStream
	var bestList *fragList
	for _, s := range d.streams {
		if h := s.ordered.head; h != nil && h.SSN == s.expect && h.Flags&FlagBegin != 0 {
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
			if d.pdOrdered {
				s.expect++
			}
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
		d.pd, d.pdList = nil, nil
		for _, o := range d.deferred {
			o.deferred = false
		}
		d.deferred = d.deferred[:0]
	}
	for _, s := range d.streams {
		drop(&s.ordered)
		drop(&s.unordered)
	}
	for _, k := range skips {
		if s := d.streams[k.SID]; s != nil && !ssnLT(k.SSN, s.expect) {
			s.expect = k.SSN + 1
		} else if s == nil {
			d.stream(k.SID).expect = k.SSN + 1
		}
	}
	for _, s := range d.streams {
		d.deliver(s)
	}
}
