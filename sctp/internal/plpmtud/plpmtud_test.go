package plpmtud

import (
	"testing"
	"time"
)

var pmtuT0 = time.Unix(1000, 0)

// pmtuRun plays a path for a Prober: probes up to carry bytes get
// through, larger ones are lost. It returns the PLPMTU when the search
// completes and the probes it took.
func pmtuRun(t *testing.T, p *Prober, carry int, limit int) (int, int, time.Duration) {
	t.Helper()
	now := pmtuT0
	probes := 0
	for i := 0; i < limit; i++ {
		if p.State() == StateSearchComplete || p.State() == StateError {
			return p.PLPMTU(), probes, now.Sub(pmtuT0)
		}
		size, _ := p.OnTimer(now, 0)
		if p.State() == StateSearchComplete {
			return p.PLPMTU(), probes, now.Sub(pmtuT0)
		}
		if size != 0 {
			probes++
			p.Sent(now, uint64(probes))
			if size <= carry {
				now = now.Add(20 * time.Millisecond)
				if ours, _ := p.Acked(now, uint64(probes)); !ours {
					t.Fatalf("ack of probe %d not taken", probes)
				}
				continue
			}
		}
		d := p.Deadline()
		if d.IsZero() {
			t.Fatalf("no deadline in state %v", p.State())
		}
		now = d
	}
	t.Fatalf("no convergence after %d steps: state %v PLPMTU %d", limit, p.State(), p.PLPMTU())
	return 0, 0, 0
}

// TestPMTUSearchLargestFirst: a path that carries the upper bound is
// confirmed with two probes (BASE_PLPMTU, then the upper bound).
func TestPMTUSearchLargestFirst(t *testing.T) {
	var p Prober
	if got := p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48}); got != 1152 {
		t.Fatalf("PLPMTU at start %d, want BASE_PLPMTU 1152", got)
	}
	mtu, probes, _ := pmtuRun(t, &p, 1452, 100)
	if mtu != 1452 || probes != 2 {
		t.Fatalf("PLPMTU %d after %d probes, want 1452 after 2", mtu, probes)
	}
}

// TestPMTUMaxProbes: "The default value of MAX_PROBES is 3." (RFC 8899
// section 5.1.2). A size is given up after three lost probes, not before,
// and the search goes on below it.
func TestPMTUMaxProbes(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48})
	now := pmtuT0
	size, _ := p.OnTimer(now, 0)
	p.Sent(now, 1)
	p.Acked(now, 1) // BASE confirmed
	if p.State() != StateSearch {
		t.Fatalf("state %v after the BASE probe, want search", p.State())
	}
	for i := range MaxProbes {
		size, _ = p.OnTimer(now, 0)
		if size != 1452 {
			t.Fatalf("probe %d of size %d, want 1452 again", i+1, size)
		}
		p.Sent(now, 2)
		now = p.Deadline()
	}
	size, _ = p.OnTimer(now, 0)
	if size == 1452 || size == 0 {
		t.Fatalf("after %d lost probes the next is of size %d", MaxProbes, size)
	}
	if p.PLPMTU() != 1152 {
		t.Fatalf("PLPMTU %d, want 1152 while searching", p.PLPMTU())
	}
}

// TestPMTUProbeTimerAtLeastOneSecond: RFC 8899 section 5.1.1, the
// PROBE_TIMER "MUST NOT be smaller than 1 second".
func TestPMTUProbeTimerAtLeastOneSecond(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452})
	p.OnTimer(pmtuT0, time.Millisecond)
	if d := p.Deadline().Sub(pmtuT0); d < time.Second {
		t.Fatalf("probe timer %v", d)
	}
}

