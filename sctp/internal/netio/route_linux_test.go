//go:build linux

package netio

import (
	"net/netip"
	"testing"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// The route probe names the source address the kernel picks: loopback for
// loopback, and nothing for a destination without a route.
func TestRouteProbeSource(t *testing.T) {
	r, err := NewRouteProbe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Source(netip.MustParseAddr("127.0.0.5")); got != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("source for 127.0.0.5: %v, want 127.0.0.1", got)
	}
	if got := r.Source(netip.MustParseAddr("::1")); got.IsValid() && got != netip.MustParseAddr("::1") {
		t.Errorf("source for ::1: %v", got)
	}
	// In a namespace of its own, the probe sees that namespace's routes.
	nsA, _ := netnsPair(t)
	var p *RouteProbe
	inNetns(t, nsA, func() { p, err = NewRouteProbe() })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.Source(netip.MustParseAddr("10.201.0.2")); got != netip.MustParseAddr("10.201.0.1") {
		t.Errorf("in the namespace, source for 10.201.0.2: %v, want 10.201.0.1", got)
	}
	if got := p.Source(netip.MustParseAddr("192.0.2.1")); got.IsValid() {
		t.Errorf("in the namespace (no default route), source for 192.0.2.1: %v, want none", got)
	}
	// Each lookup is the route's own, not the first destination's source
	// (a connected UDP socket keeps the source it was given: the probe
	// named the first multi-homed path's address for the second path's
	// peer address, TestKernelMultihom's first HEARTBEATs to it).
	if got := p.Source(netip.MustParseAddr("127.0.0.5")); got != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("in the namespace, source for 127.0.0.5 after 10.201.0.2: %v, want 127.0.0.1", got)
	}
	if got := p.Source(netip.MustParseAddr("10.201.0.2")); got != netip.MustParseAddr("10.201.0.1") {
		t.Errorf("in the namespace, source for 10.201.0.2 after 127.0.0.5: %v, want 10.201.0.1", got)
	}
}

// The route probe reports the MTU of the route's device: loopback's (65535,
// the most an IPv4 packet holds), and
// in a namespace a veth set to 9000 bytes (IPv4 and IPv6 alike); nothing
// without a route.
func TestRouteProbeMTU(t *testing.T) {
	r, err := NewRouteProbe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.MTU(netip.MustParseAddr("127.0.0.1")); got != 65535 {
		t.Errorf("MTU to 127.0.0.1: %d, want 65535 (loopback's 65536, capped at an IPv4 packet)", got)
	}
	nsA, _ := netnsPair(t)
	netnstest.SetMTU(t, nsA, "usctp0", 9000)
	var p *RouteProbe
	inNetns(t, nsA, func() { p, err = NewRouteProbe() })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, dst := range []string{"10.201.0.2", "fd00:201:0::2"} {
		if got := p.MTU(netip.MustParseAddr(dst)); got != 9000 {
			t.Errorf("in the namespace, MTU to %s: %d, want 9000", dst, got)
		}
	}
	if got := p.MTU(netip.MustParseAddr("192.0.2.1")); got != 0 {
		t.Errorf("in the namespace (no default route), MTU to 192.0.2.1: %d, want 0", got)
	}
}
