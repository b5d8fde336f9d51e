package sctp

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimPeerAbortReason: the side that receives an ABORT learns the
// peer's Upper Layer Abort Reason and every error cause, on the
// AbortError its calls return and on the EventDown event. RFC 9260
// section 9.1: "After checking the Verification Tag, the receiving
// endpoint MUST remove the association from its record and SHOULD report
// the termination to its upper layer." Section 3.3.10.12 (paraphrase):
// the User-Initiated Abort cause carries an Upper Layer Abort Reason that
// SCTP transports transparently and may deliver to the peer's upper
// layer.
func TestSimPeerAbortReason(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		evs := s.Events()
		if err := c.Abort("maintenance window"); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.ReadMsg(make([]byte, 10))
		var ae *AbortError
		if !errors.As(err, &ae) || !ae.ByPeer {
			t.Fatalf("read after the peer's abort: %v", err)
		}
		if ae.UserReason != "maintenance window" || ae.Cause != 12 || len(ae.Causes) != 1 || ae.Causes[0].Code != 12 ||
			string(ae.Causes[0].Value) != "maintenance window" {
			t.Fatalf("abort error %+v", ae)
		}
		if got, want := ae.Error(), `sctp: association aborted by the peer (peer abort, cause 12: maintenance window)`; got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
		if got, want := ae.Causes[0].String(), `USER-INITIATED-ABORT (12): "maintenance window"`; got != want {
			t.Errorf("cause %q, want %q", got, want)
		}
		var down *Event
		for ev := range evs {
			if ev.Kind == EventDown {
				down = &ev
			}
		}
		if down == nil || down.Cause != 12 {
			t.Fatalf("EventDown %+v", down)
		}
		if !errors.As(down.Err, &ae) || ae.UserReason != "maintenance window" {
			t.Fatalf("EventDown.Err %v", down.Err)
		}
	})
}
