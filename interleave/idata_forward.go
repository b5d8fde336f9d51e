package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// ForwardTSN applies a DATA-style FORWARD-TSN; with I-DATA the peer must
// send I-FORWARD-TSN instead (RFC 8260 section 2.3), so the association
// never calls this. It treats each entry as an ordered skip of MID SSN.
func (d *IDataReassembler) ForwardTSN(newCum chunk.TSN, skips []Skip) {
	d.visit = d.visit[:0]
	d.applyCum(newCum)
	for _, k := range skips {
		d.skip(MIDSkip{SID: k.SID, MID: stream.MID(k.SSN)})
	}
	d.deliverVisited()
}

// ForwardMID applies an I-FORWARD-TSN whose entries were validated
// (ParseIForwardTSN). Following RFC 8260 section 2.3.2 and RFC 3758
// section 3.6: incomplete messages that newCum proves dead are dropped
// (see applyCum); an ordered entry makes its stream skip past MID, ending a
// partial delivery of a skipped message and delivering the complete
// messages the skip unblocks; an unordered entry ends the partial delivery
// of a skipped unordered message and drops what is held of skipped
// unordered messages. Each partial delivery ended queues a FlagAborted
// marker.
//
// Its work is bounded by the chunk's entries and the fragments it looks
// at, not by the streams in use: only the streams the entries name and
// those holding fragments that arrived since an earlier I-FORWARD-TSN
// looked at them (the fwd heap) are looked at and delivered from.
func (d *IDataReassembler) ForwardMID(newCum chunk.TSN, skips []MIDSkip) {
	d.visit = d.visit[:0]
	for _, k := range skips {
		d.skip(k)
	}
	d.applyCum(newCum)
	d.deliverVisited()
}

// deliverVisited delivers what became deliverable on the streams an
// I-FORWARD-TSN changed (d.visit; a stream listed twice is delivered from
// twice, which finds nothing more the second time).
func (d *IDataReassembler) deliverVisited() {
	for i, s := range d.visit {
		n0 := s.ordered.n + s.unordered.n
		d.deliver(s)
		d.touch(s)
		if s.ordered.n+s.unordered.n < n0 {
			d.relook(s)
		}
		d.visit[i] = nil
	}
	d.visit = d.visit[:0]
}

// abortPD ends the partial delivery on (sid, unordered) and drops the held
// fragments of its message.
func (d *IDataReassembler) abortPD(s *InSide, in *stream.In, unordered bool) {
	if unordered {
		d.pushAborted(s, chunk.FlagUnordered, in.MIDUO)
		d.dropWhere(&s.unordered, func(f *Frag) bool { return f.MID == in.MIDUO })
		in.PDUO, in.MIDUO, in.FSNUO = false, 0, 0
	} else {
		d.pushAborted(s, 0, in.MID)
		d.dropWhere(&s.ordered, func(f *Frag) bool { return f.MID == in.MID })
		in.PD, in.FSN = false, 0
		in.MID = in.MID.Next()
	}
	d.unkeyPD(pdList(s, unordered))
	endPD(s, unordered)
}

// pushAborted queues the FlagAborted marker of a message of s in partial
// delivery.
func (d *IDataReassembler) pushAborted(s *InSide, flags uint8, mid stream.MID) {
	m := d.pool.Get(nil)
	d.hold(m) // no user bytes, but memory
	m.SID, m.MID, m.Flags = s.sid, mid, flags|FlagAborted
	d.push(s, m, pdOf(s, flags&chunk.FlagUnordered != 0).firstTSN)
}

// dropWhere drops the fragments of l for which drop reports true.
func (d *IDataReassembler) dropWhere(l *fragList, drop func(*Frag) bool) {
	var prev *Frag
	for f := l.head; f != nil; {
		n := f.next
		if drop(f) {
			d.unlinkOne(l, prev, f)
			d.unhold(f)
			d.pool.Put(f)
		} else {
			prev = f
		}
		f = n
	}
}

