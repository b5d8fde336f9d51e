package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/transfer"
)

// TestLifetimeTimer: a queued message with a lifetime puts the end of the
// lifetime among the endpoint's deadlines; when it passes, Expire gives
// the message up (RFC 3758 section 4.1 TR5: "The sending SCTP MAY
// evaluate the lifetime of messages at anytime") and TakeFailed reports
// it. A message whose lifetime ended before the timer ran is given up
// while the next packet is built (TR3: "Before assigning a TSN to any
// message, the SCTP sender MUST evaluate the lifetime of that message.");
// then the endpoint queues EventSendFailure once, so that the shell
// reports it and wakes its writers without waiting for other input.
func TestLifetimeTimer(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	a := tc.a
	start := tc.now
	if err := a.Send(tc.now, 1, 0, false, []byte("short-lived"), PR{Policy: transfer.PRTTL, Value: 50}); err != nil {
		t.Fatal(err)
	}
	if d := tc.ep.Deadline(); !d.Equal(start.Add(50 * time.Millisecond)) {
		t.Fatalf("deadline %v after the send, want the lifetime's end, 50ms", d.Sub(start))
	}
	tc.advanceToTimer()
	n := 0
	a.TakeFailed(func(f Failed) { n++ })
	if n != 1 {
		t.Fatalf("%d messages given up at the end of the lifetime, want 1", n)
	}
	tc.wantIdle() // nothing was sent: no TSN for it
	tc.wantNoEvent()

	// Two messages whose lifetime ends before anyone looks: the packet
	// builder gives them up and says so once.
	for range 2 {
		if err := a.Send(tc.now, 1, 0, false, []byte("late"), PR{Policy: transfer.PRTTL, Value: 10}); err != nil {
			t.Fatal(err)
		}
	}
	tc.now = tc.now.Add(20 * time.Millisecond)
	tc.wantIdle()
	tc.wantEvent(EventSendFailure)
	tc.wantNoEvent()
	n = 0
	a.TakeFailed(func(f Failed) { n++ })
	if n != 2 {
		t.Fatalf("%d messages given up while building a packet, want 2", n)
	}
}
