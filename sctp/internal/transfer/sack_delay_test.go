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

// A receive batch that filled the reader's buffers (more waits in the
// socket) holds the SACK the every-second-packet rule made due for the
// next batch, once, with the delayed-SACK deadline a millisecond away; the
// next batch sends it. A gap is not held (6.7: at once), nor a second full
// batch in a row.
func TestSACKHeldForNextBatch(t *testing.T) {
	r := newRx(t, Config{})
	tsn := TSN(1)
	batch := func(n int) {
		r.e.BeginBatch()
		for range n {
			r.whole(tsn, 0, uint16(tsn-1), 100)
			tsn++
		}
	}
	batch(4)
	if r.e.EndBatchHeld(r.now) {
		t.Fatal("a full batch's SACK went at once")
	}
	if d := r.e.SACKDeadline(); d.IsZero() || d.After(r.now.Add(batchHold)) {
		t.Fatalf("held SACK due at %v, want within %v", d.Sub(r.now), batchHold)
	}
	if r.e.SACKDue(r.now) || !r.e.SACKDue(r.now.Add(batchHold)) {
		t.Fatalf("held SACK due now or not after %v", batchHold)
	}
	batch(4)
	if !r.e.EndBatchHeld(r.now) {
		t.Fatal("a second full batch held its SACK again")
	}
	if s := r.sack(); s.CumTSNAck != tsn-1 {
		t.Fatalf("SACK cum %d, want %d", s.CumTSNAck, tsn-1)
	}
	batch(4)
	if r.e.EndBatchHeld(r.now) {
		t.Fatal("a full batch after a SACK did not hold")
	}
	batch(2)
	if !r.e.EndBatch() {
		t.Fatal("the batch after a held SACK did not send it")
	}
	r.sack()
	// A gap: due at once, not held.
	r.e.BeginBatch()
	r.whole(tsn+1, 0, uint16(tsn), 100)
	if !r.e.EndBatchHeld(r.now) {
		t.Fatal("a gap's SACK was held")
	}
}
