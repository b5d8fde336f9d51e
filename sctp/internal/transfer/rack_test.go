package transfer

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// measured gives x's path an RTT sample of rtt: one chunk sent and
// acknowledged rtt later.
func measured(t *testing.T, x *tx, rtt time.Duration) {
	t.Helper()
	x.queue(1, 100)
	x.flush()
	x.advance(rtt)
	x.mustSACK(x.e.NextTSN()-1, api.DefaultBuffer)
	if x.e.path.SRTT() != rtt {
		t.Fatalf("SRTT %v, want %v", x.e.path.SRTT(), rtt)
	}
}

// A lost retransmission is found again once data sent after it is
// acknowledged, with no timer: the case RFC 9260's "ineligible for a
// subsequent Fast Retransmit" leaves to T3-rtx.
func TestRACKLostRetransmission(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond) // TSN 1000
	x.e.path.cwnd = 30 * chunk1000
	x.queue(10, 1000)
	x.flush() // 1001..1010
	x.advance(20 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 2, 10) // 1001 missing, 1002..1010 arrived
	ds := x.packet()
	if len(ds) != 1 || ds[0].TSN != 1001 {
		t.Fatalf("retransmission %v, want 1001", ds)
	}
	if !x.e.path.inFastRecovery {
		t.Fatal("loss did not start fast recovery")
	}
	x.queue(3, 1000)
	if got := x.flush(); len(got) != 3 || got[0] != 1011 {
		t.Fatalf("new data %v, want 1011..1013", got)
	}
	x.advance(20 * time.Millisecond)
	// The retransmission is lost; the new chunks sent after it arrive.
	x.mustSACK(1000, api.DefaultBuffer, 2, 13)
	ds = x.packet()
	if len(ds) != 1 || ds[0].TSN != 1001 {
		t.Fatalf("second retransmission %v, want 1001", ds)
	}
	st := x.e.stats
	if st.RepeatFastRetransmits != 1 || st.FastRetransmit != 2 || st.T3Expiries != 0 {
		t.Fatalf("repeat %d fast %d T3 %d, want 1 2 0", st.RepeatFastRetransmits, st.FastRetransmit, st.T3Expiries)
	}
	checkInvariants(t, &x.e.send)

	// RFC 9260's rules leave the lost retransmission to T3-rtx.
	y := newTx(t, Config{Paths: api.Paths{MaxBurst: 100, Recovery: api.RecoveryRFC9260}})
	y.e.path.cwnd = 30 * chunk1000
	y.queue(10, 1000)
	y.flush() // 1000..1009
	for i := uint16(2); i <= 4; i++ {
		y.mustSACK(999, api.DefaultBuffer, 2, i)
	}
	if ds := y.packet(); len(ds) != 1 || ds[0].TSN != 1000 {
		t.Fatalf("RFC 9260 fast retransmission %v", ds)
	}
	y.queue(3, 1000)
	y.flush()
	for i := uint16(5); i <= 13; i++ {
		y.mustSACK(999, api.DefaultBuffer, 2, i)
	}
	if ds := y.packet(); len(ds) != 0 {
		t.Fatalf("RFC 9260 retransmitted again: %v", ds)
	}
}

// RFC 8985 section 6.2: a chunk above which less than three chunks were
// acknowledged, before any reordering was seen, waits a quarter of the
// minimum RTT (the reordering timer) before it counts as lost; a chunk
// sent once that arrives after a later one shows reordering.
func TestRACKReorderingTimer(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond) // TSN 1000
	x.e.path.cwnd = 30 * chunk1000
	x.queue(3, 1000)
	x.flush() // 1001..1003
	x.advance(20 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 2, 2) // 1002 arrived, 1001 not yet
	if ds := x.packet(); len(ds) != 0 {
		t.Fatalf("retransmitted %v within the reordering window", ds)
	}
	d := x.e.send.deadline()
	if want := x.now.Add(5 * time.Millisecond); !d.Equal(want) {
		t.Fatalf("reordering timer at %v, want minRTT/4 = 5ms from now", d.Sub(x.now))
	}
	x.advance(5 * time.Millisecond)
	x.e.OnTimeout(x.now)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1001 {
		t.Fatalf("after the reordering timer: %v, want 1001", ds)
	}
	// The same, but 1001 (sent once) arrives just after 1002: reordering.
	y := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, y, 20*time.Millisecond)
	y.e.path.cwnd = 30 * chunk1000
	y.queue(3, 1000)
	y.flush()
	y.advance(20 * time.Millisecond)
	y.mustSACK(1000, api.DefaultBuffer, 2, 2) // 1002 first
	y.advance(time.Millisecond)
	y.mustSACK(1003, api.DefaultBuffer) // then 1001, sent once: reordered
	if !y.e.path.rack.reordering {
		t.Fatal("reordering not seen")
	}
	if y.e.stats.Retransmits != 0 {
		t.Fatalf("%d retransmissions for a reordered chunk", y.e.stats.Retransmits)
	}
}

