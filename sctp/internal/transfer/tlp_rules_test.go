package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// The tail loss probe's timer (RFC 8985 section 7.2, with this engine's
// back-off between lost probes, loss_rack.go), one rule per test.

// probeTimes runs the timers from the last send, sending each probe, and
// returns the offsets from start of the first n probes.
func probeTimes(t *testing.T, x *tx, start time.Time, n int) []time.Duration {
	t.Helper()
	var at []time.Duration
	for len(at) < n {
		d := x.e.send.deadline()
		if d.IsZero() {
			t.Fatalf("no timer after %d probes at %v", len(at), at)
		}
		x.now = d
		probes := x.e.stats.Probes
		if x.e.OnTimeout(x.now) {
			t.Fatalf("T3-rtx expired after probes at %v", at)
		}
		x.flush()
		if x.e.stats.Probes == probes {
			t.Fatalf("the timer at %v sent no probe", d.Sub(start))
		}
		at = append(at, d.Sub(start))
	}
	return at
}

// RFC 8985 section 7.2's pseudocode: "PTO = 2 * SRTT", plus WCDelAckT
// (the peer's delayed ACK time) when the flight is one segment
// (paraphrase of the condition); a probe that is lost too is followed by another after
// twice the wait (loss_rack.go, bounded by maxProbes). With SRTT 20 ms and
// four chunks lost: probes at 40, 120 and 280 ms.
func TestTailLossProbeBackoff(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond)
	x.e.path.cwnd = 30 * chunk1000
	x.queue(4, 1000)
	x.flush()
	got := probeTimes(t, x, x.now, maxProbes)
	want := []time.Duration{40 * time.Millisecond, 120 * time.Millisecond, 280 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("probes at %v, want %v (2*SRTT, doubling after each lost probe)", got, want)
		}
	}
}

// RFC 8985 section 7.2 (above): the delayed-ACK allowance is for the
// first probe of a lone chunk (the peer may hold its SACK); once that
// probe went unanswered the next waits twice 2*SRTT only.
func TestTailLossProbeLoneChunk(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond)
	x.queue(1, 1000)
	x.flush()
	got := probeTimes(t, x, x.now, 2)
	first := 40*time.Millisecond + x.e.send.cfg.SACKDelay
	if got[0] != first || got[1]-got[0] != 80*time.Millisecond {
		t.Fatalf("probes of a lone chunk at %v, want %v then 80ms later", got, first)
	}
}

// RFC 8985 section 7.2 (paraphrase): the probe timeout is rearmed at
// 2*SRTT when an acknowledgement of new data arrives: the probes
// unanswered before it are forgotten, so a later tail gets its full
// series of probes again.
func TestTailLossProbeCountResetByAck(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond) // TSN 1000
	x.e.path.cwnd = 30 * chunk1000
	x.queue(4, 1000)
	x.flush() // 1001..1004
	probeTimes(t, x, x.now, maxProbes)
	// The last probe (1004 again) arrives: new data is acknowledged.
	x.advance(20 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 4, 4)
	x.flush()
	k := &x.e.send.paths.primary.rack
	if k.probes != 0 || k.pto.IsZero() {
		t.Fatalf("after an acknowledgement of new data: %d probes counted, probe timer %v", k.probes, k.pto)
	}
	if d := k.pto.Sub(x.now); d != 2*x.e.path.SRTT() {
		t.Fatalf("probe timer %v after the acknowledgement, want 2*SRTT = %v", d, 2*x.e.path.SRTT())
	}
}
