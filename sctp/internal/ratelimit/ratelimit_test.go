package ratelimit

import (
	"net/netip"
	"testing"
	"time"
)

var t0 = time.Unix(1_800_000_000, 0)

// answered counts how many of n packets from src at now are allowed.
func answered(l *Limiter, now time.Time, src netip.Addr, n int) int {
	k := 0
	for range n {
		if l.Allow(now, src) {
			k++
		}
	}
	return k
}

// TestPerSource: a source gets its burst at once, then its rate; other
// sources are not affected, and refusals are counted.
func TestPerSource(t *testing.T) {
	l := New(Config{Rate: 10, Burst: 20})
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	if k := answered(l, t0, a, 100); k != 20 {
		t.Fatalf("burst: %d of 100 answered, want 20", k)
	}
	if l.Limited != 80 {
		t.Fatalf("Limited %d, want 80", l.Limited)
	}
	if k := answered(l, t0, b, 5); k != 5 {
		t.Fatalf("another source: %d of 5 answered", k)
	}
	// Half a second later: 5 more for a.
	if k := answered(l, t0.Add(500*time.Millisecond), a, 100); k != 5 {
		t.Fatalf("after 0.5 s at 10/s: %d answered, want 5", k)
	}
	// An hour later: the burst again, not an hour's worth.
	if k := answered(l, t0.Add(time.Hour), a, 100); k != 20 {
		t.Fatalf("after an hour: %d answered, want the burst of 20", k)
	}
	// A clock that goes back gives nothing.
	if k := answered(l, t0, a, 10); k != 0 {
		t.Fatalf("clock back: %d answered", k)
	}
}

// TestPrefixes: IPv6 sources in one /64 share a bucket, IPv4-mapped
// addresses count as their IPv4 address.
func TestPrefixes(t *testing.T) {
	l := New(Config{Rate: 1, Burst: 3})
	if k := answered(l, t0, netip.MustParseAddr("2001:db8::1"), 2) + answered(l, t0, netip.MustParseAddr("2001:db8::ffff:2"), 2); k != 3 {
		t.Fatalf("one /64: %d answered, want 3", k)
	}
	if k := answered(l, t0, netip.MustParseAddr("2001:db8:0:1::1"), 3); k != 3 {
		t.Fatalf("next /64: %d answered, want 3", k)
	}
	if k := answered(l, t0, netip.MustParseAddr("198.51.100.7"), 2) + answered(l, t0, netip.MustParseAddr("::ffff:198.51.100.7"), 2); k != 3 {
		t.Fatalf("IPv4 and IPv4-mapped: %d answered, want 3", k)
	}
}

// TestGlobal: many sources together are held to the global rate.
func TestGlobal(t *testing.T) {
	l := New(Config{Rate: 100, Burst: 100, GlobalRate: 50, GlobalBurst: 50, Sources: 64})
	k := 0
	for i := range 1000 {
		src := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if l.Allow(t0, src) {
			k++
		}
	}
	if k != 50 || l.LimitedGlobal != 950 {
		t.Fatalf("%d of 1000 sources answered (%d refused globally), want 50", k, l.LimitedGlobal)
	}
}

// TestEviction: a table smaller than the sources forgets some, and a
// forgotten source starts again with a full burst (never more).
func TestEviction(t *testing.T) {
	l := New(Config{Rate: 1, Burst: 2, Sources: 4})
	victim := netip.MustParseAddr("203.0.113.9")
	answered(l, t0, victim, 2)
	for i := range 100 {
		l.Allow(t0.Add(time.Millisecond), netip.AddrFrom4([4]byte{10, 1, 0, byte(i)}))
	}
	if k := answered(l, t0.Add(2*time.Millisecond), victim, 10); k > 2 {
		t.Fatalf("forgotten source answered %d times, more than its burst", k)
	}
	if len(l.table) != 4 {
		t.Fatalf("table of %d entries for 4 sources", len(l.table))
	}
}

// TestReserve: while the shared pool holds tokens a source may go on past
// its burst; once the pool is spent (pressure) every source is held to
// its own burst, and the pool refills at the rate.
func TestReserve(t *testing.T) {
	l := New(Config{Rate: 10, Burst: 20, Reserve: 100})
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	if k := answered(l, t0, a, 1000); k != 120 {
		t.Fatalf("burst and reserve: %d of 1000 answered, want 20 + 100", k)
	}
	if l.Reserved != 100 || l.Limited != 880 {
		t.Fatalf("Reserved %d, Limited %d; want 100, 880", l.Reserved, l.Limited)
	}
	// The pool is spent: b gets its burst, no more.
	if k := answered(l, t0, b, 100); k != 20 {
		t.Fatalf("under pressure: %d of 100 answered, want the burst of 20", k)
	}
	// A second later the pool holds 10 answers again, and a's bucket 10
	// tokens, all in its reserve: a gets 10.
	if k := answered(l, t0.Add(time.Second), a, 100); k != 10 {
		t.Fatalf("a second later: %d answered, want 10", k)
	}
	// b drew nothing on the reserve: its 10 new tokens are its own, the
	// rate, though the pool is spent.
	if k := answered(l, t0.Add(time.Second), b, 100); k != 10 {
		t.Fatalf("b a second later: %d answered, want 10", k)
	}
	// a, all of whose tokens are in its reserve, gets what the pool
	// earned meanwhile.
	if k := answered(l, t0.Add(1500*time.Millisecond), a, 100); k != 5 {
		t.Fatalf("a half a second later: %d answered, want 5", k)
	}
	// Thirteen seconds later every bucket and the pool are full.
	if k := answered(l, t0.Add(14*time.Second), b, 1000); k != 120 {
		t.Fatalf("b after the refill: %d answered, want 120", k)
	}
}

