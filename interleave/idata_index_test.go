package interleave

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// checkIndex compares every I-DATA list of d with a simple model: the
// fragments sorted by (distance of the MID from the stream's next expected
// MID for ordered ones, grouped by MID for unordered ones; the first
// fragment first; then the FSN, read serially from the next one to
// deliver for a message in partial delivery). It also checks the list
// itself (count, tail) and, where the list has built its tree, that the
// tree holds the list in order, is a heap by priority and carries the
// right summaries; fragments outside a tree must have those fields clear
// (Off is the read offset once queued). The model only walks and sorts,
// sharing nothing with the index.
func checkIndex(t *testing.T, d *IDataReassembler) {
	t.Helper()
	for sid, s := range d.streams.InSides() {
		in := d.streams.In(sid)
		for _, uo := range []bool{false, true} {
			l := pdList(s, uo)
			var got []*Frag
			for f := l.head; f != nil; f = f.next {
				got = append(got, f)
			}
			if len(got) != l.n || (len(got) > 0 && l.tail != got[len(got)-1]) || (len(got) == 0 && l.tail != nil) {
				t.Fatalf("stream %d uo %v: list of %d, n %d, tail wrong", sid, uo, len(got), l.n)
			}
			inPD, pdMID, pdNext := in.PD, in.MID, in.FSN
			if uo {
				inPD, pdMID, pdNext = in.PDUO, in.MIDUO, in.FSNUO
			}
			fsnOf := func(f *Frag) uint32 {
				if inPD && f.MID == pdMID {
					return uint32(f.FSN - (pdNext - 1))
				}
				return uint32(f.FSN)
			}
			model := slices.Clone(got)
			cmpMID := func(a, b *Frag) int {
				if uo { // only grouping matters: any total order on MIDs
					return int(int64(a.MID) - int64(b.MID))
				}
				return int(int64(a.MID-in.MID) - int64(b.MID-in.MID))
			}
			slices.SortStableFunc(model, func(a, b *Frag) int {
				if c := cmpMID(a, b); c != 0 {
					return c
				}
				if ab, bb := isBegin(a), isBegin(b); ab != bb {
					if ab {
						return -1
					}
					return 1
				}
				return int(int64(fsnOf(a)) - int64(fsnOf(b)))
			})
			for i := range got {
				if !uo && got[i].MID-in.MID >= orderedWindow {
					t.Fatalf("stream %d: ordered MID %d held, next expected %d", sid, got[i].MID, in.MID)
				}
				if i > 0 && !l.ilt(got[i-1], got[i]) {
					t.Fatalf("stream %d uo %v: list not strictly in key order at %d", sid, uo, i)
				}
				if uo {
					continue // the model groups; the list's MID order is its own
				}
				if got[i] != model[i] {
					t.Fatalf("stream %d: list order differs from the model at %d: MID %d FSN %d, model MID %d FSN %d (next MID %d)",
						sid, i, got[i].MID, got[i].FSN, model[i].MID, model[i].FSN, in.MID)
				}
			}
			if uo { // the model's grouping: each MID's fragments together, B first, FSN order
				seen := map[stream.MID]bool{}
				for i, f := range got {
					if i > 0 && got[i-1].MID == f.MID {
						a := got[i-1]
						if isBegin(f) || (!isBegin(a) && fsnOf(a) >= fsnOf(f)) {
							t.Fatalf("stream %d unordered: message %d out of FSN order", sid, f.MID)
						}
						continue
					}
					if seen[f.MID] {
						t.Fatalf("stream %d unordered: message %d split", sid, f.MID)
					}
					seen[f.MID] = true
				}
			}
			// complete's caches (the list's run cursor, a first
			// fragment's run length) claim fragments in sequence: check
			// them against the list.
			posOf := func(f *Frag) stream.FSN {
				if d.conv == FSNLinux {
					return f.FSN + 1
				}
				return f.FSN
			}
			inSeq := func(h *Frag, n stream.FSN) *Frag {
				f := h
				for p := stream.FSN(1); p <= n; p++ {
					if f.next == nil || f.next.MID != h.MID || isBegin(f.next) || posOf(f.next) != p {
						t.Fatalf("stream %d uo %v: message %d claimed in sequence to %d, not at %d", sid, uo, h.MID, n, p)
					}
					f = f.next
				}
				return f
			}
			for i, f := range got {
				if isBegin(f) && f.FSN != 0 && (i == 0 || got[i-1].MID != f.MID) {
					inSeq(f, f.FSN)
				}
				if f.Flags&flagTail != 0 {
					// A known run from f to the position in its PPID.
					if isBegin(f) {
						t.Fatalf("stream %d uo %v: flagTail on a first fragment", sid, uo)
					}
					g, end := f, stream.FSN(f.PPID)
					for p := posOf(f); p != end; p++ {
						if isEnd(g) || g.next == nil || g.next.MID != f.MID || isBegin(g.next) || posOf(g.next) != p+1 {
							t.Fatalf("stream %d uo %v: message %d claimed in sequence from %d to %d, not at %d", sid, uo, f.MID, posOf(f), end, p+1)
						}
						g = g.next
					}
				}
			}
			if l.run != nil {
				var h *Frag
				for _, f := range got {
					if f.MID == l.runMID && isBegin(f) {
						h = f
					}
				}
				if h == nil || inSeq(h, l.runPos) != l.run {
					t.Fatalf("stream %d uo %v: run cursor of message %d wrong", sid, uo, l.runMID)
				}
			}
			if !l.tree {
				if l.root != nil {
					t.Fatalf("stream %d uo %v: a root without a tree", sid, uo)
				}
				for _, f := range got {
					if f.gprev != nil || f.gnext != nil || f.Off != 0 || f.SSN != 0 || f.tbits != 0 || f.tlo != 0 || f.FirstTSN != 0 {
						t.Fatalf("stream %d uo %v: fragment outside a tree with tree fields set: %+v", sid, uo, *f)
					}
				}
				continue
			}
			var walk []*Frag
			var visit func(x *Frag) (hi chunk.TSN, lo chunk.TSN, has bool)
			visit = func(x *Frag) (chunk.TSN, chunk.TSN, bool) {
				hi, lo, has := x.TSN, chunk.TSN(0), isBegin(x)
				// The other summaries, from the children's (each checked
				// when visited).
				pend, judged := x.Flags&flagJudged == 0, x.Flags&flagJudged != 0
				tail := x.Flags&flagTail != 0
				low := x.TSN
				for _, c := range []*Frag{x.gprev, x.gnext} {
					if c == nil {
						continue
					}
					judged = judged || c.tbits&sumJudged != 0
					tail = tail || c.tbits&sumTail != 0
					if c.tbits&sumPending != 0 && (!pend || lowTSN(c).LT(low)) {
						low, pend = lowTSN(c), true
					}
				}
				if (x.tbits&sumPending != 0) != pend || (pend && lowTSN(x) != low) || (x.tbits&sumJudged != 0) != judged || (x.tbits&sumTail != 0) != tail {
					t.Fatalf("stream %d uo %v: summaries of what I-FORWARD-TSNs looked at wrong at TSN %d", sid, uo, x.TSN)
				}
				if has {
					lo = x.TSN
				}
				if x.gprev != nil {
					if prio(x.gprev.TSN) > prio(x.TSN) {
						t.Fatalf("stream %d uo %v: heap order broken", sid, uo)
					}
					h, o, ok := visit(x.gprev)
					if hi.LT(h) {
						hi = h
					}
					if ok && (!has || o.LT(lo)) {
						lo, has = o, true
					}
				}
				walk = append(walk, x)
				if x.gnext != nil {
					if prio(x.gnext.TSN) > prio(x.TSN) {
						t.Fatalf("stream %d uo %v: heap order broken", sid, uo)
					}
					h, o, ok := visit(x.gnext)
					if hi.LT(h) {
						hi = h
					}
					if ok && (!has || o.LT(lo)) {
						lo, has = o, true
					}
				}
				if x.FirstTSN != hi || (x.tbits&sumBegin != 0) != has || (has && chunk.TSN(uint32(x.Off)) != lo) {
					t.Fatalf("stream %d uo %v: summaries of TSN %d wrong", sid, uo, x.TSN)
				}
				return hi, lo, has
			}
			if l.root != nil {
				visit(l.root)
			}
			if !slices.Equal(walk, got) {
				t.Fatalf("stream %d uo %v: tree holds %d fragments, not the list's %d in order", sid, uo, len(walk), len(got))
			}
		}
	}
}

