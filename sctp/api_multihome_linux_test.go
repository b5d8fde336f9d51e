//go:build linux

package sctp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// mhCfg is loopCfg with multi-homing's heartbeats quick enough for a test.
func mhCfg() *Config {
	c := loopCfg()
	c.Timers.HeartbeatInterval = 200 * time.Millisecond
	return c
}

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

// waitPaths polls as.Paths until ok accepts them (the HEARTBEATs that
// confirm addresses run on the endpoint's own timers) or 10 s pass.
func waitPaths(t *testing.T, as *Association, ok func([]PathInfo) bool) []PathInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := as.Paths()
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("paths never as wanted: %+v", p)
		}
		// A wait on real sockets: the timers are the endpoint's.
		select {
		case <-time.After(10 * time.Millisecond):
		case <-as.Done():
			t.Fatalf("association ended: %v", as.Err())
		}
	}
}

func allActive(n int) func([]PathInfo) bool {
	return func(p []PathInfo) bool {
		if len(p) != n {
			return false
		}
		for _, x := range p {
			if x.State != PathActive {
				return false
			}
		}
		return true
	}
}

// A multi-homed server (ListenAddrs on two loopback addresses) and a
// multi-homed client (Config.LocalAddrs, and the string form of the
// peer's list in Dial): each lists its addresses in INIT / INIT ACK, each
// side's paths to the other's two addresses are confirmed, the server
// sees the client's packets come from the client's own addresses (sent
// from them with IP_PKTINFO), and a packet to another address of the host
// is dropped and counted.
func TestMultihomedLoopbackUDP(t *testing.T) {
	cfg := mhCfg()
	l, err := ListenAddrs(addrs("127.0.0.1", "127.0.0.2"), 5000, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.LocalAddrs(); !slices.Equal(got, addrs("127.0.0.1", "127.0.0.2")) {
		t.Errorf("listener LocalAddrs %v", got)
	}
	dc := *cfg
	dc.RemoteUDPPort = l.Addr().UDPPort
	dc.LocalAddrs = addrs("127.0.0.3", "127.0.0.4")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, "127.0.0.2,127.0.0.1:5000", &dc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := accept(t, l)
	cp := waitPaths(t, c, allActive(2))
	if cp[0].Addr.IP != netip.MustParseAddr("127.0.0.2") || !cp[0].Primary || cp[1].Addr.IP != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("client paths %+v: want 127.0.0.2 (primary), 127.0.0.1", cp)
	}
	sp := waitPaths(t, s, allActive(2))
	if sp[0].Addr.IP != netip.MustParseAddr("127.0.0.3") || sp[1].Addr.IP != netip.MustParseAddr("127.0.0.4") {
		t.Errorf("server paths %+v: want 127.0.0.3 (the client's source), 127.0.0.4", sp)
	}
	// Data both ways; the client's data comes from 127.0.0.3.
	buf := make([]byte, 100)
	for i := range 3 {
		if _, err := c.WriteMsg([]byte("ping"), SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != "ping" {
			t.Fatalf("server read %d: %q %v", i, buf[:n], err)
		}
		if _, err := s.WriteMsg([]byte("pong"), SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		if n, _, err := c.ReadMsg(buf); err != nil || string(buf[:n]) != "pong" {
			t.Fatalf("client read %d: %q %v", i, buf[:n], err)
		}
	}
	// SetPrimary moves the client's data to the other path.
	if err := c.SetPrimary(netip.MustParseAddr("127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteMsg([]byte("moved"), SendInfo{Stream: 2}); err != nil {
		t.Fatal(err)
	}
	if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != "moved" {
		t.Fatalf("server read after SetPrimary: %q %v", buf[:n], err)
	}
	// A datagram to the listener's UDP port at another address of the
	// host: not one of the endpoint's. Sent before a message, it is
	// processed before that message is read.
	u, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.9"), l.Addr().UDPPort)))
	if err != nil {
		t.Fatal(err)
	}
	u.Write(make([]byte, 40))
	u.Close()
	if _, err := c.WriteMsg([]byte("after"), SendInfo{Stream: 2}); err != nil {
		t.Fatal(err)
	}
	if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != "after" {
		t.Fatalf("server read: %q %v", buf[:n], err)
	}
	if got := l.Stats().UnboundAddrDropped; got != 1 {
		t.Errorf("UnboundAddrDropped %d, want 1", got)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// Dial tries the peer's addresses in turn (sctp_connectx): the first
// listed has nothing listening (its INIT is lost or refused), the INIT
// retransmission to the second is answered, and the association uses the
// address that answered.
func TestDialAddrsTriesNextAddress(t *testing.T) {
	cfg := mhCfg()
	l, err := Listen("127.0.0.1:5000", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dc := *cfg
	dc.RemoteUDPPort = l.Addr().UDPPort
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// 192.0.2.1 (TEST-NET-1) has no route here, or none that answers.
	c, err := DialAddrs(ctx, addrs("192.0.2.1", "127.0.0.1"), 5000, &dc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := accept(t, l)
	if p := c.Paths(); p[0].Addr.IP != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("client's primary %v, want 127.0.0.1 (the address that answered)", p[0].Addr)
	}
	if st := c.Stats(); st.HandshakeRetx == 0 {
		t.Errorf("no INIT retransmission counted")
	}
	if _, err := c.WriteMsg([]byte("hi"), SendInfo{}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("read %q %v", buf[:n], err)
	}
}

// The address list forms: "IP,IP:PORT", IPv6 in brackets, a single host;
// malformed lists fail with a clear error, a *net.AddrError as package
// net's.
func TestSplitAddrList(t *testing.T) {
	for _, tc := range []struct {
		in    string
		hosts []string
		port  uint16
		bad   bool
	}{
		{in: "10.0.0.1,10.0.1.1:5000", hosts: []string{"10.0.0.1", "10.0.1.1"}, port: 5000},
		{in: "[fd00::1],[fd00:1::1]:7000", hosts: []string{"fd00::1", "fd00:1::1"}, port: 7000},
		{in: "10.0.0.1,[fd00::1]:7", hosts: []string{"10.0.0.1", "fd00::1"}, port: 7},
		{in: "[::1]:5000", hosts: []string{"::1"}, port: 5000},
		{in: ":5000", hosts: []string{""}, port: 5000},
		{in: "example.com:80", hosts: []string{"example.com"}, port: 80},
		{in: "fd00::1,10.0.0.1:5000", bad: true},
		{in: "10.0.0.1,,10.0.0.2:5000", bad: true},
		{in: "10.0.0.1", bad: true},
		{in: "10.0.0.1:99999", bad: true},
	} {
		hosts, port, err := splitAddrList(tc.in)
		if tc.bad {
			if ae := (*net.AddrError)(nil); !errors.As(err, &ae) {
				t.Errorf("%q: %v (%v %d), want a *net.AddrError", tc.in, err, hosts, port)
			}
			continue
		}
		if err != nil || !slices.Equal(hosts, tc.hosts) || port != tc.port {
			t.Errorf("%q: %q %d %v, want %q %d", tc.in, hosts, port, err, tc.hosts, tc.port)
		}
	}
}

// A dual-stack multi-homed association on one host: the server listens on
// 127.0.0.1 and ::1 (one dual-stack UDP socket), the client dials both with
// addresses of both families of its own; each side's paths to the other's
// IPv4 and IPv6 addresses are confirmed, packets of each family leaving
// from the endpoint's address of that family.
func TestMultihomedDualStackLoopback(t *testing.T) {
	cfg := mhCfg()
	l, err := ListenAddrs(addrs("127.0.0.1", "::1"), 5000, cfg)
	if err != nil {
		t.Skipf("no IPv6 loopback? %v", err)
	}
	defer l.Close()
	dc := *cfg
	dc.RemoteUDPPort = l.Addr().UDPPort
	dc.LocalAddrs = addrs("127.0.0.5", "::1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, "[::1],127.0.0.1:5000", &dc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := accept(t, l)
	cp := waitPaths(t, c, allActive(2))
	if cp[0].Addr.IP != netip.MustParseAddr("::1") || cp[1].Addr.IP != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("client paths %+v", cp)
	}
	sp := waitPaths(t, s, allActive(2))
	got := []netip.Addr{sp[0].Addr.IP, sp[1].Addr.IP}
	if !slices.Contains(got, netip.MustParseAddr("127.0.0.5")) || !slices.Contains(got, netip.MustParseAddr("::1")) {
		t.Errorf("server paths %+v: want the client's 127.0.0.5 and ::1", sp)
	}
	buf := make([]byte, 16)
	for _, ip := range []string{"127.0.0.1", "::1"} {
		if err := c.SetPrimary(netip.MustParseAddr(ip)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WriteMsg([]byte(ip), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != ip {
			t.Fatalf("read %q %v", buf[:n], err)
		}
	}
}
