package transfer

import (
	"slices"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestStreamBufferedAcked: a stream's buffered bytes grow with each
// message written and shrink by each chunk's payload as a SACK first
// acknowledges it, in a Gap Ack Block or cumulatively (never twice), and
// come back when the peer reneges on a gap-acknowledged chunk. Other
// streams keep their own counts.
func TestStreamBufferedAcked(t *testing.T) {
	x := newTx(t, Config{})
	for i := range 4 {
		x.queuePR(1, false, 1000+i, PR{})
	}
	x.queuePR(2, false, 500, PR{})
	if got := x.e.StreamBuffered(1); got != 4006 {
		t.Fatalf("stream 1 buffers %d after the writes, want 4006", got)
	}
	tsns := x.flush()
	if len(tsns) != 5 {
		t.Fatalf("sent %d chunks, want 5", len(tsns))
	}
	first := tsns[0]
	x.mustSACK(first-1, api.DefaultBuffer, 2, 2) // the second message, gap-acked
	if got := x.e.StreamBuffered(1); got != 4006-1001 {
		t.Fatalf("stream 1 buffers %d after a Gap Ack Block, want %d", got, 4006-1001)
	}
	x.mustSACK(first, api.DefaultBuffer, 1, 1) // the first one, cumulatively; the gap again
	if got := x.e.StreamBuffered(1); got != 4006-1001-1000 {
		t.Fatalf("stream 1 buffers %d after the cumulative ack, want %d", got, 4006-1001-1000)
	}
	x.mustSACK(first, api.DefaultBuffer) // reneged on the second one
	if got := x.e.StreamBuffered(1); got != 4006-1000 {
		t.Fatalf("stream 1 buffers %d after the peer reneged, want %d", got, 4006-1000)
	}
	checkInvariants(t, &x.e.send)
	x.mustSACK(first+4, api.DefaultBuffer)
	if a, b := x.e.StreamBuffered(1), x.e.StreamBuffered(2); a != 0 || b != 0 {
		t.Fatalf("streams buffer %d and %d once everything is acknowledged, want 0", a, b)
	}
	if low := x.e.TakeBufferedLow(); len(low) != 0 {
		t.Fatalf("streams %v reported without a low-water mark", low)
	}
}

// TestStreamBufferedLow: a stream with a low-water mark is reported each
// time its buffered bytes fall from above the mark to the mark or below,
// and only then, as WebRTC's bufferedamountlow event fires (pion's
// onBufferedAmountLow: fromAmount > threshold && amount <= threshold).
func TestStreamBufferedLow(t *testing.T) {
	x := newTx(t, Config{})
	if err := x.e.SetBufferedLow(1, 1500); err != nil {
		t.Fatal(err)
	}
	if err := x.e.SetBufferedLow(9, 0); err == nil {
		t.Fatal("SetBufferedLow accepted a stream beyond the negotiated ones")
	}
	for range 4 {
		x.queuePR(1, false, 1000, PR{})
	}
	tsns := x.flush()
	first := tsns[0]
	want := func(step string, sids ...uint16) {
		t.Helper()
		if got := x.e.TakeBufferedLow(); !slices.Equal(got, sids) {
			t.Fatalf("%s: reported %v, want %v", step, got, sids)
		}
	}
	x.mustSACK(first, api.DefaultBuffer) // 4000 -> 3000
	want("above the mark")
	x.mustSACK(first+2, api.DefaultBuffer) // 3000 -> 1000: crosses
	want("the fall", 1)
	x.mustSACK(first+3, api.DefaultBuffer) // 1000 -> 0: stays below
	want("below the mark")
	x.queuePR(1, false, 2000, PR{}) // up again, then down
	x.flush()
	x.advance(time.Millisecond)
	x.mustSACK(first+5, api.DefaultBuffer)
	want("the second fall", 1)
	if err := x.e.SetBufferedLow(1, -1); err != nil {
		t.Fatal(err)
	}
	x.queuePR(1, false, 2000, PR{})
	x.flush()
	x.mustSACK(first+7, api.DefaultBuffer)
	want("without a mark")
}

// TestStreamBufferedAbandoned: a message given up under its PR-SCTP
// policy leaves the count at once, its chunks in flight and its part never
// sent, and its fall to the mark is reported like an acknowledgement's.
func TestStreamBufferedAbandoned(t *testing.T) {
	x := prTx(t, Config{PeerRwnd: 1 << 20})
	if err := x.e.SetBufferedLow(0, 0); err != nil {
		t.Fatal(err)
	}
	x.queuePR(0, false, 100, PR{Policy: PRTTL, Value: 100})
	x.queuePR(0, false, 200_000, PR{Policy: PRTTL, Value: 100}) // cut short by cwnd
	x.flush()
	x.queuePR(0, false, 300, PR{Policy: PRTTL, Value: 100}) // never sent
	if got := x.e.StreamBuffered(0); got != 200_400 {
		t.Fatalf("stream buffers %d, want 200400", got)
	}
	x.now = x.e.Deadline()
	x.e.OnTimeout(x.now)
	if n := len(x.failed()); n != 3 {
		t.Fatalf("%d messages given up, want 3", n)
	}
	if got := x.e.StreamBuffered(0); got != 0 {
		t.Fatalf("stream buffers %d after its messages were given up, want 0", got)
	}
	if got := x.e.TakeBufferedLow(); !slices.Equal(got, []uint16{0}) {
		t.Fatalf("reported %v, want [0] once", got)
	}
	checkInvariants(t, &x.e.send)
}