// RFC 8260 section 2.1: "the sender MUST NOT have more than 2**31 - 1
// ordered messages for each outgoing stream in flight". So an ordered MID
// at or beyond 2^31 ahead of the next expected one cannot come from a
// conforming peer, and serial arithmetic cannot place it (exactly 2^31 is
// undefined, beyond reads as behind): the reassembler refuses it and
// counts it, as it refuses a MID already delivered (the receiver answers
// with ABORT, protocol violation). MIDs up to 2^31 - 1 ahead are held in
// their place, across the wrap.
func TestIDataOrderedMIDWindow(t *testing.T) {
	const next = 0x7FFFFFF0 // the window [next, next+2^31) crosses 2^32
	h := newIH(t, 1, FSNRFC)
	h.tab.In(0).MID = next
	for _, mid := range []stream.MID{next + 1<<31, next + 1<<31 + 1, next - 1, next + 3<<30 - 1<<32} {
		if h.add(chunk.TSN(mid), 0, mid, 0, B|E, "x") {
			t.Fatalf("MID %#x accepted with %#x next", mid, next)
		}
	}
	if h.d.MIDRefused() != 4 {
		t.Fatalf("MIDRefused %d, want 4", h.d.MIDRefused())
	}
	// Held in serial order from next, whatever order they come in.
	mids := []stream.MID{next + 1<<31 - 1, next + 1<<30, next + 1, next + 1<<31 - 2, next + 0x10, next + 1<<30 + 1}
	for i, mid := range mids {
		h.mustAdd(chunk.TSN(100+i), 0, mid, 0, B|E, "m")
		checkIndex(t, h.d)
	}
	h.want()
	var got []stream.MID
	for f := h.tab.InSide(0).ordered.head; f != nil; f = f.next {
		got = append(got, f.MID)
	}
	want := slices.Clone(mids)
	slices.SortFunc(want, func(a, b stream.MID) int { return int(int64(a-next) - int64(b-next)) })
	if !slices.Equal(got, want) {
		t.Fatalf("held MIDs %#x, want %#x", got, want)
	}
	if h.d.MIDRefused() != 4 {
		t.Fatalf("MIDRefused %d after valid MIDs", h.d.MIDRefused())
	}
	h.mustAdd(99, 0, next, 0, B|E, "n")
	h.want("0/2147483632:n", "0/2147483633:m")
	if h.add(98, 0, next+1, 0, B|E, "n") || h.d.MIDRefused() != 5 {
		t.Fatalf("a delivered MID: MIDRefused %d", h.d.MIDRefused())
	}
	checkIndex(t, h.d)
}

