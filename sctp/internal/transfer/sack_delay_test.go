package transfer

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// TestSetDelayedSACK: the delayed SACK can be changed on a running
// engine (Linux's SCTP_DELAYED_SACK): a shorter delay moves the deadline,
// a delay of 0 acknowledges every packet at once, and a delay over the
// 500 ms RFC 9260 section 6.2 allows is refused.
func TestSetDelayedSACK(t *testing.T) {
	r := newRx(t, Config{})
	if err := r.e.SetDelayedSACK(40*time.Millisecond, 3); err != nil {
		t.Fatal(err)
	}
	if d, f := r.e.DelayedSACK(); d != 40*time.Millisecond || f != 3 {
		t.Fatalf("DelayedSACK %v, %d; want 40ms, 3", d, f)
	}
	r.e.HandleData(r.now, &Data{TSN: 1, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}})
	r.e.EndPacket(r.now)
	if r.e.SACKDue(r.now) {
		t.Fatal("SACK due after one packet")
	}
	if d := r.e.Deadline(); !d.Equal(r.now.Add(40 * time.Millisecond)) {
		t.Fatalf("deadline %v, want 40ms", d.Sub(r.now))
	}
	r.sack()
	if err := r.e.SetDelayedSACK(0, 0); err != nil {
		t.Fatal(err)
	}
	r.e.HandleData(r.now, &Data{TSN: 2, Flags: chunk.FlagBeginning | chunk.FlagEnd, Payload: []byte{1}})
	r.e.EndPacket(r.now)
	if !r.e.SACKDue(r.now) {
		t.Fatal("delayed SACK off: no SACK due after one packet")
	}
	for _, bad := range []struct {
		d time.Duration
		f int
	}{{501 * time.Millisecond, 0}, {-time.Millisecond, 0}, {time.Millisecond, -1}} {
		if err := r.e.SetDelayedSACK(bad.d, bad.f); !errors.Is(err, ErrConfig) {
			t.Errorf("SetDelayedSACK(%v, %d): %v, want ErrConfig", bad.d, bad.f, err)
		}
	}
}