// TestPMTUConvergesOnCommonSizes: paths of common and uncommon link MTUs
// converge to their size (within 10%: a path a little above a common
// link MTU settles on it), in few probes.
func TestPMTUConvergesOnCommonSizes(t *testing.T) {
	for _, tt := range []struct{ max, carry int }{
		{1452, 1232}, {1452, 1300}, {1452, 1152}, {65487, 8952}, {65487, 65487}, {65487, 1432}, {8952, 4000},
	} {
		var p Prober
		p.Start(pmtuT0, Config{Base: 1152, Max: tt.max, Overhead: 48})
		mtu, probes, d := pmtuRun(t, &p, tt.carry, 1000)
		t.Logf("max %d carry %d: PLPMTU %d after %d probes, %v", tt.max, tt.carry, mtu, probes, d)
		if mtu > tt.carry || mtu < tt.carry*9/10 {
			t.Errorf("max %d carry %d: PLPMTU %d", tt.max, tt.carry, mtu)
		}
		if probes > 30 {
			t.Errorf("max %d carry %d: %d probes", tt.max, tt.carry, probes)
		}
	}
}

// TestPMTUBaseLostIsError: BASE_PLPMTU probes lost MAX_PROBES times move
// the path to ERROR (RFC 8899 section 5.2), where it keeps BASE_PLPMTU,
// and a later acknowledged probe resumes the search.
func TestPMTUBaseLostIsError(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452})
	now := pmtuT0
	for range MaxProbes + 1 {
		if size, _ := p.OnTimer(now, 0); size != 0 {
			p.Sent(now, 9)
		}
		now = p.Deadline()
	}
	if p.State() != StateError || p.PLPMTU() != 1152 {
		t.Fatalf("state %v PLPMTU %d, want error at 1152", p.State(), p.PLPMTU())
	}
	size, _ := p.OnTimer(now, 0)
	p.Sent(now, 10)
	if size != 1152 {
		t.Fatalf("ERROR probes %d, want BASE_PLPMTU", size)
	}
	if ours, _ := p.Acked(now, 10); !ours || p.State() != StateSearch {
		t.Fatalf("state %v after the BASE ack", p.State())
	}
}

// TestPMTUPTBNeverRaises: RFC 8899 section 4.6.2, a PTB reporting a size
// at or above the probed one, or below the minimum, is discarded; a valid
// one lowers the PLPMTU, never raises it.
func TestPMTUPTBNeverRaises(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48})
	pmtuRun(t, &p, 1352, 100)
	if p.PLPMTU() != 1352 {
		t.Fatalf("PLPMTU %d", p.PLPMTU())
	}
	for _, mtu := range []int{1500, 9000, 1000, 1199} {
		if valid, used, changed := p.PTB(pmtuT0, mtu, false); valid || used || changed {
			t.Fatalf("PTB %d valid (%v), used (%v) or changed the PLPMTU (%v)", mtu, valid, used, changed)
		}
	}
	for _, mtu := range []int{1400, 1400 + 4, 1480} {
		if _, used, changed := p.PTB(pmtuT0, mtu, false); used || changed {
			t.Fatalf("PTB %d at or above the PLPMTU used (%v) or changed it (%v)", mtu, used, changed)
		}
	}
	if valid, used, changed := p.PTB(pmtuT0, 1280, false); !valid || !used || !changed || p.PLPMTU() != 1232 {
		t.Fatalf("PTB 1280: valid %v used %v changed %v PLPMTU %d", valid, used, changed, p.PLPMTU())
	}
}

// TestPMTUBlackHole: a suspected black hole drops the PLPMTU to
// BASE_PLPMTU at once; a lost check of the old size starts a new search,
// an acknowledged one restores it.
func TestPMTUBlackHole(t *testing.T) {
	for _, carry := range []int{1452, 1352} {
		var p Prober
		p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48})
		pmtuRun(t, &p, 1452, 100)
		if !p.Suspect(pmtuT0) || p.PLPMTU() != 1152 {
			t.Fatalf("Suspect: PLPMTU %d, want BASE_PLPMTU", p.PLPMTU())
		}
		mtu, _, _ := pmtuRun(t, &p, carry, 100)
		if mtu != carry {
			t.Fatalf("path carrying %d: PLPMTU %d after the black-hole check", carry, mtu)
		}
	}
}

