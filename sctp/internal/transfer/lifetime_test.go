package transfer

import (
	"testing"
	"time"
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
		if want.sent && !x.e.Send.ForwardDue() {
			t.Fatal("no FORWARD-TSN due after abandoning a sent message")
		}
		checkInvariants(t, &x.e.Send)
	}
	if d := x.e.Send.LifetimeDeadline(); !d.IsZero() {
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
		x.mustSACK(tsns[len(tsns)-1], DefaultBuffer)
		if n := len(x.e.Send.ttl.h); n > 2*1+64 {
			t.Fatalf("after %d messages: %d heap entries for at most one live", i, n)
		}
	}
	if f := x.failed(); len(f) != 0 {
		t.Fatalf("acknowledged messages given up: %+v", f)
	}
}
