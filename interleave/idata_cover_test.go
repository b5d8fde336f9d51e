package interleave

import (
	"testing"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// coverStream holds n ordered one-fragment messages (MIDs 1 to n; message
// 0 never comes, so they stay) on stream 0, TSNs 1 to n, looked at by an
// I-FORWARD-TSN to n: the fragments a look at the whole stream would pass.
func coverStream(t *testing.T, n int) (*ih, chunk.TSN) {
	h := newIH(t, 1, FSNRFC)
	for i := range n {
		h.mustAdd(chunk.TSN(i+1), 0, stream.MID(i+1), 1, B, "x")
	}
	h.d.ForwardMID(chunk.TSN(n), nil)
	return h, chunk.TSN(n + 1)
}

// forwardLooks applies an I-FORWARD-TSN to cum and returns how many
// fragments it looked at.
func forwardLooks(h *ih, cum chunk.TSN) uint64 {
	before := h.d.examined
	h.d.ForwardMID(cum, nil)
	return h.d.examined - before
}

// A peer numbers a message's second fragment (FSN 1) with a higher TSN than
// its third (FSN 2), so that an I-FORWARD-TSN passing the third keeps it
// (in sequence) while the second waits above; then it makes the receiver
// renege the second (the highest TSN held, RFC 9260 section 6.2), resends
// it, and sends another I-FORWARD-TSN, again and again. Each of those looks
// at the message's fragments, not at the stream's thousand others; and
// when the second fragment is not resent, the next I-FORWARD-TSN finds the
// message dead (its third fragment lies past a hole at or below the New
// Cumulative TSN).
func TestIForwardRenegeLooksAtItsMessage(t *testing.T) {
	const n = 1000
	h, tsn := coverStream(t, n)
	m := stream.MID(n + 1)
	hi := tsn + 10000
	h.mustAdd(tsn, 0, m, 1, B, "a")
	h.mustAdd(tsn+1, 0, m, 2, 0, "c")
	h.mustAdd(hi, 0, m, 1, 0, "b")
	cum := tsn + 1
	h.d.ForwardMID(cum, nil)
	for i := range 20 {
		if got, _, ok := h.d.DropHighest(cum); !ok || got != hi {
			t.Fatalf("round %d: DropHighest dropped %d, %v; want %d", i, got, ok, hi)
		}
		h.mustAdd(hi, 0, m, 1, 0, "b")
		cum++ // a TSN that never comes
		if got := forwardLooks(h, cum); got > 8 {
			t.Fatalf("round %d: the I-FORWARD-TSN looked at %d fragments, want at most 8 (%d held on the stream)", i, got, n+3)
		}
		h.held(n + 3)
	}
	checkIndex(t, h.d)
	if got, _, ok := h.d.DropHighest(cum); !ok || got != hi {
		t.Fatalf("DropHighest dropped %d, %v; want %d", got, ok, hi)
	}
	if got := forwardLooks(h, cum+1); got > 8 {
		t.Fatalf("the I-FORWARD-TSN looked at %d fragments, want at most 8", got)
	}
	h.held(n) // message n+1 is dead: FSN 2 (TSN at or below cum) follows a hole
	checkIndex(t, h.d)
}

// The same with a late fragment numbered 0 under RFC 8260's FSNs (which
// gives FSN 0 to the first fragment only): it sorts between the message's
// first fragment and its second, so while it is held, what an I-FORWARD-TSN
// kept of the message for being in sequence no longer is. Sent with the
// highest TSN, it is what the receiver reneges: then the message is in
// sequence again and stays, at the cost of a look at it alone.
func TestIForwardLateFSN0LooksAtItsMessage(t *testing.T) {
	const n = 1000
	h, tsn := coverStream(t, n)
	m := stream.MID(n + 1)
	h.mustAdd(tsn, 0, m, 1, B, "a")
	h.mustAdd(tsn+1, 0, m, 1, 0, "b")
	h.mustAdd(tsn+2, 0, m, 2, 0, "c")
	cum := tsn + 2
	h.d.ForwardMID(cum, nil)
	for i := range 20 {
		late := cum + 10000
		h.mustAdd(late, 0, m, 0, E, "z")
		if got, _, ok := h.d.DropHighest(cum); !ok || got != late {
			t.Fatalf("round %d: DropHighest dropped %d, %v; want %d", i, got, ok, late)
		}
		cum++
		if got := forwardLooks(h, cum); got > 8 {
			t.Fatalf("round %d: the I-FORWARD-TSN looked at %d fragments, want at most 8 (%d held on the stream)", i, got, n+3)
		}
		h.held(n + 3)
	}
	checkIndex(t, h.d)
}

// A late fragment numbered 0 under RFC 8260's FSNs puts what an
// I-FORWARD-TSN kept of its message (in sequence then) past a break: when
// the next I-FORWARD-TSN looks at the stream, the message is dead (its
// second fragment, at or below the New Cumulative TSN, no longer follows
// its first), as a look at every fragment finds, even though the late
// fragment itself lies above the New Cumulative TSN.
func TestIForwardLateFSN0KeepsNoDeadMessage(t *testing.T) {
	for _, full := range []bool{false, true} {
		h := newIH(t, 1, FSNRFC)
		h.d.fullFwd = full
		h.mustAdd(1, 0, 5, 0, B, "a")
		h.mustAdd(2, 0, 5, 1, 0, "b")
		h.d.ForwardMID(2, nil)
		h.mustAdd(3, 0, 7, 0, B, "c") // the stream is looked at again for this one
		h.mustAdd(10, 0, 5, 0, 0, "z")
		h.d.ForwardMID(6, nil)
		if h.d.Held() != 1 {
			t.Fatalf("fullFwd %v: %d bytes held, want 1: message 5 is dead", full, h.d.Held())
		}
		checkIndex(t, h.d)
	}
}

// The misnumbered pattern inside one long message: what the cut leaves
// known in sequence after the reneged fragment (FSN 2 to 1001) stays
// known (flagTail), so neither the I-FORWARD-TSN after the resend nor the
// next completeness walk goes over the message's thousand fragments again.
func TestIForwardRenegeLongMessageNoWalk(t *testing.T) {
	const n = 1000
	h := newIH(t, 1, FSNRFC)
	m := stream.MID(1) // message 0 never comes
	hi := chunk.TSN(100000)
	h.mustAdd(1, 0, m, 1, B, "a")
	for i := range n {
		h.mustAdd(chunk.TSN(2+i), 0, m, uint32(2+i), 0, "c")
	}
	h.mustAdd(hi, 0, m, 1, 0, "b")
	cum := chunk.TSN(n + 1)
	h.d.ForwardMID(cum, nil) // walks the message once
	for i := range 20 {
		if got, _, ok := h.d.DropHighest(cum); !ok || got != hi {
			t.Fatalf("round %d: DropHighest dropped %d, %v; want %d", i, got, ok, hi)
		}
		h.mustAdd(hi, 0, m, 1, 0, "b")
		cum++
		if got := forwardLooks(h, cum); got > 8 {
			t.Fatalf("round %d: the I-FORWARD-TSN looked at %d fragments, want at most 8 (%d held)", i, got, n+2)
		}
		h.held(n + 2)
		checkIndex(t, h.d)
	}
}

// The same for the completeness walk on arrival: the stream's next ordered
// message, long and without its end, has a fragment near its start
// reneged and resent again and again; each resend looks at the message
// from where the run was cut, passing what it knew in one step, and the
// end completes it.
func TestIDataRenegeLongMessageNoWalk(t *testing.T) {
	const n = 1000
	h := newIH(t, 1, FSNRFC)
	hi := chunk.TSN(100000)
	h.mustAdd(1, 0, 0, 1, B, "a")
	h.mustAdd(hi, 0, 0, 1, 0, "b")
	for i := range n {
		h.mustAdd(chunk.TSN(2+i), 0, 0, uint32(2+i), 0, "c")
	}
	for i := range 20 {
		if got, _, ok := h.d.DropHighest(0); !ok || got != hi {
			t.Fatalf("round %d: DropHighest dropped %d, %v; want %d", i, got, ok, hi)
		}
		before := h.d.examined
		h.mustAdd(hi, 0, 0, 1, 0, "b")
		if got := h.d.examined - before; got > 8 {
			t.Fatalf("round %d: the resend walked %d fragments, want at most 8 (%d held)", i, got, n+2)
		}
		checkIndex(t, h.d)
	}
	h.mustAdd(hi+1, 0, 0, n+2, E, "d")
	if got := h.read(); len(got) != 1 || len(got[0]) != len("0/0:")+n+3 {
		t.Fatalf("read %q", got)
	}
	h.held(0)
}
