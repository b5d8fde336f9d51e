package interleave

import (
	"fmt"
	"strings"
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// ih drives an IDataReassembler in tests.
type ih struct {
	t   testing.TB
	d   *IDataReassembler
	tab *stream.Table[struct{}, InSide]
}

func newIH(t testing.TB, streams uint16, conv FSNConvention) *ih {
	tab := stream.NewTable[struct{}, InSide](streams, streams)
	return &ih{t: t, d: NewIDataReassembler(tab, conv), tab: tab}
}

// frag flags shorthands.
const (
	B  = chunk.FlagBeginning
	E  = chunk.FlagEnd
	U  = chunk.FlagUnordered
	BU = chunk.FlagBeginning | chunk.FlagEnd | chunk.FlagUnordered
)

// add adds a fragment; fsn is the value on the wire (ignored with B, where
// ppid is taken from it instead).
func (h *ih) add(tsn chunk.TSN, sid uint16, mid stream.MID, fsn uint32, flags uint8, data string) bool {
	f := h.d.Pool().Get([]byte(data))
	f.TSN, f.SID, f.MID, f.Flags = tsn, sid, mid, flags
	if flags&chunk.FlagBeginning != 0 {
		f.PPID = fsn
	} else {
		f.FSN = stream.FSN(fsn)
	}
	return h.d.Add(f)
}

func (h *ih) mustAdd(tsn chunk.TSN, sid uint16, mid stream.MID, fsn uint32, flags uint8, data string) {
	h.t.Helper()
	if !h.add(tsn, sid, mid, fsn, flags, data) {
		h.t.Fatalf("fragment TSN %d (sid %d mid %d fsn %d) rejected", tsn, sid, mid, fsn)
	}
}

// read pops everything ready and returns it as "sid/mid:data" per message,
// parts of one message joined; an unfinished message ends in "…". Parts
// of messages in partial delivery may interleave: they are joined per
// message, in the order each message started.
func (h *ih) read() []string {
	type key struct {
		sid uint16
		uo  bool
		mid stream.MID
	}
	var order []key
	parts := map[key]*strings.Builder{}
	done := map[key]bool{}
	for f := h.d.Pop(); f != nil; f = h.d.Pop() {
		k := key{f.SID, f.Flags&chunk.FlagUnordered != 0, f.MID}
		b, ok := parts[k]
		if !ok {
			b = &strings.Builder{}
			parts[k] = b
			order = append(order, k)
		}
		b.WriteString(string(f.Data))
		if f.Flags&FlagAborted != 0 {
			b.WriteString("✗")
		}
		if f.Flags&chunk.FlagEnd != 0 {
			done[k] = true
		}
		h.d.Pool().Put(f)
	}
	var out []string
	for _, k := range order {
		s := fmt.Sprintf("%d/%d:%s", k.sid, k.mid, parts[k].String())
		if k.uo {
			s = "u" + s
		}
		if !done[k] {
			s += "…"
		}
		out = append(out, s)
	}
	return out
}

func (h *ih) want(want ...string) {
	h.t.Helper()
	got := h.read()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		h.t.Fatalf("got %q, want %q", got, want)
	}
}

func (h *ih) held(n int) {
	h.t.Helper()
	if h.d.Held() != n {
		h.t.Fatalf("held %d, want %d", h.d.Held(), n)
	}
}

// RFC 8260 section 2.1: "For ordered user messages, the MID is also used
// by the SCTP receiver to deliver the user messages in the correct order
// to the upper layer". Ordered messages leave a stream in MID order
// whatever their TSN order; streams are independent.
func TestIDataOrderedByMID(t *testing.T) {
	h := newIH(t, 4, FSNRFC)
	h.mustAdd(1, 1, 2, 0, B|E, "c")
	h.mustAdd(2, 1, 1, 0, B|E, "b")
	h.mustAdd(3, 2, 0, 0, B|E, "x")
	h.want("2/0:x")
	h.mustAdd(4, 1, 0, 0, B|E, "a")
	h.want("1/0:a", "1/1:b", "1/2:c")
	h.held(0)
}

