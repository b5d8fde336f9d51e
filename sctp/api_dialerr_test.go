package sctp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// wantDialErr fails t unless err is Dial's *net.OpError for addr ("dial
// sctp ADDR: ", "sctp" named once) whose cause matches target, and
// returns the *net.OpError.
func wantDialErr(t *testing.T, err error, addr string, target error) *net.OpError {
	t.Helper()
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" || oe.Net != "sctp" {
		t.Fatalf("dial: %v (%T), want a *net.OpError", err, err)
	}
	if oe.Addr == nil || oe.Addr.String() != addr || oe.Addr.Network() != "sctp" {
		t.Fatalf("dial: %v: Addr %v, want %s", err, oe.Addr, addr)
	}
	if !errors.Is(err, target) {
		t.Fatalf("dial: %v, want it to match %v", err, target)
	}
	if s := err.Error(); !strings.HasPrefix(s, "dial sctp "+addr+": ") || strings.Count(s, "sctp") != 1 {
		t.Fatalf("dial: %q, want \"dial sctp %s: \" and no second \"sctp\"", s, addr)
	}
	return oe
}

// simHosts returns a simulated network and a conn on it at 10.0.0.1.
func simHosts(t *testing.T) (*simconn.Network, *simconn.Conn) {
	t.Helper()
	n := simconn.New(1, simconn.Config{Overhead: 28, Link: simnet.LinkConfig{Delay: 5 * time.Millisecond}})
	ca, err := n.Listen(netip.MustParseAddrPort("10.0.0.1:9899"))
	if err != nil {
		t.Fatal(err)
	}
	return n, ca
}

// A dial that its context ends returns ctx's error in Dial's
// *net.OpError: errors.Is still matches context.DeadlineExceeded, the
// text names the operation and the address, and it is a timeout.
func TestSimDialContextDeadline(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Loss: 1}, Overhead: 28})
		ca, err := n.Listen(netip.MustParseAddrPort("10.0.0.1:9899"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = dialNew(ctx, "10.0.0.2:5000", nil, ca)
		oe := wantDialErr(t, err, "10.0.0.2:5000", context.DeadlineExceeded)
		if err.Error() != "dial sctp 10.0.0.2:5000: context deadline exceeded" || !oe.Timeout() {
			t.Fatalf("dial: %q, want a timeout naming the operation and the address", err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		_, err = dialNew(ctx, "10.0.0.2:5000", nil, ca)
		wantDialErr(t, err, "10.0.0.2:5000", context.Canceled)
	})
}

// Dial and Listen take the same address syntax, and a malformed address
// is a *net.AddrError inside the operation's *net.OpError with no Addr, as
// package net reports it ("dial tcp: address 127.0.0.1: missing port in
// address").
func TestAddrSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ addr, msg string }{
		{"127.0.0.1", "address 127.0.0.1: missing port in address"},
		{"[::1]", "address [::1]: missing port in address"},
		{"127.0.0.1:99999", "address 127.0.0.1:99999: invalid port"},
		{"127.0.0.1:0", "address 127.0.0.1:0: SCTP port 0"},
		{"::1:5000", "address ::1:5000: IPv6 addresses go in brackets"},
		{"10.0.0.1,,10.0.0.2:5000", "address 10.0.0.1,,10.0.0.2:5000: empty address in the list"},
		{"10.0.0.1,example.com:5000", "address example.com: not an IP address"},
	} {
		for _, op := range []string{"dial", "listen"} {
			var err error
			if op == "dial" {
				_, err = Dial(context.Background(), tc.addr, nil)
			} else {
				_, err = Listen(tc.addr, nil)
			}
			var oe *net.OpError
			var ae *net.AddrError
			if !errors.As(err, &oe) || oe.Op != op || oe.Net != "sctp" || oe.Addr != nil || !errors.As(err, &ae) {
				t.Errorf("%s %q: %v (%T), want a *net.OpError with a *net.AddrError", op, tc.addr, err, err)
				continue
			}
			if want := op + " sctp: " + tc.msg; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %q: %q, want %q", op, tc.addr, err, want)
			}
		}
	}
	_, err := Dial(context.Background(), ":5000", nil)
	if ae := (*net.AddrError)(nil); !errors.As(err, &ae) || err.Error() != "dial sctp: address :5000: missing host in address" {
		t.Errorf("dial with no host: %v", err)
	}
	for _, ips := range [][]netip.Addr{nil, {netip.IPv4Unspecified()}, {netip.MustParseAddr("224.0.0.1")}} {
		_, err := DialAddrs(context.Background(), ips, 5000, nil)
		if ae := (*net.AddrError)(nil); !errors.As(err, &ae) || !strings.HasPrefix(err.Error(), "dial sctp: address ") {
			t.Errorf("DialAddrs %v: %v, want a *net.AddrError", ips, err)
		}
	}
}

// Listen resolves a host name once, as net.Listen does, to the address
// Dial resolves it to: Listen("localhost:PORT") serves Dial
// ("localhost:PORT").
func TestListenHostName(t *testing.T) {
	if ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", "localhost"); err != nil || len(ips) == 0 {
		t.Skipf("localhost does not resolve: %v", err)
	}
	l, err := Listen("localhost:5000", loopCfg())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ip := l.Addr().Addr(); !ip.IsLoopback() {
		t.Fatalf("listening on %v, want a loopback address", ip)
	}
	dc := loopCfg()
	dc.RemoteUDPPort = l.Addr().Port()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, "localhost:5000", dc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := accept(t, l)
	defer s.Close()
}

// Listen's errors name the operation and the local address, as
// net.Listen's do ("listen sctp 127.0.0.1:5000: ..."), with "sctp" once.
func TestListenErrorNamesAddress(t *testing.T) {
	l, err := Listen("127.0.0.1:5000", loopCfg())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := loopCfg()
	cfg.EphemeralUDPPort, cfg.UDPPort = false, l.Addr().Port() // taken by l
	for _, tc := range []struct {
		listen func() error
		addr   string
	}{
		{func() error { _, err := Listen("127.0.0.1:5001", cfg); return err }, "127.0.0.1:5001"},
		{func() error { _, err := ListenAddrs(nil, 5001, cfg); return err }, ":5001"},
		{func() error {
			_, err := ListenAddrs([]netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, 5001, cfg)
			return err
		}, "127.0.0.1,[::1]:5001"},
		{func() error { _, err := ListenShards("127.0.0.1:5001", 2, cfg); return err }, "127.0.0.1:5001"},
	} {
		err := tc.listen()
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "listen" || oe.Net != "sctp" || oe.Addr == nil || oe.Addr.String() != tc.addr {
			t.Errorf("%v (%T): want a *net.OpError listen sctp %s", err, err, tc.addr)
			continue
		}
		if s := err.Error(); !strings.HasPrefix(s, "listen sctp "+tc.addr+": ") || strings.Count(s, "sctp") != 1 ||
			!errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("%q: want \"listen sctp %s: \", \"sctp\" once, EADDRINUSE", s, tc.addr)
		}
	}
}
