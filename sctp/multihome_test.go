package sctp

import (
	"net/netip"
	"slices"
	"testing"
)

// The socket a local address list gives: a specific address is bound as
// is; one listed address is bound; two or more bind the wildcard of their
// family (dual-stack with both; for raw IP, whose sockets are one family,
// the IPv6 wildcard stands for a pair, netio.DualIPConn); duplicates count
// once; unusable addresses are refused.
func TestBindAddrs(t *testing.T) {
	v4, v6 := netip.IPv4Unspecified(), netip.IPv6Unspecified()
	for _, tc := range []struct {
		ip     netip.Addr
		list   []netip.Addr
		bind   netip.Addr
		locals []netip.Addr
		bad    bool
	}{
		{ip: netip.MustParseAddr("10.0.0.1"), list: addrsOf("10.0.1.1", "10.0.2.1"), bind: netip.MustParseAddr("10.0.0.1")},
		{ip: v4, bind: v4},
		{ip: v4, list: addrsOf("10.0.1.1"), bind: netip.MustParseAddr("10.0.1.1")},
		{ip: v4, list: addrsOf("10.0.1.1", "10.0.2.1", "10.0.1.1"), bind: v4, locals: addrsOf("10.0.1.1", "10.0.2.1")},
		{ip: v6, list: addrsOf("fd00::1", "fd00:1::1"), bind: v6, locals: addrsOf("fd00::1", "fd00:1::1")},
		{list: addrsOf("10.0.1.1", "fd00::1"), bind: v6, locals: addrsOf("10.0.1.1", "fd00::1")},
		{list: addrsOf("10.0.1.1", "0.0.0.0"), bad: true},
		{list: addrsOf("10.0.1.1", "224.0.0.1"), bad: true},
	} {
		bind, locals, err := bindAddrs(tc.ip, tc.list)
		if tc.bad {
			if err == nil {
				t.Errorf("%v %v: no error", tc.ip, tc.list)
			}
			continue
		}
		if err != nil || bind != tc.bind || !slices.Equal(locals, tc.locals) {
			t.Errorf("%v %v: bind %v locals %v %v, want %v %v", tc.ip, tc.list, bind, locals, err, tc.bind, tc.locals)
		}
	}
}

func addrsOf(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}