// A stream's next expected MID can move far from its ordered list's base
// while the list holds fragments (I-FORWARD-TSN skips, RFC 8260 section
// 2.3.1; a long-lived association): the list is rebased before a MID whose
// distance from the old base would wrap is placed, so the order stays that
// of serial arithmetic from the next expected MID.
func TestIDataOrderedRebase(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.mustAdd(10, 0, 10, 0, B, "a")       // base 0
	h.mustAdd(11, 0, 1<<31-50, 0, B, "b") // far ahead, still in the window
	h.d.ForwardMID(1, []MIDSkip{{SID: 0, MID: 1<<31 - 100}})
	checkIndex(t, h.d)
	h.mustAdd(12, 0, 1<<32-120, 0, B, "c") // 2^31 - 21 ahead of 2^31 - 99
	h.d.ForwardMID(1, []MIDSkip{{SID: 0, MID: 1<<32 - 159}})
	if next := h.tab.In(0).MID; next != 1<<32-158 {
		t.Fatalf("next MID %d", next)
	}
	checkIndex(t, h.d)
	h.mustAdd(13, 0, 5, 0, B, "d") // 163 ahead: after c, though 5 < c's distance from the old base
	checkIndex(t, h.d)
	l := &h.tab.InSide(0).ordered
	if l.base != 1<<32-158 || l.head.MID != 1<<32-120 || l.tail.MID != 5 {
		t.Fatalf("base %d, head MID %d, tail MID %d", l.base, l.head.MID, l.tail.MID)
	}
	h.held(2)
}

