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
	conv := d.conv
	d.applyCum(newCum)
	for _, k := range skips {
		d.skip(MIDSkip{SID: k.SID, MID: stream.MID(k.SSN)})
	}
	d.deliverVisited(d.conv != conv)
}

// ForwardMID applies an I-FORWARD-TSN whose entries were validated
// (ParseIForwardTSN), following RFC 8260 section 2.3.2 and RFC 3758
// section 3.6: incomplete messages that newCum proves dead are dropped
// (see applyCum); an ordered entry makes its stream skip past MID, ending a
// partial delivery of a skipped message and delivering what the skip
// unblocks; an unordered entry ends the partial delivery of a skipped
// unordered message and drops what is held of skipped ones. Each partial
// delivery ended queues a FlagAborted marker.
//
// Its work is bounded by the chunk's entries and the fragments that arrived
// since an earlier I-FORWARD-TSN, not by the streams in use.
func (d *IDataReassembler) ForwardMID(newCum chunk.TSN, skips []MIDSkip) {
	d.visit = d.visit[:0]
	conv := d.conv
	for _, k := range skips {
		d.skip(k)
	}
	d.applyCum(newCum)
	d.deliverVisited(d.conv != conv)
}

// deliverVisited delivers what became deliverable on the streams an
// I-FORWARD-TSN changed (d.visit). An I-FORWARD-TSN only takes fragments
// away, so no unordered message can have become complete unless the FSN
// convention was decided meanwhile (conv): otherwise only the ordered
// messages next in line and an unordered partial delivery are looked at.
func (d *IDataReassembler) deliverVisited(conv bool) {
	for i, s := range d.visit {
		if conv || d.fullFwd {
			d.deliver(s)
		} else {
			in := d.in(s)
			d.deliverOrdered(s, in)
			if in.PDUO {
				d.continuePD(s, in, &s.unordered, true)
			}
		}
		d.touch(s)
		d.visit[i] = nil
		d.visitSIDs = append(d.visitSIDs, s.sid)
	}
	d.visit = d.visit[:0]
	// A stream the I-FORWARD-TSN left empty needs no side object; one
	// listed twice must be looked up again once the first release ran.
	for _, sid := range d.visitSIDs {
		d.releaseSID(sid)
	}
	d.visitSIDs = d.visitSIDs[:0]
}

// abortPD ends the partial delivery on (sid, unordered) and drops the held
// fragments of its message.
func (d *IDataReassembler) abortPD(s *InSide, in *stream.In, unordered bool) {
	if unordered {
		d.pushAborted(s, chunk.FlagUnordered, in.MIDUO)
		d.dropSpan(s, &s.unordered, in.MIDUO, in.MIDUO)
		in.PDUO, in.MIDUO, in.FSNUO = false, 0, 0
	} else {
		d.pushAborted(s, 0, in.MID)
		d.dropSpan(s, &s.ordered, in.MID, in.MID)
		in.PD, in.FSN = false, 0
		in.MID = in.MID.Next()
	}
	d.unkeyPD(s, pdList(s, unordered))
	endPD(s, unordered)
}

// pushAborted queues the FlagAborted marker of a message of s in partial
// delivery.
func (d *IDataReassembler) pushAborted(s *InSide, flags uint8, mid stream.MID) {
	m := d.pool.Get(nil)
	d.hold(s, m) // no user bytes, but memory
	m.SID, m.MID, m.Flags = s.sid, mid, flags|FlagAborted
	d.push(s, m, pdOf(s, flags&chunk.FlagUnordered != 0).firstTSN)
}

// dropSpan drops the fragments of l whose MID lies from lo to hi in l's
// key order (distance from l's base, see idata_index.go): they are
// together in the list, found through its tree, so it costs O(log n) in
// the fragments held plus O(log n) per fragment dropped.
func (d *IDataReassembler) dropSpan(s *InSide, l *fragList, lo, hi stream.MID) {
	width := hi - lo
	prev, g := l.iseek(lo)
	for g != nil && g.MID-lo <= width && g.MID-l.base >= lo-l.base {
		n := g.next
		l.iunlink(prev, g) // its whole message goes: no run to forget
		d.unhold(s, g)
		d.pool.Put(g)
		g = n
	}
}

// dropUnorderedUpTo drops the fragments of s's unordered list whose MID
// is serially at or before mid (RFC 1982: less than 2^31 behind it): one
// span of the list's order, or two when it passes the list's base (see
// dropCircular).
func (d *IDataReassembler) dropUnorderedUpTo(s *InSide, mid stream.MID) {
	d.dropCircular(s, &s.unordered, mid-(1<<31-1), mid)
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
		d.dropUnorderedUpTo(s, k.MID)
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
		d.unhold(s, h)
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
// Fragments an I-FORWARD-TSN looked at carry flagJudged and stay in
// sequence or are covered (see cover), so only unjudged fragments at or
// below newCum can show a message dead. The streams holding one come from
// the fwd heap, and within a stream they are found through the lists'
// trees (see judge and lowPending). Each fragment is looked at on arrival
// and again at most once per cover: O(log n) per fragment, paid for by its
// arrival or by the change that covered it, whatever else is held.
//
// A New Cumulative TSN below one applied before (a stale I-FORWARD-TSN)
// proves nothing dead the earlier one did not, and is not applied; this
// keeps every judged fragment at or below fwdMax.
func (d *IDataReassembler) applyCum(newCum chunk.TSN) {
	if d.fwdAny && newCum.LT(d.fwdMax) {
		return
	}
	d.fwdMax, d.fwdAny = newCum, true
	for {
		s := d.fwd.min()
		if s == nil || newCum.LT(d.fwd.key(s)) {
			return
		}
		d.fwd.remove(s)
		d.visit = append(d.visit, s)
		if d.fullFwd {
			d.applyCumTo(s, newCum)
			s.ordered.rejudge(newCum)
			s.unordered.rejudge(newCum)
		} else {
			d.applyCumAbove(s, newCum)
		}
		s.fwdSeen, s.fwdOK = newCum, true
		d.fwdRekey(s)
	}
}

// fwdRekey puts s in the fwd heap keyed by the lowest TSN it holds of a
// fragment no I-FORWARD-TSN looked at, if any: the summary at the root of
// each list's tree (see idata_index.go), or a walk of a short list.
func (d *IDataReassembler) fwdRekey(s *InSide) {
	var key chunk.TSN
	ok := false
	for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
		if t, found := l.lowPending(); found && (!ok || t.LT(key)) {
			key, ok = t, true
		}
	}
	d.fwd.set(s, key, ok)
}

