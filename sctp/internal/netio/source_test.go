package netio

import (
	"net/netip"
	"testing"
)

// TestSourceChooser: without the kernel's routes, a packet to a peer not
// heard from leaves from the endpoint's first address of the peer's
// family; once the peer's packets arrive on an address of the endpoint,
// answers leave from that one; packets to an address not the endpoint's
// are refused and counted.
func TestSourceChooser(t *testing.T) {
	a4, b4 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.1.0.1")
	a6 := netip.MustParseAddr("fd00::1")
	c, err := NewSourceChooser([]netip.Addr{a4, b4, a6}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p4, p6 := netip.MustParseAddr("10.1.0.2"), netip.MustParseAddr("fd00::2")
	if s := c.Source(p4); s != a4 {
		t.Fatalf("source to %v not heard from: %v, want %v", p4, s, a4)
	}
	if s := c.Source(p6); s != a6 {
		t.Fatalf("source to %v not heard from: %v, want %v", p6, s, a6)
	}
	if !c.Arrived(p4, b4) {
		t.Fatalf("packet to %v refused", b4)
	}
	if s := c.Source(p4); s != b4 {
		t.Fatalf("source to %v after it sent to %v: %v", p4, b4, s)
	}
	if c.Arrived(p4, netip.MustParseAddr("10.2.0.1")) || c.Dropped() != 1 {
		t.Fatalf("packet to another address of the host: dropped %d", c.Dropped())
	}
	if s := c.Source(p4); s != b4 {
		t.Fatalf("source to %v changed by a refused packet: %v", p4, s)
	}
	// The cache starts again when full, and is refilled.
	for i := range maxSources + 1 {
		c.Source(netip.AddrFrom4([4]byte{192, 168, byte(i >> 8), byte(i)}))
	}
	if len(c.srcs) > maxSources {
		t.Fatalf("%d sources cached, at most %d", len(c.srcs), maxSources)
	}
	if s := c.Source(p4); s != a4 {
		t.Fatalf("source to %v after the cache started again: %v, want %v", p4, s, a4)
	}
}
