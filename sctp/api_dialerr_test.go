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
	ca := simSocket(t, n, "10.0.0.1:9899")
	return n, ca
}

// A dial to an address this host has no route to fails at once, as a
// kernel's connect does, with an error that matches the errno the send
// got (ENETUNREACH with no route, EHOSTUNREACH or EACCES with an
// unreachable or prohibit route): not after Max.Init.Retransmits' 243 s.
// The error is Dial's *net.OpError, its Err the *AbortError, neither a
// timeout nor a refusal.
func TestSimDialNoRoute(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.EACCES} {
		t.Run(errno.Error(), func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				n, ca := simHosts(t)
				n.SetNoRoute(netip.MustParseAddr("10.0.0.2"), errno)
				start := time.Now()
				_, err := dialNew(context.Background(), "10.0.0.2:5000", nil, ca)
				oe := wantDialErr(t, err, "10.0.0.2:5000", errno)
				if d := time.Since(start); d != 0 {
					t.Fatalf("dial failed after %v, want at once", d)
				}
				var ae *AbortError
				if !errors.As(err, &ae) || oe.Err != ae || ae.Reason != errno.Error() || ae.ByPeer {
					t.Fatalf("dial: %v: want the *AbortError with reason %q", err, errno.Error())
				}
				if errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnRefused) || !errors.Is(err, ErrLocalAbort) || oe.Timeout() {
					t.Fatalf("dial: %v: a local abort, neither a timeout nor a refusal", err)
				}
				var got syscall.Errno
				if !errors.As(err, &got) || got != errno {
					t.Fatalf("dial: %v: errno %v, want %v", err, got, errno)
				}
				t.Log(err)
			})
		})
	}
}

// An ICMP host or network unreachable for the INIT (RFC 9260 appendix C,
// ICMP9: the destination's error count) ends the handshake at the third
// INIT so answered: after 1 s and 2 s of T1-init, 3 s in all, with the
// errno the ICMP error carried.
func TestSimDialICMPUnreachable(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n, ca := simHosts(t)
		n.SetICMPUnreachable(netip.MustParseAddr("10.0.0.2"), syscall.EHOSTUNREACH)
		start := time.Now()
		_, err := dialNew(context.Background(), "10.0.0.2:5000", nil, ca)
		wantDialErr(t, err, "10.0.0.2:5000", syscall.EHOSTUNREACH)
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("dial failed after %v, want 3s", d)
		}
		if errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnRefused) {
			t.Fatalf("dial: %v", err)
		}
	})
}

// A peer known by several addresses (DialAddrs) is given up only when
// every address said no: one without a route is skipped for the next at
// the next T1-init, and a dial whose every address has no route fails
// then (1 s), naming them all.
func TestSimDialAddrsNoRoute(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n, ca := simHosts(t)
		cc := simSocket(t, n, "10.0.0.3:9899")
		l, err := listenOn("10.0.0.3:5000", nil, cc)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		n.SetNoRoute(netip.MustParseAddr("10.0.0.2"), syscall.ENETUNREACH)
		ips := []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")}
		as, err := dialAddrsOn(context.Background(), ips, 5000, nil, ca)
		if err != nil {
			t.Fatalf("dial with one address reachable: %v", err)
		}
		as.Close()

		n.SetNoRoute(netip.MustParseAddr("10.0.0.3"), syscall.EHOSTUNREACH)
		start := time.Now()
		ca2 := simSocket(t, n, "10.0.0.1:9900")
		_, err = dialAddrsOn(context.Background(), ips, 5000, nil, ca2)
		wantDialErr(t, err, "10.0.0.2,10.0.0.3:5000", syscall.EHOSTUNREACH)
		if d := time.Since(start); d != time.Second {
			t.Fatalf("dial failed after %v, want 1s (the second address tried at the first T1-init)", d)
		}
	})
}

// A dial that its context ends returns ctx's error in Dial's
// *net.OpError: errors.Is still matches context.DeadlineExceeded, the
// text names the operation and the address, and it is a timeout.
func TestSimDialContextDeadline(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Loss: 1}, Overhead: 28})
		ca := simSocket(t, n, "10.0.0.1:9899")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := dialNew(ctx, "10.0.0.2:5000", nil, ca)
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
	if ip := l.Addr().IP; !ip.IsLoopback() {
		t.Fatalf("listening on %v, want a loopback address", ip)
	}
	dc := loopCfg()
	dc.RemoteUDPPort = l.Addr().UDPPort
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
	cfg.EphemeralUDPPort, cfg.UDPPort = false, l.Addr().UDPPort // taken by l
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
		if s := err.Error(); strings.Contains(s, "netio") {
			t.Errorf("%q names an internal package", s)
		}
	}
}