// A stream reset (RFC 6525) makes the next expected MID 0 again outside
// the reassembler; Recheck rebases the ordered list on it and drops what
// is held of MIDs serially before it (they can never be delivered now).
func TestIDataResetRebase(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.tab.In(0).MID = 1 << 31
	for i, mid := range []stream.MID{1<<31 + 5, 1<<31 + 1<<30, 1<<32 - 2, 1<<31 + 9} {
		h.mustAdd(chunk.TSN(10+i), 0, mid, 0, B, "x")
	}
	h.tab.In(0).ResetSequence()
	h.d.Recheck(0)
	checkIndex(t, h.d)
	// 2^32 - 2 is 2 behind 0; the others are 2^31 or more "ahead", which
	// serial arithmetic reads as behind too.
	h.held(0)
	h.mustAdd(20, 0, 1, 0, B|E, "b")
	h.mustAdd(21, 0, 0, 0, B|E, "a")
	h.want("0/0:a", "0/1:b")
}

// ResetAll (a reset of every stream, RFC 6525 section 5.2.2 with no
// stream listed, or an SSN/TSN reset) rebases the ordered lists of the
// streams it resets as Recheck does: a fragment of MID 2^31 + 1, held
// while 3 was the next expected, is behind the new next expected 0 and
// dropped; MID 5 stays, in order from 0.
func TestIDataResetAllRebase(t *testing.T) {
	h := newIH(t, 2, FSNRFC)
	for i := range 3 {
		h.mustAdd(chunk.TSN(1+i), 0, stream.MID(i), 0, B|E, "m")
	}
	h.read()
	h.mustAdd(10, 0, 1<<31+1, 0, B, "x")
	h.mustAdd(11, 0, 5, 0, B|E, "y")
	h.mustAdd(12, 1, 3, 0, B|E, "z") // stream 1, never used: next expected 0
	h.held(3)
	h.d.ResetAll()
	checkIndex(t, h.d)
	h.held(2)
	if l := &h.tab.InSide(0).ordered; l.base != 0 {
		t.Fatalf("stream 0's ordered list based on MID %d after the reset", l.base)
	}
	for i := range 5 {
		h.mustAdd(chunk.TSN(20+i), 0, stream.MID(i), 0, B|E, "n")
	}
	h.want("0/0:n", "0/1:n", "0/2:n", "0/3:n", "0/4:n", "0/5:y")
}

// RFC 8260 section 2.1: "Note that the FSN MAY wrap completely multiple
// times, thus allowing arbitrarily large user messages." Fragments of a
// message in partial delivery held across the FSN wrap, coming in any
// order, are kept in FSN order from the next one to deliver (the keys are
// rebased, see rekeyPD) and delivered in that order.
func TestIDataFSNWrapHeldOutOfOrder(t *testing.T) {
	for _, conv := range []FSNConvention{FSNRFC, FSNLinux} {
		h := newIH(t, 1, conv)
		h.mustAdd(1, 0, 7, 0, B, "s")
		h.tab.In(0).MID = 7
		if !h.d.Partial() {
			t.Fatal("no partial delivery")
		}
		h.read()
		in := h.tab.In(0)
		start := stream.FSN(1<<32 - 300)
		in.FSN = start // pretend 2^32 - 301 fragments went by
		const n = 600
		perm := rand.New(rand.NewPCG(3, uint64(conv))).Perm(n)
		for i, k := range perm {
			if k == 0 {
				continue // the next one comes last
			}
			fsn := uint32(start) + uint32(k)
			if conv == FSNLinux {
				fsn--
			}
			flags := uint8(0)
			if k == n-1 {
				flags = E
			}
			h.mustAdd(chunk.TSN(10+i), 0, 7, fsn, flags, "y")
			checkIndex(t, h.d)
		}
		h.want()
		fsn := uint32(start)
		if conv == FSNLinux {
			fsn--
		}
		h.mustAdd(5, 0, 7, fsn, 0, "y")
		got := h.read()
		if want := "0/7:" + strings.Repeat("y", n); len(got) != 1 || got[0] != want {
			t.Fatalf("%v: read %d messages %.40q", conv, len(got), got)
		}
		if in.PD || in.MID != 8 || h.tab.InSide(0).ordered.fbase != 0 {
			t.Fatalf("%v: after the end: PD %v MID %d fbase %d", conv, in.PD, in.MID, h.tab.InSide(0).ordered.fbase)
		}
		h.held(0)
	}
}

