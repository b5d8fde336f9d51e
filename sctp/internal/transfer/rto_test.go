package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// RFC 9260 section 6.3.1 C1: "Until an RTT measurement has been made for a
// packet sent to the given destination transport address, set RTO to the
// protocol parameter 'RTO.Initial'."
func TestRTOInitial(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOInitial: 3 * time.Second}})
	if got := x.e.path.RTO(); got != 3*time.Second {
		t.Fatalf("RTO = %v, want RTO.Initial 3s", got)
	}
	x = newTx(t, Config{})
	if got := x.e.path.RTO(); got != time.Second {
		t.Fatalf("default RTO = %v, want 1s", got)
	}
}

// RFC 9260 section 6.3.1 C2: "When the first RTT measurement R is made,
// perform: SRTT = R RTTVAR = R/2 RTO = SRTT + 4 * RTTVAR" (three lines of
// pseudocode in the RFC).
func TestRTOFirstMeasurement(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: time.Millisecond}})
	x.queue(1, 100)
	x.flush()
	x.advance(300 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer)
	p := &x.e.path
	if p.SRTT() != 300*time.Millisecond || p.rttvar != 150*time.Millisecond || p.RTO() != 900*time.Millisecond {
		t.Fatalf("SRTT %v RTTVAR %v RTO %v, want 300ms 150ms 900ms", p.SRTT(), p.rttvar, p.RTO())
	}
}

// RFC 9260 section 6.3.1 C3: "When a new RTT measurement R' is made,
// perform: RTTVAR = (1 - RTO.Beta) * RTTVAR + RTO.Beta * |SRTT - R'| SRTT =
// (1 - RTO.Alpha) * SRTT + RTO.Alpha * R'"; "After the computation, update:
// RTO = SRTT + 4 * RTTVAR".
func TestRTOSubsequentMeasurement(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: time.Millisecond}})
	p := &x.e.path
	p.RTTSample(x.now, 100*time.Millisecond)
	p.RTTSample(x.now, 200*time.Millisecond)
	// RTTVAR = 0.75*50 + 0.25*100 = 62.5 ms; SRTT = 0.875*100 + 0.125*200 = 112.5 ms.
	if p.rttvar != 62500*time.Microsecond || p.SRTT() != 112500*time.Microsecond {
		t.Fatalf("RTTVAR %v SRTT %v, want 62.5ms 112.5ms", p.rttvar, p.SRTT())
	}
	if p.RTO() != 362500*time.Microsecond {
		t.Fatalf("RTO %v, want 362.5ms", p.RTO())
	}
}

// RFC 9260 section 6.3.1 G1: "Whenever RTTVAR is computed, if RTTVAR ==
// 0, then adjust RTTVAR = G."
func TestRTOGranularity(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: time.Microsecond}, Granularity: 10 * time.Millisecond})
	p := &x.e.path
	p.RTTSample(x.now, time.Nanosecond) // RTTVAR = R/2 = 0
	if p.rttvar != 10*time.Millisecond || p.RTO() != 40*time.Millisecond+time.Nanosecond {
		t.Fatalf("RTTVAR %v RTO %v, want G 10ms and 40.000001ms", p.rttvar, p.RTO())
	}
}

// RFC 9260 section 6.3.1 C6: "Whenever RTO is computed, if it is less than
// 'RTO.Min' seconds, then it is rounded up to 'RTO.Min' seconds." C7: "A
// maximum value MAY be placed on RTO, provided it is at least 'RTO.Max'
// seconds."
func TestRTOClamped(t *testing.T) {
	x := newTx(t, Config{})
	p := &x.e.path
	p.RTTSample(x.now, time.Millisecond)
	if p.RTO() != time.Second {
		t.Fatalf("RTO %v, want RTO.Min 1s", p.RTO())
	}
	p.RTTSample(x.now, 10*time.Minute)
	if p.RTO() != 60*time.Second {
		t.Fatalf("RTO %v, want RTO.Max 60s", p.RTO())
	}
	x = newTx(t, Config{Timers: api.Timers{RTOMin: 50 * time.Millisecond}})
	x.e.path.RTTSample(x.now, time.Millisecond)
	if x.e.path.RTO() != 50*time.Millisecond {
		t.Fatalf("RTO %v, want configured RTO.Min 50ms", x.e.path.RTO())
	}
}

// RFC 9260 section 6.3.1 C5: "Karn's algorithm: RTT measurements MUST NOT
// be made using chunks that were retransmitted (and thus for which it
// is ambiguous whether the reply was for the first instance of the chunk
// or for a later instance)."
func TestRTOKarn(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: time.Millisecond}})
	x.queue(1, 100)
	x.flush()
	x.advance(time.Second)
	if !x.e.OnTimeout(x.now) {
		t.Fatal("T3 did not expire")
	}
	if got := x.flush(); len(got) != 1 {
		t.Fatalf("retransmitted %d chunks, want 1", len(got))
	}
	x.advance(10 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer)
	if x.e.path.SRTT() != 0 || x.e.stats.RTTSamples != 0 {
		t.Fatalf("RTT measured from a retransmitted chunk: SRTT %v", x.e.path.SRTT())
	}
}

// RFC 9260 section 6.3.1 C4: "When data is in flight and when allowed by
// rule C5 below, a new RTT measurement MUST be made each round trip.
// Furthermore, new RTT measurements SHOULD be made no more than once per
// round trip for a given destination transport address."
func TestRTOOncePerRoundTrip(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: time.Millisecond}})
	x.queue(3, 100)
	x.flush()
	x.advance(100 * time.Millisecond)
	x.mustSACK(1002, api.DefaultBuffer)
	if x.e.stats.RTTSamples != 1 {
		t.Fatalf("%d RTT samples from one round trip, want 1", x.e.stats.RTTSamples)
	}
}