// RFC 8260 section 2.1: "The MID is the same for all fragments of a user
// message; it is used to determine which fragments (enumerated by the
// FSN) belong to the same user message." Fragments of messages on
// different streams interleaved in TSN order, and arriving out of order,
// are reassembled by MID and FSN, not by TSN.
func TestIDataInterleavedReassembly(t *testing.T) {
	h := newIH(t, 3, FSNRFC)
	// Stream 0 MID 0: a0 a1 a2; stream 1 MID 0: b0 b1; stream 2 unordered
	// MID 7: c0 c1. TSNs in the sender's interleaved order.
	h.mustAdd(10, 0, 0, 99, B, "a0")
	h.mustAdd(11, 1, 0, 98, B, "b0")
	h.mustAdd(15, 0, 0, 2, E, "a2")
	h.mustAdd(12, 2, 7, 97, B|U, "c0")
	h.mustAdd(14, 1, 0, 1, E, "b1")
	h.want("1/0:b0b1")
	h.mustAdd(16, 2, 7, 1, E|U, "c1")
	h.want("u2/7:c0c1")
	h.mustAdd(13, 0, 0, 1, 0, "a1")
	h.want("0/0:a0a1a2")
	h.held(0)
}

// RFC 8260 section 2.1: "If the B bit is set, this field contains the PPID
// of the user message. ... In this case, the FSN is implicitly considered
// to be 0." The PPID comes from
// the first fragment, and in partial delivery every part carries it.
func TestIDataPPIDOnFirstFragment(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.mustAdd(1, 0, 0, 51, B, "x")
	if !h.d.Partial() {
		t.Fatal("partial delivery did not start")
	}
	f := h.d.Pop()
	if f.PPID != 51 {
		t.Fatalf("first part PPID %d", f.PPID)
	}
	h.mustAdd(2, 0, 0, 1, E, "y")
	f = h.d.Pop()
	if f == nil || f.PPID != 51 || f.Flags&chunk.FlagEnd == 0 {
		t.Fatalf("last part %+v", f)
	}
}

// RFC 8260 section 2.1: "The FSN is used to enumerate all fragments of a
// single user message, starting from 0 and incremented by 1." The RFC
// reading: the second fragment carries FSN 1.
func TestIDataFSNReadingRFC(t *testing.T) {
	for _, conv := range []FSNConvention{FSNRFC, FSNAuto} {
		h := newIH(t, 1, conv)
		h.mustAdd(1, 0, 0, 0, B, "a")
		h.mustAdd(2, 0, 0, 1, 0, "b")
		h.mustAdd(3, 0, 0, 2, E, "c")
		h.want("0/0:abc")
		if conv == FSNAuto && h.d.Convention() != FSNRFC {
			t.Fatalf("auto decided %v, want RFC", h.d.Convention())
		}
	}
}

// Linux's sender numbers the second fragment FSN 0 (kernel-design.md 4.3):
// read that way by FSNLinux, and detected by FSNAuto from the FSN 0 on a
// fragment without B, in any arrival order.
func TestIDataFSNReadingLinux(t *testing.T) {
	for _, conv := range []FSNConvention{FSNLinux, FSNAuto} {
		h := newIH(t, 1, conv)
		h.mustAdd(3, 0, 0, 1, E, "c")
		h.mustAdd(1, 0, 0, 0, B, "a")
		h.want()
		h.mustAdd(2, 0, 0, 0, 0, "b")
		h.want("0/0:abc")
		if h.d.Convention() != FSNLinux {
			t.Fatalf("convention %v, want Linux", h.d.Convention())
		}
		// And the next message the same way.
		h.mustAdd(4, 0, 1, 0, B, "d")
		h.mustAdd(5, 0, 1, 0, E, "e")
		h.want("0/1:de")
	}
}

// With FSNAuto undecided, a second fragment with FSN 1 whose TSN is not
// next to the first could be Linux's third fragment with the second still
// missing: the message waits until the cumulative TSN shows nothing is
// missing, and is then read the RFC way. If the missing fragment arrives
// (FSN 0: Linux), it completes the Linux way instead.
func TestIDataFSNAutoAmbiguous(t *testing.T) {
	h := newIH(t, 2, FSNAuto)
	h.mustAdd(1, 0, 0, 0, B, "a")
	h.mustAdd(2, 1, 0, 0, B|E, "other")
	h.mustAdd(3, 0, 0, 1, E, "b")
	h.want("1/0:other")
	h.d.SetCumulativeTSN(3)
	h.want("0/0:ab")
	if h.d.Convention() != FSNRFC {
		t.Fatalf("convention %v", h.d.Convention())
	}

	h = newIH(t, 2, FSNAuto)
	h.mustAdd(1, 0, 0, 0, B, "a")
	h.mustAdd(3, 0, 0, 1, E, "c")
	h.d.SetCumulativeTSN(1)
	h.want()
	h.mustAdd(2, 0, 0, 0, 0, "b") // Linux's second fragment
	h.want("0/0:abc")
}

