package assoc

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestLifetimeTimer: a queued message with a lifetime puts the end of the
// lifetime among the endpoint's deadlines; when it passes, Expire gives
// the message up (RFC 3758 section 4.1 TR5: "The sending SCTP MAY
// evaluate the lifetime of messages at anytime") and an EventSendFailed
// reports it. A message whose lifetime ended before the timer ran is given
// up while the next packet is built (TR3: "Before assigning a TSN to any
// message, the SCTP sender MUST evaluate the lifetime of that message.");
// then Poll queues its EventSendFailed, so that the shell reports it and
// wakes its writers without waiting for other input.
func TestLifetimeTimer(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	a := tc.a
	start := tc.now
	if err := a.Send(tc.now, &Message{Stream: 1, PR: api.PR{Policy: api.PRTTL, Value: 50}, Payload: []byte("short-lived")}); err != nil {
		t.Fatal(err)
	}
	if d := tc.ep.Deadline(); !d.Equal(start.Add(50 * time.Millisecond)) {
		t.Fatalf("deadline %v after the send, want the lifetime's end, 50ms", d.Sub(start))
	}
	tc.advanceToTimer()
	if e := tc.wantEvent(api.EventSendFailed); e.Stream != 1 || e.PR != api.PRTTL || e.MaybeDelivered || string(e.Msg) != "short-lived" {
		t.Fatalf("message given up at the end of the lifetime: %+v", e.Event)
	}
	tc.wantIdle() // nothing was sent: no TSN for it
	tc.wantNoEvent()

	// Two messages whose lifetime ends before anyone looks: the packet
	// builder gives them up and says so once.
	for range 2 {
		if err := a.Send(tc.now, &Message{Stream: 1, PR: api.PR{Policy: api.PRTTL, Value: 10}, Payload: []byte("late")}); err != nil {
			t.Fatal(err)
		}
	}
	tc.now = tc.now.Add(20 * time.Millisecond)
	tc.wantIdle()
	for range 2 {
		if e := tc.wantEvent(api.EventSendFailed); string(e.Msg) != "late" {
			t.Fatalf("message given up while building a packet: %+v", e.Event)
		}
	}
	tc.wantNoEvent()
}