// TestPMTURaiseTimer: a search that ended below the upper bound probes
// again after PMTU_RAISE_TIMER and finds a larger PLPMTU.
func TestPMTURaiseTimer(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 1452, Overhead: 48, Raise: time.Minute})
	pmtuRun(t, &p, 1232, 100)
	d := p.Deadline()
	if d.IsZero() || d.Sub(pmtuT0) < time.Minute {
		t.Fatalf("raise deadline %v", d)
	}
	size, _ := p.OnTimer(d, 0)
	if p.State() != StateSearch || size <= 1232 {
		t.Fatalf("after PMTU_RAISE_TIMER: state %v probe %d", p.State(), size)
	}
}

// TestPMTUHoldIsNotALoss: a probe put off by the sender's pacing (Hold)
// was never sent: it counts as no loss however often it is held, it is
// not outstanding, an acknowledgement of an earlier probe's nonce does
// not confirm it, and once sent it goes on as any probe.
func TestPMTUHoldIsNotALoss(t *testing.T) {
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 65500, Overhead: 48})
	now := pmtuT0
	size, _ := p.OnTimer(now, 0) // BASE_PLPMTU
	p.Sent(now, 1)
	if ours, _ := p.Acked(now, 1); !ours {
		t.Fatal("base probe not acknowledged")
	}
	for i := range 3 * MaxProbes {
		now = now.Add(time.Second)
		size, _ = p.OnTimer(now, 0)
		if size != 65500 {
			t.Fatalf("round %d: probe of %d, want the upper bound 65500", i, size)
		}
		p.Hold(now.Add(10 * time.Millisecond))
		if s, _, _ := p.Outstanding(); s != 0 {
			t.Fatalf("round %d: a held probe of %d is outstanding", i, s)
		}
		if ours, _ := p.Acked(now, 1); ours {
			t.Fatalf("round %d: the base probe's nonce confirmed a held probe", i)
		}
		if d := p.Deadline(); !d.Equal(now.Add(10 * time.Millisecond)) {
			t.Fatalf("round %d: deadline %v, want the hold's end", i, d.Sub(now))
		}
		if s, _ := p.OnTimer(now.Add(5*time.Millisecond), 0); s != 0 {
			t.Fatalf("round %d: probe of %d before the hold ended", i, s)
		}
	}
	if p.State() != StateSearch || p.PLPMTU() != 1152 {
		t.Fatalf("after %d holds: state %v, PLPMTU %d; want SEARCH at 1152", 3*MaxProbes, p.State(), p.PLPMTU())
	}
	now = now.Add(time.Second)
	if size, _ = p.OnTimer(now, 0); size != 65500 {
		t.Fatalf("probe of %d after the holds, want 65500", size)
	}
	p.Sent(now, 2)
	if ours, _ := p.Acked(now, 2); !ours || p.PLPMTU() != 65500 {
		t.Fatalf("ack taken %v, PLPMTU %d, want 65500", ours, p.PLPMTU())
	}
}