// The in-order fast path does no tree work: messages of several fragments
// arriving in order, ordered and unordered, never make a list build its
// tree (see idata_index.go).
func TestIDataInOrderNoTree(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	tsn := chunk.TSN(1)
	for m := range stream.MID(50) {
		for _, uo := range []uint8{0, U} {
			for k := range uint32(4) {
				flags := uo
				switch k {
				case 0:
					flags |= B
				case 3:
					flags |= E
				}
				h.mustAdd(tsn, 0, m, k, flags, "z")
				tsn++
				s := h.tab.InSide(0)
				if s.ordered.tree || s.unordered.tree {
					t.Fatalf("message %d fragment %d: a tree was built", m, k)
				}
			}
		}
	}
	if got := h.read(); len(got) != 100 {
		t.Fatalf("read %d messages", len(got))
	}
}

// DropHighest and Partial's choice among unordered messages find their
// fragment through the tree's summaries (highest TSN, lowest TSN of a
// first fragment); compared here with a walk over thousands of fragments
// held in random order.
func TestIDataIndexSummaries(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	rng := rand.New(rand.NewPCG(5, 6))
	tsns := rng.Perm(4000)
	for i, k := range tsns {
		uo := uint8(0)
		if i%2 == 1 {
			uo = U
		}
		mid := stream.MID(1 + rng.IntN(300)) // ordered message 0 never comes
		flags := uo
		fsn := uint32(1 + rng.IntN(1000))
		if rng.IntN(4) == 0 {
			flags |= B
		}
		h.add(chunk.TSN(1000+k), 0, mid, fsn, flags, "q") // duplicates refused
	}
	checkIndex(t, h.d)
	s := h.tab.InSide(0)
	walkMin := func() *Frag {
		var best *Frag
		for f := s.unordered.head; f != nil; f = f.next {
			if isBegin(f) && (best == nil || f.TSN.LT(best.TSN)) {
				best = f
			}
		}
		return best
	}
	if got, want := s.unordered.iminBegin(), walkMin(); got != want {
		t.Fatalf("lowest unordered first fragment %v, want %v", got, want)
	}
	for range 500 {
		var want chunk.TSN
		for _, l := range []*fragList{&s.ordered, &s.unordered} {
			for f := l.head; f != nil; f = f.next {
				if want.LT(f.TSN) {
					want = f.TSN
				}
			}
		}
		got, _, ok := h.d.DropHighest(0)
		if !ok || got != want {
			t.Fatalf("DropHighest dropped %d (%v), the highest held is %d", got, ok, want)
		}
	}
	checkIndex(t, h.d)
	if got, want := s.unordered.iminBegin(), walkMin(); got != want {
		t.Fatalf("after drops: lowest unordered first fragment %v, want %v", got, want)
	}
}

// The completeness walk resumes where it stopped (see complete), which is
// right only while what it passed stays: a fragment of the run reneged
// (RFC 9260 section 6.2: "the receiver SHOULD drop the largest TSN held for
// reordering") makes the message incomplete again, and a later end must
// not complete it over the hole.
func TestIDataRunForgottenOnRenege(t *testing.T) {
	for _, cursor := range []bool{true, false} {
		h := newIH(t, 2, FSNRFC)
		h.mustAdd(1, 0, 0, 0, B, "<")
		for p := uint32(1); p <= 11; p++ {
			tsn := chunk.TSN(1 + p)
			if p == 5 {
				tsn = 100 // the highest TSN: the one reneging drops
			}
			h.mustAdd(tsn, 0, 0, p, 0, "x")
		}
		if !cursor {
			// Another message of the list walked since: stream 0's
			// cursor is elsewhere, the run length in the first fragment
			// is what a walk would resume from.
			h.mustAdd(50, 0, 1, 0, B, "o")
			h.mustAdd(51, 0, 1, 1, 0, "o")
		}
		checkIndex(t, h.d)
		if tsn, _, ok := h.d.DropHighest(0); !ok || tsn != 100 {
			t.Fatalf("DropHighest dropped %d %v", tsn, ok)
		}
		checkIndex(t, h.d)
		h.mustAdd(20, 0, 0, 12, E, ">")
		h.want()
		h.mustAdd(101, 0, 0, 5, 0, "y")
		h.want("0/0:<xxxxyxxxxxx>")
		checkIndex(t, h.d)
	}
}