// lowPending returns the lowest TSN of a fragment of I-DATA list l that no
// I-FORWARD-TSN looked at, if any.
func (l *fragList) lowPending() (chunk.TSN, bool) {
	if l.head == nil {
		return 0, false
	}
	if !l.tree && l.n <= smallWalk {
		var low chunk.TSN
		ok := false
		for f := l.head; f != nil; f = f.next {
			if f.Flags&flagJudged == 0 && (!ok || f.TSN.LT(low)) {
				low, ok = f.TSN, true
			}
		}
		return low, ok
	}
	l.ibuild()
	if l.root.tbits&sumPending == 0 {
		return 0, false
	}
	return lowTSN(l.root), true
}

// judge appends to dst, in key order, the fragments of I-DATA list l that
// no I-FORWARD-TSN looked at with a TSN at or below upTo, and marks them
// judged. A list longer than smallWalk is searched through its tree, whose
// summaries let it pass over subtrees with none: O((k+1) log n) for k
// fragments found among n.
func (l *fragList) judge(upTo chunk.TSN, dst []*Frag) []*Frag {
	if l.head == nil {
		return dst
	}
	if !l.tree && l.n <= smallWalk {
		for f := l.head; f != nil; f = f.next {
			if f.Flags&flagJudged == 0 && !upTo.LT(f.TSN) {
				f.Flags |= flagJudged
				dst = append(dst, f)
			}
		}
		return dst
	}
	l.ibuild()
	return judgeTree(l.root, upTo, dst)
}

func judgeTree(x *Frag, upTo chunk.TSN, dst []*Frag) []*Frag {
	if x == nil || x.tbits&sumPending == 0 || upTo.LT(lowTSN(x)) {
		return dst
	}
	dst = judgeTree(x.gprev, upTo, dst)
	if x.Flags&flagJudged == 0 && !upTo.LT(x.TSN) {
		x.Flags |= flagJudged
		dst = append(dst, x)
	}
	dst = judgeTree(x.gnext, upTo, dst)
	fix(x)
	return dst
}

// rejudge marks the fragments of I-DATA list l looked at (flagJudged)
// when their TSN is at or below upTo and not looked at otherwise, after
// applyCumTo looked at all of them against upTo: O(n), as that look.
func (l *fragList) rejudge(upTo chunk.TSN) {
	for f := l.head; f != nil; f = f.next {
		if upTo.LT(f.TSN) {
			f.Flags &^= flagJudged
		} else {
			f.Flags |= flagJudged
		}
	}
	if l.tree {
		refix(l.root)
	}
}

// fwdMsg is a message applyCumAbove found a fragment of at or below the
// New Cumulative TSN: its MID and the key of the last such fragment in the
// list's order.
type fwdMsg struct {
	last Frag // MID, FSN and Flags only, compared with ilt
}

// applyCumAbove is applyCumTo on stream s looking only at the unjudged
// fragments (see applyCum). A message is dead when an unjudged fragment of
// it at or below newCum lies past the run in sequence from its first
// fragment (or its first fragment is not held, or it is in partial
// delivery). Such fragments are found through the trees (see judge) and a
// message's run through complete: O(log n) per fragment plus what is
// dropped.
func (d *IDataReassembler) applyCumAbove(s *InSide, newCum chunk.TSN) {
	in := d.in(s)
	for _, uo := range [...]bool{false, true} {
		l := &s.ordered
		inPD, pdMID := in.PD, in.MID
		if uo {
			l, inPD, pdMID = &s.unordered, in.PDUO, in.MIDUO
		}
		d.scan = l.judge(newCum, d.scan[:0])
		d.examined += uint64(len(d.scan))
		d.dead = d.dead[:0]
		for _, f := range d.scan {
			if n := len(d.dead); n > 0 && d.dead[n-1].last.MID == f.MID {
				d.dead = d.dead[:n-1] // keep the last in key order
			}
			d.dead = append(d.dead, fwdMsg{last: Frag{MID: f.MID, FSN: f.FSN, Flags: f.Flags}})
		}
		clear(d.scan)
		abort := false
		for i := range d.dead {
			m := &d.dead[i].last
			if inPD && m.MID == pdMID {
				abort = true
				continue
			}
			_, h := l.iseek(m.MID)
			if h == nil || h.MID != m.MID {
				continue
			}
			if isBegin(h) {
				last, complete := d.complete(l, h)
				if complete || !l.ilt(last, m) {
					continue // in sequence from the first fragment
				}
			}
			d.dropSpan(s, l, m.MID, m.MID)
		}
		if abort {
			d.abortPD(s, in, uo)
		}
	}
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
			d.examined++
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
					d.unhold(s, g)
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