// TestPMTUAgain: a probe unanswered for the probe timeout OnTimer was
// given (two round trips) goes once more with the same nonce while its
// PROBE_TIMER runs on; an acknowledgement of either copy confirms the
// size. One copy per PROBE_TIMER; none when the timeout is not below the
// timer's second (no RTT measured yet) or the probe was answered.
func TestPMTUAgain(t *testing.T) {
	const rto = 40 * time.Millisecond
	var p Prober
	p.Start(pmtuT0, Config{Base: 1152, Max: 8952, Overhead: 48})
	now := pmtuT0
	p.OnTimer(now, rto)
	p.Sent(now, 1)
	p.Acked(now, 1) // BASE confirmed
	size, _ := p.OnTimer(now, rto)
	if size != 8952 {
		t.Fatalf("probe of %d, want 8952", size)
	}
	p.Sent(now, 2)
	if d := p.Deadline(); !d.Equal(now.Add(rto)) {
		t.Fatalf("deadline %v after the probe, want the copy's, %v later", d.Sub(now), rto)
	}
	if p.Again(now.Add(rto - time.Millisecond)) {
		t.Fatal("copy before the probe timeout")
	}
	now = now.Add(rto)
	if !p.Again(now) {
		t.Fatal("no copy at the probe timeout")
	}
	if p.Again(now) {
		t.Fatal("a second copy")
	}
	if d := p.Deadline(); !d.Equal(pmtuT0.Add(time.Second)) {
		t.Fatalf("deadline %v after the copy, want the PROBE_TIMER's, 1s after the probe", d.Sub(pmtuT0))
	}
	if s, n, _ := p.Outstanding(); s != 8952 || n != 2 {
		t.Fatalf("outstanding %d nonce %d after the copy, want 8952 nonce 2", s, n)
	}
	if size, _ := p.OnTimer(now, rto); size != 0 {
		t.Fatalf("OnTimer before the PROBE_TIMER sent %d", size)
	}
	if ours, changed := p.Acked(now.Add(20*time.Millisecond), 2); !ours || !changed || p.PLPMTU() != 8952 {
		t.Fatalf("ack of the copy: ours %v changed %v PLPMTU %d", ours, changed, p.PLPMTU())
	}

	// Both copies lost: the PROBE_TIMER counts one loss, and the probe
	// sent again then has a copy of its own.
	var q Prober
	q.Start(pmtuT0, Config{Base: 1152, Max: 8952, Overhead: 48})
	now = pmtuT0
	q.OnTimer(now, rto)
	q.Sent(now, 1)
	q.Acked(now, 1)
	q.OnTimer(now, rto)
	q.Sent(now, 2)
	now = q.Deadline()
	if !q.Again(now) {
		t.Fatal("no copy")
	}
	now = q.Deadline()
	if q.Again(now) {
		t.Fatal("a copy at the PROBE_TIMER")
	}
	if size, _ := q.OnTimer(now, rto); size != 8952 || q.count != 1 {
		t.Fatalf("after the PROBE_TIMER: probe of %d, PROBE_COUNT %d; want 8952, 1", size, q.count)
	}
	q.Sent(now, 2)
	if !q.Again(now.Add(rto)) {
		t.Fatal("no copy of the probe sent after the PROBE_TIMER")
	}

	// No copy when the probe timeout is not below the PROBE_TIMER, nor
	// after the probe was answered, nor of a probe held by the pacer.
	for _, timeout := range []time.Duration{0, time.Second, 3 * time.Second} {
		var r Prober
		r.Start(pmtuT0, Config{Base: 1152, Max: 8952, Overhead: 48})
		r.OnTimer(pmtuT0, timeout)
		r.Sent(pmtuT0, 1)
		for at := pmtuT0; at.Before(pmtuT0.Add(time.Second)); at = at.Add(10 * time.Millisecond) {
			if r.Again(at) {
				t.Fatalf("copy at %v with timeout %v", at.Sub(pmtuT0), timeout)
			}
		}
	}
	var r Prober
	r.Start(pmtuT0, Config{Base: 1152, Max: 8952, Overhead: 48})
	r.OnTimer(pmtuT0, rto)
	r.Sent(pmtuT0, 1)
	r.Acked(pmtuT0.Add(time.Millisecond), 1)
	if r.Again(pmtuT0.Add(rto)) {
		t.Fatal("copy of an answered probe")
	}
	size, _ = r.OnTimer(pmtuT0.Add(rto), rto)
	r.Hold(pmtuT0.Add(2 * rto))
	if r.Again(pmtuT0.Add(2 * rto)) {
		t.Fatalf("copy of a held probe of %d", size)
	}
}
