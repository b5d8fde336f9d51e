//go:build linux

package sctp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netnstest"
)

// ipRoute runs "ip -n ns route ARGS" (or "ip -6 ..." for an IPv6 prefix).
func ipRoute(t *testing.T, ns string, args ...string) {
	t.Helper()
	cmd := append([]string{"-n", ns, "route"}, args...)
	if out, err := exec.Command("ip", cmd...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(cmd, " "), err, out)
	}
}

// dialIn dials addr from namespace ns and returns the error and how long
// it took.
func dialIn(t *testing.T, ns, addr string, cfg *Config) (error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	start := time.Now()
	inNs(t, ns, func() {
		var as *Association
		if as, err = Dial(ctx, addr, cfg); err == nil {
			as.Close()
		}
	})
	return err, time.Since(start)
}

// The real sockets' path of TestSimDialNoRoute: in a namespace with no
// default route, a dial to an address outside its subnets fails at once
// with ENETUNREACH, to one behind an "unreachable" route with
// EHOSTUNREACH, behind a "prohibit" route with EACCES: the errno the
// kernel's route lookup gives the INIT's send, as it gives a TCP connect.
// Over UDP encapsulation and raw IP, IPv4 and IPv6.
func TestDialNoRouteNetns(t *testing.T) {
	nsA, _ := netnstest.Pair(t, "usctp-noroute", "n0", 8)
	ipRoute(t, nsA, "add", "unreachable", "198.51.100.0/24")
	ipRoute(t, nsA, "add", "prohibit", "203.0.113.0/24")
	ipRoute(t, nsA, "add", "unreachable", "2001:db8:1::/48")
	for _, tr := range []Transport{UDP, IP} {
		for _, tc := range []struct {
			addr  string
			errno syscall.Errno
		}{
			{"192.0.2.1:5000", syscall.ENETUNREACH},
			{"198.51.100.1:5000", syscall.EHOSTUNREACH},
			{"203.0.113.1:5000", syscall.EACCES},
			{"[2001:db8:2::1]:5000", syscall.ENETUNREACH},
			{"[2001:db8:1::1]:5000", syscall.EHOSTUNREACH},
		} {
			t.Run(fmt.Sprintf("%v/%s", tr, tc.addr), func(t *testing.T) {
				err, d := dialIn(t, nsA, tc.addr, &Config{Transport: tr})
				wantDialErr(t, err, tc.addr, tc.errno)
				if errors.Is(err, ErrTimeout) || d > 2*time.Second {
					t.Fatalf("dial: %v after %v, want %v at once", err, d, tc.errno)
				}
				t.Logf("%v after %v", err, d)
			})
		}
	}
}

// The real sockets' path of TestSimDialICMPUnreachable: a router whose
// route to the peer is "unreachable" answers each INIT with ICMP
// destination unreachable (host unreachable for IPv4, no route for IPv6),
// which the socket's error queue reports: the dial fails at the third, in
// RTO.Initial x 3, with the errno the kernel gave the ICMP error.
func TestDialICMPUnreachableNetns(t *testing.T) {
	nsA, nsR, _ := netnstest.Routed(t, "usctp-icmpun", 9)
	ipRoute(t, nsR, "add", "unreachable", "10.201.10.2/32")
	ipRoute(t, nsR, "add", "unreachable", "fd00:201:a::2/128")
	for _, tr := range []Transport{UDP, IP} {
		for _, tc := range []struct {
			addr  string
			errno syscall.Errno
		}{
			{"10.201.10.2:5000", syscall.EHOSTUNREACH},
			{"[fd00:201:a::2]:5000", syscall.ENETUNREACH},
		} {
			t.Run(fmt.Sprintf("%v/%s", tr, tc.addr), func(t *testing.T) {
				cfg := &Config{Transport: tr, Timers: Timers{RTOInitial: 200 * time.Millisecond}}
				err, d := dialIn(t, nsA, tc.addr, cfg)
				wantDialErr(t, err, tc.addr, tc.errno)
				if errors.Is(err, ErrTimeout) || d > 5*time.Second {
					t.Fatalf("dial: %v after %v, want %v in about 600ms", err, d, tc.errno)
				}
				t.Logf("%v after %v", err, d)
			})
		}
	}
}

// An on-link peer that never answers ARP (or IPv6 neighbour solicitation):
// the kernel reports each INIT it held for the neighbour as host
// unreachable on the socket's error queue when resolution fails, and the
// dial fails at the third with EHOSTUNREACH. The namespace's neighbour
// resolution is shortened to one solicitation of 100 ms.
func TestDialNeighbourUnreachableNetns(t *testing.T) {
	nsA, _ := netnstest.Pair(t, "usctp-noarp", "n0", 11)
	for _, k := range []string{"net.ipv4.neigh.n0.mcast_solicit=1", "net.ipv4.neigh.n0.retrans_time_ms=100",
		"net.ipv6.neigh.n0.mcast_solicit=1", "net.ipv6.neigh.n0.retrans_time_ms=100"} {
		if out, err := exec.Command("ip", "netns", "exec", nsA, "sysctl", "-q", "-w", k).CombinedOutput(); err != nil {
			t.Fatalf("sysctl %s: %v\n%s", k, err, out)
		}
	}
	for _, tr := range []Transport{UDP, IP} {
		for _, addr := range []string{"10.201.11.77:5000", "[fd00:201:b::77]:5000"} {
			t.Run(fmt.Sprintf("%v/%s", tr, addr), func(t *testing.T) {
				cfg := &Config{Transport: tr, Timers: Timers{RTOInitial: 200 * time.Millisecond}}
				err, d := dialIn(t, nsA, addr, cfg)
				wantDialErr(t, err, addr, syscall.EHOSTUNREACH)
				if errors.Is(err, ErrTimeout) || d > 5*time.Second {
					t.Fatalf("dial: %v after %v, want EHOSTUNREACH in about a second", err, d)
				}
				t.Logf("%v after %v", err, d)
			})
		}
	}
}