// skip applies one I-FORWARD-TSN entry.
func (d *IDataReassembler) skip(k MIDSkip) {
	s := d.stream(k.SID)
	if s == nil {
		return
	}
	d.visit = append(d.visit, s)
	in := d.in(s)
	if k.Unordered {
		if in.PDUO && in.MIDUO.LEQ(k.MID) {
			d.abortPD(s, in, true)
		}
		d.dropWhere(&s.unordered, func(f *Frag) bool { return f.MID.LEQ(k.MID) })
		return
	}
	if k.MID-in.MID >= orderedWindow {
		return // already past it (or, at 2^31 ahead, undefined in serial arithmetic)
	}
	if in.PD {
		d.abortPD(s, in, false)
	}
	// Complete messages up to k.MID leave now (they were waiting for a
	// skipped one); the rest of those MIDs is dropped.
	for h := s.ordered.head; h != nil && h.MID.LEQ(k.MID); h = s.ordered.head {
		if isBegin(h) {
			if last, ok := d.complete(&s.ordered, h); ok {
				d.moveRun(s, &s.ordered, nil, h, last)
				continue
			}
		}
		s.ordered.iunlink(nil, h)
		d.unhold(h)
		d.pool.Put(h)
	}
	in.MID = stream.MID(k.MID).Next()
}

// applyCum drops the messages that a cumulative TSN of newCum proves
// dead: an incomplete message holding a fragment at or below newCum after
// a missing one (the missing fragment was sent earlier, with a lower TSN,
// and will never come). A message whose missing fragments may still be on
// their way is kept: with I-DATA its fragments can straddle newCum while it
// is alive. A partial delivery whose message died this way is aborted.
//
// The streams it looks at come from the fwd heap: those holding a
// fragment above their fwdSeen at or below newCum. A stream not there
// holds nothing newCum can prove dead: what it held at or below fwdSeen was
// looked at then, and is kept for good (the in-sequence start of a
// message), and only a fragment arriving since (above fwdSeen) can make a
// message dead. So each arrival costs at most one look at its stream.
func (d *IDataReassembler) applyCum(newCum chunk.TSN) {
	for {
		s := d.fwd.min()
		if s == nil || newCum.LT(d.fwd.key(s)) {
			return
		}
		d.fwd.remove(s)
		d.visit = append(d.visit, s)
		d.applyCumTo(s, newCum)
		if !s.fwdOK || s.fwdSeen.LT(newCum) {
			s.fwdSeen, s.fwdOK = newCum, true
		}
		d.fwdRekey(s)
	}
}

// fwdRekey puts s in the fwd heap keyed by the lowest TSN it holds above
// its fwdSeen, if any.
func (d *IDataReassembler) fwdRekey(s *InSide) {
	var key chunk.TSN
	ok := false
	for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
		for f := l.head; f != nil; f = f.next {
			if (!s.fwdOK || s.fwdSeen.LT(f.TSN)) && (!ok || f.TSN.LT(key)) {
				key, ok = f.TSN, true
			}
		}
	}
	d.fwd.set(s, key, ok)
}

// applyCumTo is applyCum on stream s.
func (d *IDataReassembler) applyCumTo(s *InSide, newCum chunk.TSN) {
	in := d.in(s)
	for _, uo := range [...]bool{false, true} {
		l := &s.ordered
		inPD, pdMID := in.PD, in.MID
		if uo {
			l, inPD, pdMID = &s.unordered, in.PDUO, in.MIDUO
		}
		abort := false
		var prev *Frag
		for f := l.head; f != nil; {
			m := f.MID
			isPD := inPD && m == pdMID
			start := f
			if isBegin(f) && !isPD {
				p, pos := f, stream.FSN(0)
				for !isEnd(p) && p.next != nil && p.next.MID == m && d.at(p.next, pos+1, f.TSN) {
					p, pos = p.next, pos+1
				}
				start = p.next
				if isEnd(p) {
					start = nil // complete
				}
			}
			end := f
			for end != nil && end.MID == m {
				end = end.next
			}
			dead := false
			for g := start; g != nil && g != end; g = g.next {
				if !newCum.LT(g.TSN) {
					dead = true
				}
			}
			switch {
			case dead && isPD:
				abort = true
			case dead:
				for g := f; g != end; {
					n := g.next
					d.unlinkOne(l, prev, g)
					d.unhold(g)
					d.pool.Put(g)
					g = n
				}
				f = end
				continue
			}
			for f != end {
				prev, f = f, f.next
			}
		}
		if abort {
			d.abortPD(s, in, uo)
		}
	}
}