// RFC 8260 section 2.1: "the sender MUST NOT have more than 2**31 - 1
// ordered messages for each outgoing stream in flight" so the receiver
// compares MIDs with serial arithmetic (SERIAL_BITS = 32): delivery order
// holds across the wrap, and a MID just below the next expected one is old.
func TestIDataMIDWrap(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.tab.In(0).MID = 0xFFFFFFFE
	h.mustAdd(1, 0, 0, 0, B|E, "2")
	h.mustAdd(2, 0, 0xFFFFFFFF, 0, B|E, "1")
	h.want()
	h.mustAdd(3, 0, 0xFFFFFFFE, 0, B|E, "0")
	h.want("0/4294967294:0", "0/4294967295:1", "0/0:2")
	if h.add(4, 0, 0xFFFFFFFF, 0, B|E, "old") {
		t.Fatal("an already delivered MID was accepted")
	}
	if h.tab.In(0).MID != 1 {
		t.Fatalf("next MID %d", h.tab.In(0).MID)
	}
	// Unordered MIDs wrap too.
	h.mustAdd(5, 0, 0xFFFFFFFF, 0, B|U, "x")
	h.mustAdd(6, 0, 0xFFFFFFFF, 1, E|U, "y")
	h.want("u0/4294967295:xy")
}

// RFC 8260 section 2.1: "Note that the FSN MAY wrap completely multiple
// times, thus allowing arbitrarily large user messages. For the FSN, the serial
// number arithmetic defined in [RFC1982] applies with SERIAL_BITS = 32.
// Therefore, a sender MUST NOT have more than 2**31 - 1 fragments of a
// single user message in flight." A message in partial delivery goes on
// across the FSN wrap.
func TestIDataFSNWrap(t *testing.T) {
	for _, conv := range []FSNConvention{FSNRFC, FSNLinux} {
		h := newIH(t, 1, conv)
		h.mustAdd(1, 0, 0, 0, B, "s")
		if !h.d.Partial() {
			t.Fatal("no partial delivery")
		}
		h.want("0/0:s…")
		// Pretend 2^32 - 3 fragments went by.
		in := h.tab.In(0)
		in.FSN = 0xFFFFFFFE
		wire := func(pos uint32) uint32 {
			if conv == FSNLinux {
				return pos - 1
			}
			return pos
		}
		h.mustAdd(4, 0, 0, wire(0), 0, "c") // position 2^32 ≡ 0, after the wrap
		h.mustAdd(5, 0, 0, wire(1), E, "d")
		h.want()
		h.mustAdd(2, 0, 0, wire(0xFFFFFFFE), 0, "a")
		h.mustAdd(3, 0, 0, wire(0xFFFFFFFF), 0, "b")
		h.want("0/0:abcd")
		if in.PD || in.MID != 1 {
			t.Fatalf("after the end: PD %v MID %d", in.PD, in.MID)
		}
		h.held(0)
	}
}

