package interleave

import (
	"testing"

	"github.com/usctp/usctp/stream"

	"github.com/usctp/usctp/sctp/chunk"
)

// checkCandidates compares the heaps, kept up to date as the streams
// change, with what looking at every stream gives now: the same streams,
// with the same keys, in heap order.
func checkCandidates(t *testing.T, q *delivery) {
	t.Helper()
	q.sync()
	if d, ok := q.keys.(*DataReassembler); ok {
		checkForwardHeap(t, d)
		for sid, s := range q.streams.InSides() {
			checkRuns(t, &s.ordered)
			checkRuns(t, &s.unordered)
			if d.pd == s {
				continue
			}
			for f := s.unordered.head; f != nil; f = f.next {
				if _, ok := walkRun(f); ok && f.Flags&chunk.FlagBeginning != 0 {
					t.Fatalf("stream %d: the complete unordered message from TSN %d was not delivered", sid, f.TSN)
				}
			}
		}
	}
	if d, ok := q.keys.(*IDataReassembler); ok {
		checkIForward(t, d)
	}
	for _, h := range []*candidates{&q.cands, &q.drops} {
		rule := q.keys.candidateKey
		if h == &q.drops {
			rule = q.keys.dropKey
		}
		n := 0
		for sid, s := range q.streams.InSides() {
			s.sid = sid
			key, ok := rule(s)
			in := h.in(s)
			if ok != in || (ok && key != h.key(s)) {
				t.Fatalf("heap %d, stream %d: %v key %d by looking at it, %v key %d in the heap", h.slot, sid, ok, key, in, h.key(s))
			}
			if ok {
				n++
			}
			// I-DATA's droppable key is an upper bound of the highest TSN
			// held (DATA's is exact, checked above).
			if _, idata := q.keys.(*IDataReassembler); !idata || h != &q.drops || !ok {
				continue
			}
			if _, f := highestHeld(s); key.LT(f.TSN) {
				t.Fatalf("stream %d: droppable key %d below the highest TSN held, %d", sid, key, f.TSN)
			}
		}
		if n != h.heap.Len() {
			t.Fatalf("heap %d: %d streams by looking at every stream, %d in the heap", h.slot, n, h.heap.Len())
		}
		for i := range h.heap.Len() {
			s := h.heap.At(i).Val
			if int(s.hat[h.slot]) != i+1 {
				t.Fatalf("heap %d: slot %d holds a stream that says %d", h.slot, i, s.hat[h.slot]-1)
			}
			if i > 0 && h.heap.At(i).Before(h.heap.At((i-1)/2)) {
				t.Fatalf("heap %d: order broken at %d", h.slot, i)
			}
		}
	}
}

// FuzzPartialCandidates drives either reassembler (the first byte: even
// DATA, odd I-DATA) with fragments, partial delivery starts, reneging,
// forward-TSNs, stream resets and reads, and checks after every step that
// the partial delivery candidates it keeps up to date are exactly those
// that looking at every stream finds (checkCandidates), and that Partial
// starts on the stream with the lowest key.
func FuzzPartialCandidates(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 2, 3, 0, 2, 1, 0, 2, 3, 4, 0, 5, 7, 1})
	f.Add([]byte{1, 0, 1, 0, 0, 2, 3, 0, 2, 1, 1, 6, 3, 4, 0, 5, 7, 1, 0, 3, 2, 1, 4, 4})
	f.Add([]byte{0, 0, 1, 1, 0, 6, 3, 0, 2, 2, 0, 2, 3, 0, 3, 1, 0, 2, 4, 4, 6, 7, 2, 3})
	// Ordered messages delivered on two streams, a first fragment held,
	// every stream reset (op 7, x%4 == 3), then messages numbered from 0.
	f.Add([]byte{0, 0, 1, 0, 0, 3, 0, 2, 1, 0, 3, 0, 3, 3, 1, 2, 7, 3, 0, 4, 0, 0, 3, 0, 5, 1, 0, 2, 7, 7})
	f.Add([]byte{1, 0, 1, 0, 0, 3, 0, 2, 1, 0, 3, 0, 3, 3, 1, 2, 7, 7, 0, 4, 0, 0, 3, 0, 5, 1, 0, 2, 7, 7})
	f.Fuzz(fuzzCandidates)
}