// TestConfirm: a confirmed answer gives its token back to the source, and
// to the pool if it was drawn from it; confirmations from a source that
// drew nothing on the pool give the pool nothing, so they cannot fund the
// answers to other sources.
func TestConfirm(t *testing.T) {
	l := New(Config{Rate: 10, Burst: 20, Reserve: 100})
	host, victim := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("198.51.100.9")
	if k := answered(l, t0, host, 120); k != 120 {
		t.Fatalf("%d of 120 answered", k)
	}
	for range 120 {
		l.Confirm(t0, host)
	}
	if l.Confirmed != 120 {
		t.Fatalf("Confirmed %d, want 120", l.Confirmed)
	}
	// Both are full again: the host can do it again, or another source.
	if k := answered(l, t0, host, 120); k != 120 {
		t.Fatalf("after confirmation: %d of 120 answered", k)
	}
	for range 120 {
		l.Confirm(t0, host)
	}
	if k := answered(l, t0, victim, 1000); k != 120 {
		t.Fatalf("victim: %d answered, want 120", k)
	}
	// The pool is spent by answers nobody confirms. The host, whose
	// bucket is full, confirms as often as it likes: the pool stays
	// empty, and the victim gets nothing more.
	for range 1000 {
		l.Confirm(t0, host)
	}
	if k := answered(l, t0, victim, 1000); k != 0 {
		t.Fatalf("victim after the host's confirmations: %d answered, want none", k)
	}
	if k := answered(l, t0, host, 1000); k != 20 {
		t.Fatalf("host under pressure: %d answered, want its burst of 20", k)
	}
	// A confirmation from a source the limiter does not track is not
	// counted and makes no entry.
	l.Confirm(t0, netip.MustParseAddr("203.0.113.1"))
	if l.Confirmed != 1240 {
		t.Fatalf("Confirmed %d, want 1240", l.Confirmed)
	}
}

// TestReserveFloodBounded: a flood toward one forged source, or many,
// gets the bursts, the reserve once and the rate: over a minute one
// source gets Burst + Reserve + 60 Rate, and twenty sources twenty bursts
// and rates but the reserve once (at most; what a source drew on the
// reserve it earns back at its rate before it is answered again), and
// not less than without a reserve.
func TestReserveFloodBounded(t *testing.T) {
	const rate, burst, reserve = 100, 200, 1000
	l := New(Config{Rate: rate, Burst: burst, Reserve: reserve})
	victim := netip.MustParseAddr("198.51.100.9")
	k := 0
	for i := range 60_000 { // 1,000 a second for a minute
		k += answered(l, t0.Add(time.Duration(i)*time.Millisecond), victim, 1)
	}
	if want := burst + reserve + 60*rate; k > want || k < want-1 {
		t.Fatalf("one source: %d answered in a minute, want %d", k, want)
	}
	l = New(Config{Rate: rate, Burst: burst, Reserve: reserve})
	k = 0
	for i := range 6000 { // 20 sources, 10,000 a second each, for 6 s
		now := t0.Add(time.Duration(i) * time.Millisecond)
		for s := range 20 {
			k += answered(l, now, netip.AddrFrom4([4]byte{10, 0, 0, byte(s)}), 10)
		}
	}
	if most, least := 20*(burst+6*rate)+reserve+6*rate, 20*(burst+6*rate-1); k > most || k < least {
		t.Fatalf("20 sources: %d answered in 6 s, want %d to %d", k, least, most)
	}
}

// TestNoAllocs: Allow allocates nothing.
func TestNoAllocs(t *testing.T) {
	l := New(Config{})
	src := netip.MustParseAddr("2001:db8::7")
	now := t0
	if n := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		l.Allow(now, src)
	}); n != 0 {
		t.Fatalf("%v allocations per Allow", n)
	}
}

// TestReserveNoAllocs: with a reserve, Allow and Confirm allocate nothing.
func TestReserveNoAllocs(t *testing.T) {
	l := New(Config{Reserve: 10})
	src := netip.MustParseAddr("2001:db8::7")
	now := t0
	if n := testing.AllocsPerRun(1000, func() {
		now = now.Add(100 * time.Microsecond)
		l.Allow(now, src)
		l.Allow(now, src)
		l.Confirm(now, src)
	}); n != 0 {
		t.Fatalf("%v allocations per Allow and Confirm", n)
	}
}
