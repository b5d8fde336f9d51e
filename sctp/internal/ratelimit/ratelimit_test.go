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
