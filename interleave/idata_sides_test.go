package interleave

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// TestIDataSidesReleased checks that a stream's side object goes back to
// the stream table once the stream holds nothing, as with DATA, so a peer
// that sends one message on each of 65535 streams leaves at most
// keepIdleSides side objects behind (all 65535 would hold about 17 MB of
// uncharged heap), and that a stream released and taken again goes on
// from its In record's next MID.
func TestIDataSidesReleased(t *testing.T) {
	h := newIH(t, 65535, FSNRFC)
	tsn := chunk.TSN(1)
	for sid := range uint16(65535) {
		h.mustAdd(tsn, sid, 0, 0, B|E, "x")
		tsn++
		if sid%2 == 1 {
			h.mustAdd(tsn, sid, 0, 0, BU, "u")
			tsn++
		}
		h.read()
	}
	if n := h.tab.InSideCount(); n > keepIdleSides {
		t.Fatalf("%d side objects after every stream was read empty, want at most %d", n, keepIdleSides)
	}
	// Released streams go on from MID 1; MID 0 again is a duplicate.
	h.mustAdd(tsn, 30000, 1, 0, B|E, "again")
	if h.add(tsn+1, 30001, 0, 0, B|E, "dup") {
		t.Fatal("MID 0 on a released stream taken again")
	}
	h.want("30000/1:again")
	h.held(0)
	if n := h.tab.InSideCount(); n > keepIdleSides {
		t.Fatalf("%d side objects after a refused fragment, want at most %d", n, keepIdleSides)
	}
}

// TestIDataSidesKeptInPartialDelivery checks that a stream whose message
// is in partial delivery keeps its side object (the message's PPID and
// first TSN live there) even when every part that arrived was read, and
// that the later parts still carry the PPID.
func TestIDataSidesKeptInPartialDelivery(t *testing.T) {
	h := newIH(t, 65535, FSNRFC)
	tsn := chunk.TSN(1)
	for sid := range uint16(keepIdleSides + 10) {
		h.mustAdd(tsn, sid, 0, 0, B|E, "x")
		tsn++
	}
	h.read()
	const sid = 5000
	h.mustAdd(tsn, sid, 0, 77, B, "first")
	if !h.d.Partial() {
		t.Fatal("no partial delivery started")
	}
	if got := h.read(); len(got) != 1 || got[0] != "5000/0:first…" {
		t.Fatalf("read %q", got)
	}
	if h.d.streams.PeekInSide(sid) == nil {
		t.Fatal("side object of a stream in partial delivery released")
	}
	h.mustAdd(tsn+1, sid, 0, 1, 0, "-mid")
	h.mustAdd(tsn+2, sid, 0, 2, E, "-end")
	for f := h.d.Pop(); f != nil; f = h.d.Pop() {
		if f.PPID != 77 {
			t.Fatalf("part %q has PPID %d, want 77", f.Data, f.PPID)
		}
		h.d.Pool().Put(f)
	}
	h.d.sync() // the stream was listed dirty: its release waits for sync
	if h.d.streams.PeekInSide(sid) != nil {
		t.Fatal("side object kept after the partial delivery ended and the stream was read empty")
	}
}

// TestSidesReleasedAfterFragments checks, for DATA and I-DATA, that a peer
// sending a message of two fragments on each of 65535 streams, each read
// at once, leaves few side objects behind: a stream touched by a fragment
// waits in the dirty list, and the list is brought up to date (releasing
// the empty ones) once it is maxDirty long.
func TestSidesReleasedAfterFragments(t *testing.T) {
	const want = keepIdleSides + maxDirty
	t.Run("DATA", func(t *testing.T) {
		d, tab := newData(65535)
		h := harness{t: t, d: d}
		tsn := chunk.TSN(1)
		for sid := range uint16(65535) {
			if !h.add(tsn, sid, 0, B, "he") || !h.add(tsn+1, sid, 0, E, "llo") {
				t.Fatalf("fragments on stream %d refused", sid)
			}
			tsn += 2
			if got := h.messages(); len(got) != 1 || got[0] != "hello" {
				t.Fatalf("stream %d: read %q", sid, got)
			}
		}
		if n := tab.InSideCount(); n > want {
			t.Fatalf("%d side objects, want at most %d", n, want)
		}
	})
	t.Run("I-DATA", func(t *testing.T) {
		h := newIH(t, 65535, FSNRFC)
		tsn := chunk.TSN(1)
		for sid := range uint16(65535) {
			h.mustAdd(tsn, sid, 0, 0, B, "he")
			h.mustAdd(tsn+1, sid, 0, 1, E, "llo")
			tsn += 2
			h.read()
		}
		if n := h.tab.InSideCount(); n > want {
			t.Fatalf("%d side objects, want at most %d", n, want)
		}
	})
}

// TestIDataSidesReleasedAfterForward checks that the streams an
// I-FORWARD-TSN names, however many and with one named twice, keep no
// side object when they hold nothing afterwards, and that a skipped
// stream goes on from the MID after the skip.
func TestIDataSidesReleasedAfterForward(t *testing.T) {
	h := newIH(t, 65535, FSNRFC)
	tsn := chunk.TSN(1)
	// A held fragment on stream 7 and an unordered one on stream 8, both
	// dropped by the skips; stream 9 named twice.
	h.mustAdd(tsn, 7, 0, 0, B, "dead")
	h.mustAdd(tsn+1, 8, 3, 0, B|U, "dead")
	tsn += 2
	skips := []MIDSkip{{SID: 7, MID: 0}, {SID: 8, Unordered: true, MID: 3}, {SID: 9, MID: 4}, {SID: 9, Unordered: true, MID: 2}}
	for sid := uint16(100); sid < 1100; sid++ {
		skips = append(skips, MIDSkip{SID: sid, MID: stream.MID(sid)})
	}
	h.d.ForwardMID(tsn-1, skips)
	h.read() // the aborted markers, if any
	h.held(0)
	if n := h.tab.InSideCount(); n > keepIdleSides {
		t.Fatalf("%d side objects after an I-FORWARD-TSN over 1000 streams, want at most %d", n, keepIdleSides)
	}
	h.mustAdd(tsn, 9, 5, 0, B|E, "after")
	h.mustAdd(tsn+1, 1000, 1001, 0, B|E, "after")
	h.want("9/5:after", "1000/1001:after")
}