func fuzzCandidates(t *testing.T, in []byte) {
	{
		if len(in) == 0 {
			return
		}
		const streams = 6
		idata, conv := in[0]%2 == 1, FSNConvention(in[0]/2%3)
		in = in[1:]
		tab := stream.NewTable[struct{}, InSide](streams, streams)
		var r Reassembler
		var q *delivery
		if idata {
			d := NewIDataReassembler(tab, conv)
			r, q = d, &d.delivery
		} else {
			d := NewDataReassembler(tab)
			r, q = d, &d.delivery
		}
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		seen := map[chunk.TSN]bool{}
		// cum is the highest cumulative TSN the reassembler was told of
		// (forward-TSNs, SetCumulativeTSN): every TSN up to it arrived,
		// so the TSN map passes no fragment at or below it.
		var cum chunk.TSN
		cumOK := false
		raise := func(c chunk.TSN) {
			if !cumOK || cum.LT(c) {
				cum, cumOK = c, true
			}
		}
		for len(in) > 0 {
			switch op := next(); op % 8 {
			case 0, 1, 2, 3: // a fragment
				tsn := chunk.TSN(next() % 32)
				sid := uint16(next() % streams)
				sb := next()
				seq := sb % 4
				flags := next() & (chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered)
				if seen[tsn] || (cumOK && !cum.LT(tsn)) {
					continue
				}
				fr := r.Pool().Get([]byte{1, 2, 3})
				// I-DATA MIDs are sometimes far apart (sb's high bits).
				mid := stream.MID(seq) + hostileSpread[sb>>2%8]
				fr.TSN, fr.SID, fr.SSN, fr.MID, fr.FSN, fr.Flags = tsn, sid, stream.SSN(seq), mid, stream.FSN(op>>3)%3, flags
				if r.Add(fr) {
					seen[tsn] = true
				}
			case 4:
				q.sync()
				want := q.cands.min()
				if r.Partial() && want == nil {
					t.Fatal("Partial started one with no candidate")
				}
			case 5:
				after := chunk.TSN(next() % 32)
				want, any := chunk.TSN(0), false // the highest TSN held for reassembly above after, by looking at every stream
				for _, s := range tab.InSides() {
					for _, l := range []*fragList{&s.ordered, &s.unordered} {
						if d, ok := r.(*DataReassembler); ok && l == d.pdList {
							continue
						}
						for f := l.head; f != nil; f = f.next {
							if after.LT(f.TSN) && (!any || want.LT(f.TSN)) {
								want, any = f.TSN, true
							}
						}
					}
				}
				tsn, _, ok := r.DropHighest(after)
				if ok != any || tsn != want {
					t.Fatalf("DropHighest(%d) dropped %d (%v), the highest held above it is %d (%v)", after, tsn, ok, want, any)
				}
				if ok {
					delete(seen, tsn)
				}
			case 6:
				cum := chunk.TSN(next() % 32)
				raise(cum)
				sid, seq := uint16(next()%streams), next()%4
				if d, ok := r.(*IDataReassembler); ok {
					d.ForwardMID(cum, []MIDSkip{{SID: sid, MID: stream.MID(seq), Unordered: op&8 != 0}})
				} else {
					d := r.(*DataReassembler)
					before := forwardSeen(d)
					r.ForwardTSN(cum, []Skip{{SID: sid, SSN: stream.SSN(seq)}})
					checkForwardDropped(t, d, cum, before)
				}
			default:
				switch x := next(); x % 4 {
				case 0:
					r.Pop()
				case 1:
					r.PopStream(uint16(x/4) % streams)
				case 2: // a stream reset from outside the reassembler
					sid := uint16(x/4) % streams
					tab.In(sid).ResetSequence()
					r.Recheck(sid)
				default:
					if d, ok := r.(*IDataReassembler); ok && x/4%2 == 0 {
						raise(chunk.TSN(x % 32))
						d.SetCumulativeTSN(chunk.TSN(x % 32))
						break
					}
					// A reset of every stream (RFC 6525), done lazily:
					// every record must read as reset, and the heaps
					// (checkCandidates) as looking at every stream finds.
					r.ResetAll()
					for sid := range uint16(streams) {
						if in := tab.In(sid); in.MID != 0 || in.MIDUO != 0 || in.FSN != 0 || in.FSNUO != 0 || in.PD || in.PDUO {
							t.Fatalf("stream %d after ResetAll: %+v", sid, *in)
						}
					}
				}
			}
			checkCandidates(t, q)
			if d, ok := r.(*IDataReassembler); ok {
				checkIndex(t, d)
			}
		}
	}
}

