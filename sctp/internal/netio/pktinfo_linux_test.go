//go:build linux

package netio

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// A socket bound to the wildcard address learns the local address each
// packet was sent to (IP_PKTINFO / IPV6_RECVPKTINFO), with and without
// GRO; one bound to an address leaves Packet.Local zero.
func TestPacketLocalAddr(t *testing.T) {
	for _, tc := range []struct {
		bind, to string
		want     string // "" for none
		gro      bool
	}{
		{"0.0.0.0:0", "127.0.0.1", "127.0.0.1", false},
		{"0.0.0.0:0", "127.0.0.1", "127.0.0.1", true},
		{"[::]:0", "127.0.0.1", "127.0.0.1", false}, // dual-stack, IPv4-mapped
		{"[::]:0", "::1", "::1", false},
		{"[::]:0", "::1", "::1", true},
		{"127.0.0.1:0", "127.0.0.1", "", false},
		{"[::1]:0", "::1", "", true},
	} {
		c, err := ListenUDP(UDPConfig{Addr: netip.MustParseAddrPort(tc.bind), GRO: tc.gro})
		if err != nil {
			t.Skipf("%s: %v", tc.bind, err)
		}
		to := netip.AddrPortFrom(netip.MustParseAddr(tc.to), c.LocalAddr().Port())
		s, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(to))
		if err != nil {
			c.Close()
			t.Skipf("%s: %v", tc.to, err)
		}
		if _, err := s.Write([]byte("twelve bytes")); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		pkts := []Packet{{Buf: make([]byte, 1500)}}
		n, err := c.ReadBatch(pkts)
		if err != nil || n != 1 {
			t.Fatalf("%+v: read %d %v", tc, n, err)
		}
		want := netip.Addr{}
		if tc.want != "" {
			want = netip.MustParseAddr(tc.want)
		}
		if pkts[0].Local != want || string(pkts[0].Data()) != "twelve bytes" {
			t.Errorf("bound %s, sent to %s (GRO %v): Local %v, want %v", tc.bind, tc.to, tc.gro, pkts[0].Local, want)
		}
		s.Close()
		c.Close()
	}
}

// A raw IP socket bound to the wildcard address learns each packet's
// local address too: from the IPv4 header, or IPV6_RECVPKTINFO.
func TestRawIPLocalAddr(t *testing.T) {
	nsA, nsB := netnsPair(t)
	for _, tc := range []struct{ from, to, bind string }{
		{"10.201.0.1", "10.201.0.2", "0.0.0.0"},
		{"fd00:201::1", "fd00:201::2", "::"},
	} {
		var a, b *IPConn
		var errA, errB error
		inNetns(t, nsA, func() { a, errA = ListenIP(IPConfig{Addr: netip.MustParseAddr(tc.from)}) })
		inNetns(t, nsB, func() { b, errB = ListenIP(IPConfig{Addr: netip.MustParseAddr(tc.bind)}) })
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		to := netip.MustParseAddr(tc.to)
		pkts := newPackets(1, 2048)
		fill(pkts, 0, 100, netip.AddrPortFrom(to, 0))
		// Sent again until it arrives: a veth just set up may drop the
		// first packets (its queueing discipline is noop until the
		// kernel's link watch runs), more so on a loaded host.
		in := newPackets(4, 2048)
		var n int
		var err error
		for try := 0; ; try++ {
			if _, err := a.WriteBatch(pkts); err != nil {
				t.Fatal(err)
			}
			b.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if n, err = b.ReadBatch(in); err == nil && n >= 1 || try == 50 {
				break
			}
		}
		if err != nil || n < 1 {
			t.Fatalf("%s: read %d %v", tc.bind, n, err)
		}
		if in[0].Local != to || in[0].Addr.Addr() != netip.MustParseAddr(tc.from) {
			t.Errorf("bound %s: packet from %v to Local %v, want %v", tc.bind, in[0].Addr, in[0].Local, to)
		}
		a.Close()
		b.Close()
	}
}
