package transfer

import (
	"slices"
	"testing"
)

// Which path a retransmission, new data and an acknowledgement's credit go
// to (RFC 9260 sections 6.3, 6.4, 6.4.1 and 8.2), one rule per test, on a
// single engine driven by hand.

// newMultiTx returns an engine with paths extra paths beside path 0, with
// 1200-byte packets (one 1000-byte chunk each).
func newMultiTx(t *testing.T, paths int) *tx {
	t.Helper()
	x := newTx(t, Config{LocalTSN: 1, MTU: 1200})
	for range paths {
		if _, err := x.e.AddPath(false); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

// tsnsOf returns the TSNs of ds.
func tsnsOf(ds []Data) []TSN {
	var ts []TSN
	for _, d := range ds {
		ts = append(ts, d.TSN)
	}
	return ts
}

// RFC 9260 section 8.2: "When an outstanding TSN is acknowledged or a
// HEARTBEAT chunk sent to that address is acknowledged with a HEARTBEAT
// ACK chunk, the endpoint SHOULD clear the error counter of the
// destination transport address to which the DATA chunk was last sent (or
// HEARTBEAT chunk was sent)". A SACK acknowledging only a chunk
// retransmitted on path 1 clears path 1's counter and leaves the
// primary's, which counted the T3-rtx expiry, as it was.
func TestMultihomeSackClearsErrorsOfItsPath(t *testing.T) {
	x := newMultiTx(t, 1)
	x.queue(3, 1000)
	x.flush()
	x.advance(x.e.path.RTO())
	x.e.OnTimeout(x.now)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1 || x.e.DataDest() != 1 {
		t.Fatalf("retransmission %v to path %d, want TSN 1 to path 1", tsnsOf(ds), x.e.DataDest())
	}
	x.e.PathAt(1).Fault() // say an unanswered HEARTBEAT counted one there
	x.mustSACK(1, 1<<20)
	if n := x.e.PathAt(1).ErrorCount(); n != 0 {
		t.Errorf("path 1 error count %d after its chunk was acknowledged, want 0", n)
	}
	if n := x.e.PathAt(0).ErrorCount(); n != 1 {
		t.Errorf("primary error count %d after a SACK acknowledging only path 1's chunk, want 1", n)
	}
	// Section 6.3.2 R2: "Whenever all outstanding data sent to an address
	// have been acknowledged, turn off the T3-rtx timer of that address."
	if p := x.e.PathAt(1); p.flight != 0 || !p.t3.IsZero() {
		t.Errorf("path 1 with nothing outstanding: flight %d, T3-rtx %v", p.flight, p.t3)
	}
	// An acknowledgement of a chunk sent on the primary clears it.
	x.mustSACK(2, 1<<20)
	if n := x.e.PathAt(0).ErrorCount(); n != 0 {
		t.Errorf("primary error count %d after its chunk was acknowledged, want 0", n)
	}
}

// RFC 9260 section 6.4.1: "the endpoint SHOULD try to retransmit a chunk
// that timed out to an active destination transport address that is
// different from the last destination address to which the DATA chunk was
// sent." With path 1 down (inactive or potentially failed) and path 2 up,
// the chunk the primary's T3-rtx marked goes to path 2: neither back to
// path 0 nor to the down path 1.
func TestMultihomeRetransmitSkipsDownPath(t *testing.T) {
	x := newMultiTx(t, 2)
	x.e.SetPathDown(1, true)
	x.queue(2, 1000)
	x.flush()
	x.advance(x.e.path.RTO())
	x.e.OnTimeout(x.now)
	ds := x.packet()
	if len(ds) == 0 || ds[0].TSN != 1 || x.e.DataDest() != 2 {
		t.Fatalf("retransmission %v to path %d, want TSN 1 to path 2", tsnsOf(ds), x.e.DataDest())
	}
}

// RFC 9260 section 6.4.1 (above) and RFC 7829 section 5.1 (paraphrase:
// data outstanding on a destination that becomes potentially failed is
// retransmitted to an active one): a path taken down moves its chunks in
// flight to the other path at once, without waiting for its T3-rtx.
func TestMultihomePathDownMovesItsChunks(t *testing.T) {
	x := newMultiTx(t, 1)
	x.queue(2, 1000)
	x.flush()
	x.e.SetPathDown(0, true)
	ds := x.packet()
	if len(ds) != 1 || ds[0].TSN != 1 || x.e.DataDest() != 1 {
		t.Fatalf("after path 0 went down: %v to path %d, want TSN 1 to path 1 at once", tsnsOf(ds), x.e.DataDest())
	}
}

// A path coming back up takes only the chunks stranded on down paths
// (RFC 9260 section 6.4.1): chunks in flight on a path that stayed up are
// not retransmitted because another path came back.
func TestMultihomePathUpLeavesOthersChunks(t *testing.T) {
	x := newMultiTx(t, 1)
	x.queue(2, 1000)
	x.flush()
	x.e.SetPathDown(1, true)
	x.e.SetPathDown(1, false)
	if ds := x.packet(); len(ds) != 0 {
		t.Fatalf("path 1 coming back sent %v (to path %d): nothing was stranded", tsnsOf(ds), x.e.DataDest())
	}
	if x.e.PathAt(0).flight != 2*x.e.send.ledger.size(x.e.send.ledger.rec(1)) {
		t.Fatalf("path 0 flight %d: its chunks left it", x.e.PathAt(0).flight)
	}
}

// RFC 9260 section 6.4: "An endpoint SHOULD transmit reply chunks ...";
// for DATA: "an endpoint SHOULD always transmit DATA chunks to the same
// destination transport address" (the primary) "unless the SCTP user
// explicitly specifies" otherwise; section 6.4.1 sends only
// retransmissions to the alternate. A packet retransmitting to the
// alternate carries no new data: the new chunks go to the primary in
// packets of their own.
func TestMultihomeNewDataStaysOnPrimary(t *testing.T) {
	x := newMultiTx(t, 1)
	x.queue(2, 300)
	if ds := x.packet(); len(ds) != 2 || x.e.DataDest() != 0 {
		t.Fatalf("first packet %v to path %d", tsnsOf(ds), x.e.DataDest())
	}
	x.queue(2, 300)
	x.e.SetPathDown(0, true)
	ds := x.packet()
	if !slices.Equal(tsnsOf(ds), []TSN{1, 2}) || x.e.DataDest() != 1 {
		t.Fatalf("retransmission packet %v to path %d, want TSNs 1 and 2 alone to path 1", tsnsOf(ds), x.e.DataDest())
	}
	ds = x.packet()
	if !slices.Equal(tsnsOf(ds), []TSN{3, 4}) || x.e.DataDest() != 0 {
		t.Fatalf("new data %v to path %d, want TSNs 3 and 4 to the primary 0", tsnsOf(ds), x.e.DataDest())
	}
}

// RFC 9260 section 6.3.3 E3: "Determine how many of the earliest (i.e.,
// lowest TSN) outstanding DATA chunks for the address for which the
// T3-rtx has expired will fit into a single packet" and section 6.4.1:
// those go to another destination. The T3-rtx of a path that is not the
// primary marks that path's chunks (sent to the primary now), not the
// primary's.
func TestMultihomeSecondaryT3MarksItsChunks(t *testing.T) {
	x := newMultiTx(t, 1)
	x.e.SetPrimary(1)
	x.queue(1, 1000)
	if ds := x.packet(); len(ds) != 1 || x.e.DataDest() != 1 {
		t.Fatalf("TSN 1 to path %d, want 1", x.e.DataDest())
	}
	x.e.SetPrimary(0)
	x.advance(x.e.path.RTO() / 4)
	x.queue(1, 1000)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 2 || x.e.DataDest() != 0 {
		t.Fatalf("TSN 2 to path %d, want 0", x.e.DataDest())
	}
	x.advance(x.e.PathAt(1).RTO() * 3 / 4)
	x.e.OnTimeout(x.now)
	if f := x.e.FaultedPaths(); f != 2 {
		t.Fatalf("faulted paths %b, want path 1 alone", f)
	}
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1 || x.e.DataDest() != 0 {
		t.Fatalf("after path 1's T3-rtx: %v to path %d, want TSN 1 to path 0", tsnsOf(ds), x.e.DataDest())
	}
	if n := x.e.PathAt(0).ErrorCount(); n != 0 {
		t.Fatalf("path 0 error count %d: its own T3-rtx did not expire", n)
	}
}

// RFC 9260 section 6.3.2 (the T3-rtx timer is per destination: "R1)
// Every time a DATA chunk is sent to any address (including a
// retransmission), if the T3-rtx timer of that address is not running,
// start it"): when the primary changes, the timer of the chunks in flight
// on the old primary stays with them. It expires, counts an error on the
// old primary, and their retransmission goes to the new one.
func TestMultihomeSetPrimaryKeepsT3WithItsPath(t *testing.T) {
	x := newMultiTx(t, 1)
	x.queue(1, 1000)
	x.flush()
	x.e.SetPrimary(1)
	x.advance(x.e.PathAt(0).RTO())
	x.e.OnTimeout(x.now)
	if f := x.e.FaultedPaths(); f != 1 || x.e.PathAt(0).ErrorCount() != 1 {
		t.Fatalf("faulted paths %b, path 0 errors %d: the old primary's T3-rtx must expire", f, x.e.PathAt(0).ErrorCount())
	}
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1 || x.e.DataDest() != 1 {
		t.Fatalf("retransmission %v to path %d, want TSN 1 to path 1", tsnsOf(ds), x.e.DataDest())
	}
}