// checkForwardHeap checks DATA's fwd heap: every stream holding a
// fragment above its fwdSeen is in it, keyed at or below the lowest such
// TSN, and the heap is in order.
func checkForwardHeap(t *testing.T, d *DataReassembler) {
	t.Helper()
	checkFwd(t, d.streams, &d.fwd)
}

// checkFwd checks a reassembler's fwd heap (see checkForwardHeap).
func checkFwd(t *testing.T, streams InStreams, fwd *candidates) {
	t.Helper()
	d := struct {
		streams InStreams
		fwd     *candidates
	}{streams, fwd}
	for sid, s := range d.streams.InSides() {
		for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
			for f := l.head; f != nil; f = f.next {
				if s.fwdOK && !s.fwdSeen.LT(f.TSN) {
					continue
				}
				if !d.fwd.in(s) {
					t.Fatalf("stream %d holds TSN %d above its fwdSeen %d (%v) but is not in the fwd heap", sid, f.TSN, s.fwdSeen, s.fwdOK)
				}
				if f.TSN.LT(d.fwd.key(s)) {
					t.Fatalf("stream %d holds TSN %d below its fwd key %d", sid, f.TSN, d.fwd.key(s))
				}
			}
		}
	}
	for i := range d.fwd.heap.Len() {
		s := d.fwd.heap.At(i).Val
		if int(s.hat[d.fwd.slot]) != i+1 || (i > 0 && d.fwd.heap.At(i).Before(d.fwd.heap.At((i-1)/2))) {
			t.Fatalf("fwd heap broken at %d", i)
		}
	}
}

// checkIForward checks I-DATA's fwd heap (as checkForwardHeap) and what
// applyCum leaves out of it: on a stream an I-FORWARD-TSN looked at
// (fwdSeen), applying that New Cumulative TSN again, as looking at every
// stream would, finds no dead message.
func checkIForward(t *testing.T, d *IDataReassembler) {
	t.Helper()
	checkFwd(t, d.streams, &d.fwd)
	for sid, s := range d.streams.InSides() {
		if !s.fwdOK || (d.fwd.in(s) && !s.fwdSeen.LT(d.fwd.key(s))) {
			continue // not looked at yet, or to be looked at again (cover)
		}
		s.sid = sid
		held, ready := d.Held(), d.Ready()
		d.applyCumTo(s, s.fwdSeen)
		if d.Held() != held || d.Ready() != ready {
			t.Fatalf("stream %d held a dead message at or below its fwdSeen %d: held %d -> %d, ready %d -> %d",
				sid, s.fwdSeen, held, d.Held(), ready, d.Ready())
		}
	}
}

// forwardSeen returns each stream's fwdSeen, if set.
func forwardSeen(d *DataReassembler) map[uint16]chunk.TSN {
	m := map[uint16]chunk.TSN{}
	for sid, s := range d.streams.InSides() {
		if s.fwdOK {
			m[sid] = s.fwdSeen
		}
	}
	return m
}

// checkForwardDropped checks, by looking at every fragment held, what
// ForwardTSN(newCum) must leave: no fragment at or below newCum (and above
// what an earlier ForwardTSN looked at, before) outside a complete message,
// except the rest of a message begun at or below before (kept then).
func checkForwardDropped(t *testing.T, d *DataReassembler, newCum chunk.TSN, before map[uint16]chunk.TSN) {
	t.Helper()
	for sid, s := range d.streams.InSides() {
		seen, had := before[sid]
		for _, l := range [...]*fragList{&s.ordered, &s.unordered} {
			inRun := false // f continues a complete message or a kept one
			var prev *Frag
			for f := l.head; f != nil; prev, f = f, f.next {
				cont := prev != nil && f.TSN == prev.TSN+1 && f.Flags&chunk.FlagBeginning == 0 && prev.Flags&chunk.FlagEnd == 0
				if f.Flags&chunk.FlagBeginning != 0 {
					_, inRun = walkRun(f)
				} else if !cont {
					inRun = false
				}
				if newCum.LT(f.TSN) || (had && !seen.LT(f.TSN)) || inRun {
					if had && !seen.LT(f.TSN) {
						inRun = true // kept earlier: its rest is kept too
					}
					continue
				}
				t.Fatalf("stream %d: TSN %d at or below the new cumulative TSN %d held outside a complete message", sid, f.TSN, newCum)
			}
		}
	}
}