// RFC 8260 section 2.2.3 (receiver side) with RFC 6458 semantics: partial
// delivery is per stream, so several streams can be in partial delivery at
// once, and complete messages of other streams are not held behind them.
func TestIDataPartialSeveralStreams(t *testing.T) {
	h := newIH(t, 4, FSNRFC)
	h.mustAdd(1, 0, 0, 0, B, "a0")
	h.mustAdd(2, 1, 0, 0, B, "b0")
	h.mustAdd(3, 2, 5, 0, B|U, "u0")
	for range 3 {
		if !h.d.Partial() {
			t.Fatal("partial delivery did not start")
		}
		h.read()
	}
	if h.d.Partial() {
		t.Fatal("a fourth partial delivery started with nothing left")
	}
	in0, in1, in2 := h.tab.In(0), h.tab.In(1), h.tab.In(2)
	if !in0.PD || !in1.PD || !in2.PDUO || in2.MIDUO != 5 {
		t.Fatal("partial-delivery flags not set per stream")
	}
	h.mustAdd(4, 3, 0, 0, B|E, "whole")
	h.mustAdd(5, 1, 0, 1, 0, "b1")
	h.want("3/0:whole", "1/0:b1…")
	if !h.d.PartialWants(0, false, false, 0, 1) || h.d.PartialWants(0, false, false, 0, 2) {
		t.Fatal("PartialWants wrong for stream 0")
	}
	h.mustAdd(6, 0, 0, 1, E, "a1")
	h.mustAdd(7, 2, 5, 1, E|U, "u1")
	h.mustAdd(8, 1, 0, 2, E, "b2")
	h.want("0/0:a1", "u2/5:u1", "1/0:b2")
	if in0.PD || in1.PD || in2.PDUO {
		t.Fatal("partial delivery did not end")
	}
	// A fragment of a message delivered in parts is stale afterwards.
	if h.add(9, 0, 0, 1, E, "again") {
		t.Fatal("fragment of a delivered MID accepted")
	}
	h.held(0)
}

// Within a partial delivery, a first fragment for the same MID or an FSN
// already delivered is a peer error.
func TestIDataPartialStale(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.mustAdd(1, 0, 0, 0, B, "a")
	h.mustAdd(2, 0, 0, 1, 0, "b")
	h.d.Partial()
	h.read()
	if h.add(3, 0, 0, 0, B, "a") || h.add(4, 0, 0, 1, 0, "b") {
		t.Fatal("stale fragment of the message in partial delivery accepted")
	}
	h.mustAdd(5, 0, 0, 2, E, "c")
	h.want("0/0:c")
}

// Duplicates by key (same MID and FSN under a new TSN) are refused and
// cost nothing; fragments past a message's end are dropped when it is
// delivered, so they cannot block the stream.
func TestIDataDuplicatesAndGarbage(t *testing.T) {
	h := newIH(t, 2, FSNRFC)
	h.mustAdd(1, 0, 0, 0, B, "a")
	if h.add(2, 0, 0, 0, B, "a") {
		t.Fatal("second first fragment of a message accepted")
	}
	h.mustAdd(3, 0, 0, 2, 0, "junk")
	h.mustAdd(4, 0, 0, 1, E, "b")
	h.want("0/0:ab")
	h.held(0)
	if h.add(5, 9, 0, 0, B|E, "x") {
		t.Fatal("stream outside the table accepted")
	}
	h.mustAdd(6, 0, 1, 0, B|E, "next")
	h.want("0/1:next")
}

// Reneging under memory pressure (RFC 9260 section 6.2): DropHighest
// removes the held fragment with the highest TSN above the limit, never
// one queued for delivery, and the stream still completes once the
// fragment comes again.
func TestIDataDropHighest(t *testing.T) {
	h := newIH(t, 2, FSNRFC)
	h.mustAdd(5, 0, 1, 0, B|E, "later") // waits for MID 0
	h.mustAdd(9, 1, 0, 0, B, "p")       // incomplete
	h.mustAdd(7, 1, 3, 0, BU, "u")      // ready: not droppable
	if tsn, n, ok := h.d.DropHighest(6); !ok || tsn != 9 || n != 1 {
		t.Fatalf("dropped %d (%d) %v, want 9", tsn, n, ok)
	}
	if _, _, ok := h.d.DropHighest(6); ok {
		t.Fatal("dropped at or below the limit or a ready fragment")
	}
	if tsn, _, ok := h.d.DropHighest(0); !ok || tsn != 5 {
		t.Fatalf("dropped %d %v, want 5", tsn, ok)
	}
	h.held(1)
	h.mustAdd(10, 0, 1, 0, B|E, "later")
	h.mustAdd(11, 0, 0, 0, B|E, "first")
	h.want("u1/3:u", "0/0:first", "0/1:later")
}

