package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestLifetimeDeadline: the engine's deadline includes the end of the
// earliest lifetime in the send buffer, whatever order the lifetimes were
// queued in; at that deadline OnTimeout gives up exactly the messages whose
// lifetime ended, queued ones without a TSN and sent ones abandoned with a
// FORWARD-TSN due, and the deadline moves to the next lifetime. RFC 3758
// section 4.1 TR5: "The sending SCTP MAY evaluate the lifetime of messages
// at anytime."
func TestLifetimeDeadline(t *testing.T) {
	x := prTx(t, Config{})
	start := x.now
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 300})
	if tsns := x.flush(); len(tsns) != 1 {
		t.Fatalf("sent %v", tsns)
	}
	// The peer closes its window: the rest stays queued.
	x.mustSACK(999, 0)
	x.queuePR(1, false, 100, PR{Policy: PRTTL, Value: 500})
	x.queuePR(1, false, 100, PR{Policy: PRTTL, Value: 80})
	x.queue(2, 100)
	x.queuePR(2, false, 100, PR{Policy: PRTTL, Value: 200})
	for _, want := range []struct {
		at     time.Duration
		failed int
		sent   bool
	}{{80 * time.Millisecond, 1, false}, {200 * time.Millisecond, 1, false}, {300 * time.Millisecond, 1, true}, {500 * time.Millisecond, 1, false}} {
		d := x.e.Deadline()
		if got := d.Sub(start); got != want.at {
			t.Fatalf("deadline %v after the start, want %v", got, want.at)
		}
		x.now = d.Add(-time.Microsecond)
		x.e.OnTimeout(x.now)
		if f := x.failed(); len(f) != 0 {
			t.Fatalf("%d messages given up before their lifetime ended", len(f))
		}
		x.now = d
		x.e.OnTimeout(x.now)
		f := x.failed()
		if len(f) != want.failed || f[0].Sent != want.sent || f[0].Policy != PRTTL {
			t.Fatalf("at %v: failed %+v", want.at, f)
		}
		if want.sent && !x.e.ForwardDue() {
			t.Fatal("no FORWARD-TSN due after abandoning a sent message")
		}
		checkInvariants(t, &x.e.send)
	}
	if d := x.e.send.lifetimeDeadline(); !d.IsZero() {
		t.Fatalf("lifetime deadline %v with no lifetime left", d)
	}
}

// TestLifetimeHeapCompacts: entries of messages acknowledged long before
// their lifetime ends are dropped, so that the heap stays within twice the
// live entries (plus a constant) however many messages pass.
func TestLifetimeHeapCompacts(t *testing.T) {
	x := prTx(t, Config{})
	for i := range 5000 {
		x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 3600_000})
		tsns := x.flush()
		x.mustSACK(tsns[len(tsns)-1], api.DefaultBuffer)
		if n := x.e.send.pr.ttl.h.Len(); n > 2*1+64 {
			t.Fatalf("after %d messages: %d heap entries for at most one live", i, n)
		}
	}
	if f := x.failed(); len(f) != 0 {
		t.Fatalf("acknowledged messages given up: %+v", f)
	}
	// Nothing left in the buffer: no lifetime deadline (a message
	// acknowledged before its lifetime ends wakes nobody then).
	if d := x.e.send.lifetimeDeadline(); !d.IsZero() {
		t.Fatalf("lifetime deadline %v with every message acknowledged", d)
	}
}

// TestLifetimeManyInFlight: hundreds of sent messages whose lifetimes end
// together are abandoned in one pass (abandonAll) with the effect of
// abandoning them one by one: every one reported sent, the flight
// emptied, the Advanced.Peer.Ack.Point past all of them (including the
// placeholder TSN of a message cut short) and a FORWARD-TSN due.
func TestLifetimeManyInFlight(t *testing.T) {
	x := prTx(t, Config{PeerRwnd: 1 << 20})
	for i := range 30 {
		x.queuePR(uint16(i%3), i%7 == 0, 100, PR{Policy: PRTTL, Value: 100})
	}
	x.queuePR(3, false, 200_000, PR{Policy: PRTTL, Value: 100}) // cut short by cwnd
	for i := range 270 {
		x.queuePR(uint16(i%3), false, 100, PR{Policy: PRTTL, Value: 100})
	}
	if tsns := x.flush(); len(tsns) < 31 {
		t.Fatalf("sent %d chunks", len(tsns))
	}
	x.now = x.e.Deadline()
	x.e.OnTimeout(x.now)
	f := x.failed()
	if len(f) != 301 {
		t.Fatalf("%d messages given up, want 301", len(f))
	}
	sent, big := 0, false
	for _, m := range f {
		if m.Sent {
			sent++
			big = big || len(m.Payload) == 200_000
		}
	}
	if sent < 31 || !big {
		t.Fatalf("%d given up after they were sent (the large one: %v), want the 30 small ones and the large one", sent, big)
	}
	checkInvariants(t, &x.e.send)
	if x.e.path.flight != 0 {
		t.Fatalf("flight %d after abandoning everything", x.e.path.flight)
	}
	if got, want := x.e.send.pr.advancedPeerAckPoint(x.e.send.ledger.cumAck), x.e.NextTSN()-1; got != want || !x.e.ForwardDue() {
		t.Fatalf("Advanced.Peer.Ack.Point %d, want %d; FORWARD-TSN due %v", got, want, x.e.ForwardDue())
	}
	x.mustSACK(x.e.NextTSN()-1, api.DefaultBuffer)
	if !x.e.SendIdle() {
		t.Fatal("not idle once the peer moved past the abandoned TSNs")
	}
}