// A stream reset to the MID its ordered list is based on (the list was
// started when the next expected MID was 0, and has not drifted far enough
// to be rebased since) still drops what is held of MIDs that 0 reads as
// behind it: accepted when the next expected MID was 2^30 - 1, MID 2^31 +
// 5 is 2^31 + 5 past 0.
func TestIDataResetToBaseDropsBehind(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.mustAdd(10, 0, 1<<30+3, 0, B, "x") // based on 0
	h.tab.In(0).MID = 1<<30 - 1
	h.mustAdd(11, 0, 1<<31+5, 0, B, "y")
	if h.add(12, 0, 7, 0, B, "z") {
		t.Fatal("MID 7, behind 2^30 - 1, accepted")
	}
	if l := &h.tab.InSide(0).ordered; l.base != 0 || l.n != 2 {
		t.Fatalf("base %d, %d held", l.base, l.n)
	}
	h.tab.In(0).ResetSequence()
	h.d.Recheck(0)
	checkIndex(t, h.d)
	h.held(1) // 2^30 + 3 stays, less than 2^31 past 0
	h.mustAdd(13, 0, 0, 0, B|E, "a")
	h.want("0/0:a")
}

// TestIDataRenegeRelooksOnlyItsMessage: reneging a fragment sends its
// stream to the next I-FORWARD-TSN only when a fragment of the same message
// was looked at already (it may now lie past its run: see cover);
// otherwise the stream keeps no key at all, and a later fragment of such
// a message that is now out of sequence is still found dead.
func TestIDataRenegeRelooksOnlyItsMessage(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	for i := range 20 {
		h.mustAdd(chunk.TSN(i+1), 0, stream.MID(i+1), 1, B, "x") // MID 0 never comes
	}
	// Message 50: first fragment and FSN 2 at or below the New Cumulative
	// TSN, FSN 1 above it (a peer numbering out of TSN order).
	h.mustAdd(21, 0, 50, 1, B, "x")
	h.mustAdd(22, 0, 50, 2, 0, "x")
	h.mustAdd(30, 0, 50, 1, 0, "x")
	h.d.ForwardMID(22, nil)
	s := h.tab.InSide(0)
	if h.d.Held() != 23 {
		t.Fatalf("%d bytes held after the first look, want 23", h.d.Held())
	}
	// A whole message's only fragment reneged: nothing to look at again.
	h.mustAdd(40, 0, 60, 1, B, "x")
	if tsn, _, ok := h.d.DropHighest(22); !ok || tsn != 40 {
		t.Fatalf("DropHighest dropped %d, %v; want TSN 40", tsn, ok)
	}
	if h.d.fwd.in(s) && h.d.fwd.key(s) == s.fwdSeen {
		t.Fatal("reneging a lone first fragment sent its stream to the next look")
	}
	// FSN 1 of message 50 reneged: FSN 2 (TSN 22, looked at) is past the
	// run now, so the next I-FORWARD-TSN finds message 50 dead.
	if tsn, _, ok := h.d.DropHighest(22); !ok || tsn != 30 {
		t.Fatalf("DropHighest dropped %d, %v; want TSN 30", tsn, ok)
	}
	if !h.d.fwd.in(s) || s.fwdSeen.LT(h.d.fwd.key(s)) {
		t.Fatal("reneging a fragment with a looked-at one after it left the stream out of the next look")
	}
	h.d.ForwardMID(23, nil)
	if h.d.Held() != 20 {
		t.Fatalf("%d bytes held, want 20: message 50 is dead", h.d.Held())
	}
	checkIndex(t, h.d)
}