// Duplicate reports of a chunk sent twice mean the retransmission was not
// needed: they are counted and widen the reordering window (RFC 8985
// section 6.2 step 4, DSACK), once per transmission and at most once per
// round trip; duplicates of chunks sent once (the network's) do neither.
func TestRACKDuplicatesWidenWindow(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond)
	x.e.path.cwnd = 30 * chunk1000
	x.queue(6, 1000)
	x.flush() // 1001..1006
	x.advance(20 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 2, 6)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1001 {
		t.Fatalf("retransmission %v", ds)
	}
	w0 := x.e.send.reoWnd()
	x.advance(20 * time.Millisecond)
	sk := &SACK{CumTSNAck: 1005, ARwnd: api.DefaultBuffer, Dups: []TSN{1001, 1001, 1001, 1003}}
	if _, err := x.e.HandleSACK(x.now, sk); err != nil {
		t.Fatal(err)
	}
	if x.e.stats.SpuriousRetransmits != 1 {
		t.Fatalf("SpuriousRetransmits %d, want 1 (1001 reported thrice, 1003 was sent once)", x.e.stats.SpuriousRetransmits)
	}
	if k := x.e.path.rack; k.reoMult != 1 || !k.reordering && w0 != 0 {
		t.Fatalf("reoMult %d after one round trip of duplicates, want 1", k.reoMult)
	}
	x.queue(2, 100)
	x.flush() // 1007, 1008
	x.advance(20 * time.Millisecond)
	// 1008 stays outstanding: a sender with nothing outstanding rests and
	// forgets its records.
	sk = &SACK{CumTSNAck: 1007, ARwnd: api.DefaultBuffer, Dups: make([]TSN, 1000)}
	for i := range sk.Dups {
		sk.Dups[i] = 1001
	}
	if _, err := x.e.HandleSACK(x.now, sk); err != nil {
		t.Fatal(err)
	}
	if k := x.e.path.rack; k.reoMult != 1 || x.e.stats.SpuriousRetransmits != 1 {
		t.Fatalf("reoMult %d, spurious %d after a thousand more reports of the same transmission, want 1 1",
			k.reoMult, x.e.stats.SpuriousRetransmits)
	}
	if w := x.e.send.reoWnd(); w > x.e.path.SRTT() {
		t.Fatalf("reordering window %v above SRTT %v", w, x.e.path.SRTT())
	}
}

// A lost tail costs a probe after two SRTTs and the retransmission RACK
// then finds, about two round trips, not an RTO (RFC 8985 section 7). The
// probe asks for an immediate SACK (RFC 7053's I bit).
func TestTailLossProbe(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond) // TSN 1000
	x.e.path.cwnd = 30 * chunk1000
	x.queue(4, 1000)
	x.flush() // 1001..1004: all lost
	start := x.now
	d := x.e.send.deadline()
	if want := start.Add(40 * time.Millisecond); !d.Equal(want) {
		t.Fatalf("probe at %v, want 2*SRTT", d.Sub(start))
	}
	x.now = d
	if x.e.OnTimeout(x.now) {
		t.Fatal("the probe counted as a T3-rtx expiry")
	}
	ds := x.packet()
	if len(ds) != 1 || ds[0].TSN != 1004 || ds[0].Flags&chunk.FlagImmediate == 0 {
		t.Fatalf("probe %v, want 1004 with the I bit", ds)
	}
	x.advance(20 * time.Millisecond)
	x.mustSACK(1000, api.DefaultBuffer, 4, 4) // the probe arrived
	got := x.flush()
	if len(got) != 3 || got[0] != 1001 || got[2] != 1003 {
		t.Fatalf("after the probe's SACK sent %v, want 1001..1003", got)
	}
	x.advance(20 * time.Millisecond)
	x.mustSACK(1004, api.DefaultBuffer)
	if x.now.Sub(start) > 100*time.Millisecond || x.e.stats.T3Expiries != 0 || x.e.stats.Probes != 1 {
		t.Fatalf("tail recovered after %v with %d T3 expiries and %d probes", x.now.Sub(start), x.e.stats.T3Expiries, x.e.stats.Probes)
	}
	if !x.e.SendIdle() {
		t.Fatal("not idle")
	}
	// New data waiting to be sent is the probe when the peer's window
	// takes it, even when cwnd does not.
	x.queue(2, 1000)
	x.flush()
	x.e.path.cwnd = 0
	x.queue(1, 1000)
	x.now = x.e.send.deadline()
	x.e.OnTimeout(x.now)
	if ds := x.packet(); len(ds) != 1 || ds[0].TSN != 1007 || ds[0].Flags&chunk.FlagImmediate == 0 {
		t.Fatalf("probe %v, want new TSN 1007 with the I bit", ds)
	}
}