// RFC 8260 section 2.3.2 (I-FORWARD-TSN, ordered entry): the stream skips
// past the MID; a partial delivery of a skipped message ends with a
// PD-aborted event, complete messages waiting behind skipped ones are
// delivered, and leftovers of skipped messages are dropped.
func TestIDataForwardOrdered(t *testing.T) {
	h := newIH(t, 2, FSNRFC)
	h.mustAdd(1, 0, 0, 0, B, "p0")
	h.d.Partial()
	h.want("0/0:p0…")
	h.mustAdd(3, 0, 0, 2, 0, "p2") // p1 (TSN 2) abandoned
	h.mustAdd(4, 0, 2, 0, B|E, "m2")
	h.mustAdd(5, 0, 1, 1, E, "m1-tail") // MID 1 lost its start: abandoned
	h.d.ForwardMID(2, []MIDSkip{{SID: 0, MID: 1}})
	h.want("0/0:✗…", "0/2:m2")
	if in := h.tab.In(0); in.PD || in.MID != 3 {
		t.Fatalf("stream 0: PD %v next MID %d", in.PD, in.MID)
	}
	h.held(0)
	// An entry older than the next expected MID changes nothing.
	h.d.ForwardMID(2, []MIDSkip{{SID: 0, MID: 0}})
	if h.tab.In(0).MID != 3 {
		t.Fatal("old skip moved the stream back")
	}
}

// RFC 8260 section 2.3.2 (unordered entry): it ends the partial delivery
// of a skipped unordered message and drops what is held of skipped
// unordered messages; the ordered sequence is untouched.
func TestIDataForwardUnordered(t *testing.T) {
	h := newIH(t, 1, FSNRFC)
	h.mustAdd(1, 0, 4, 0, B|U, "x0")
	h.d.Partial()
	h.mustAdd(2, 0, 5, 0, B|U, "y0") // MID 5 also abandoned
	h.mustAdd(6, 0, 6, 0, B|U, "z0") // alive
	h.d.ForwardMID(5, []MIDSkip{{SID: 0, Unordered: true, MID: 5}})
	// The part queued before the abort comes first, then the marker.
	h.want("u0/4:x0✗…")
	h.held(2)
	h.mustAdd(7, 0, 6, 1, E|U, "z1")
	h.want("u0/6:z0z1")
	if h.tab.In(0).MID != 0 {
		t.Fatal("unordered skip moved the ordered MID")
	}
}

// The cumulative TSN of an I-FORWARD-TSN alone drops only messages it
// proves dead (a held fragment at or below it after a missing one): with
// I-DATA a live message's fragments can straddle the new cumulative TSN.
func TestIDataForwardCumOnly(t *testing.T) {
	h := newIH(t, 3, FSNRFC)
	h.mustAdd(1, 0, 0, 0, B, "alive") // rest not sent yet
	h.mustAdd(3, 1, 0, 1, E, "dead")  // its start (TSN 2) was abandoned
	h.mustAdd(4, 2, 0, 0, B, "p")     // partial delivery, next (TSN 5) abandoned
	h.d.Partial()                     // stream 0
	h.read()
	h.d.Partial() // stream 2
	h.read()
	h.mustAdd(6, 2, 0, 2, E, "p2")
	h.d.ForwardMID(6, nil)
	h.want("2/0:✗…")
	h.mustAdd(8, 0, 0, 1, E, "+end")
	h.want("0/0:+end")
	h.held(0)
}

// Stream reset (RFC 8260 section 2.3.2 with RFC 6525): "the two counters (one
// for the ordered messages, one for the unordered messages) used for the
// MIDs MUST be reset to 0". The framer numbers from the Out record, so a
// reset record restarts both.
func TestIDataFramerMIDs(t *testing.T) {
	tab := stream.NewTable[struct{}, InSide](2, 2)
	fr := NewIDataFramer(tab)
	got := []uint32{
		fr.NewMessage(0, false), fr.NewMessage(0, false), fr.NewMessage(0, true),
		fr.NewMessage(1, false), fr.NewMessage(0, true), fr.NewMessage(0, false),
	}
	want := []uint32{0, 1, 0, 0, 1, 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("MIDs %v, want %v", got, want)
	}
	tab.Out(0).ResetSequence()
	if fr.NewMessage(0, false) != 0 || fr.NewMessage(0, true) != 0 {
		t.Fatal("counters not reset")
	}
	if fr.NewMessage(7, false) != 0 {
		t.Fatal("stream outside the table numbered")
	}
	if fr.HeaderLen() != 20 {
		t.Fatalf("header %d", fr.HeaderLen())
	}
}