// Probes are bounded: without an acknowledgement of new data at most
// maxProbes go out, then T3-rtx takes over.
func TestProbesBounded(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond)
	x.queue(2, 1000)
	x.flush()
	t3 := x.e.send.loss.t3
	for x.now.Before(t3) {
		x.now = x.e.send.deadline()
		x.e.OnTimeout(x.now)
		x.flush()
		// SACKs that acknowledge nothing new do not rearm the probes.
		x.mustSACK(1000, api.DefaultBuffer)
	}
	if x.e.stats.Probes != maxProbes || x.e.stats.T3Expiries != 1 {
		t.Fatalf("%d probes and %d T3 expiries before %v", x.e.stats.Probes, x.e.stats.T3Expiries, t3.Sub(epoch))
	}
}

// The RTO back-off ends when new data, sent once (Karn's rule), is
// acknowledged, without waiting for the next RTT measurement; with the RFC
// 9260 rules it stays.
func TestRTOBackoffUndone(t *testing.T) {
	for _, rec := range []api.Recovery{api.RecoveryRACK, api.RecoveryRFC9260} {
		x := newTx(t, Config{Timers: api.Timers{RTOMin: 100 * time.Millisecond}, Paths: api.Paths{MaxBurst: 100, Recovery: rec}})
		measured(t, x, 20*time.Millisecond) // RTO = 20 + 4*10 ms, at RTOMin 100 ms
		x.e.path.cwnd = 30 * chunk1000
		x.queue(4, 1000)
		x.flush() // 1001..1004
		x.now = x.e.send.loss.t3
		x.e.OnTimeout(x.now)
		if rto := x.e.path.RTO(); rto != 200*time.Millisecond {
			t.Fatalf("RTO %v after T3, want 200ms", rto)
		}
		x.flush() // 1001 again
		x.advance(10 * time.Millisecond)
		x.mustSACK(1000, api.DefaultBuffer, 2, 2) // 1002, sent once
		want := 200 * time.Millisecond
		if rec == api.RecoveryRACK {
			want = 100 * time.Millisecond
		}
		if rto := x.e.path.RTO(); rto != want {
			t.Fatalf("recovery %d: RTO %v after new data was acknowledged, want %v", rec, rto, want)
		}
	}
	// An acknowledgement of retransmitted chunks only keeps the back-off.
	x := newTx(t, Config{Timers: api.Timers{RTOMin: 100 * time.Millisecond}, Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond)
	x.queue(1, 1000)
	x.flush()
	x.now = x.e.send.loss.t3
	x.e.OnTimeout(x.now)
	x.flush()
	x.advance(10 * time.Millisecond)
	x.mustSACK(1001, api.DefaultBuffer)
	if rto := x.e.path.RTO(); rto != 200*time.Millisecond {
		t.Fatalf("RTO %v after only a retransmission was acknowledged, want 200ms", rto)
	}
}

// With RecoveryRACK, T3-rtx marks only chunks outstanding for at least the
// RTO without back-off; the earliest is always retransmitted (E3).
func TestT3MarksOldChunks(t *testing.T) {
	x := newTx(t, Config{Timers: api.Timers{RTOMin: 100 * time.Millisecond}, Paths: api.Paths{MaxBurst: 100}})
	measured(t, x, 20*time.Millisecond) // RTO 100 ms
	x.e.path.cwnd = 30 * chunk1000
	x.queue(3, 1000)
	x.flush() // 1001..1003 at 20 ms
	x.advance(60 * time.Millisecond)
	x.e.path.rack.probes = maxProbes // no probe in the way
	x.e.path.rack.pto = time.Time{}
	x.queue(2, 1000)
	x.flush()                // 1004, 1005 at 80 ms
	x.now = x.e.send.loss.t3 // 120 ms
	if !x.e.OnTimeout(x.now) {
		t.Fatal("T3 did not expire")
	}
	if n := x.e.send.ledger.rtxPending; n != 3 {
		t.Fatalf("%d chunks marked, want the 3 sent 100 ms ago", n)
	}
	x.flush()
	if d := x.e.send.deadline(); !d.Equal(x.e.send.loss.t3) {
		t.Fatalf("after T3 the next deadline is %v, T3 at %v: no probe while one packet may be in flight", d.Sub(x.now), x.e.send.loss.t3.Sub(x.now))
	}
	checkInvariants(t, &x.e.send)
}

// RFC 6928 style initial window, off by default.
func TestInitialWindow(t *testing.T) {
	x := newTx(t, Config{Paths: api.Paths{InitialWindow: 10}})
	if c := x.e.path.Cwnd(); c != 10*testPMDCS {
		t.Fatalf("cwnd %d, want %d", c, 10*testPMDCS)
	}
	if _, err := New(Config{OutStreams: 1, InStreams: 1, Paths: api.Paths{InitialWindow: -1}}); err == nil {
		t.Fatal("negative initial window accepted")
	}
}
