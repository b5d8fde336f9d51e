//go:build linux

// Package netnstest makes network namespaces joined by a veth pair for
// tests that need real sockets on two hosts (raw IP, UDP encapsulation
// over a link with a chosen MTU, link-local addresses). It needs root
// and iproute2's ip command.
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Pair creates two network namespaces, NAME-PID-a and NAME-PID-b, joined
// by a veth pair whose ends are both called dev, and removes them when the
// test ends. Namespace a is host 1 and b host 2 of subnet s:
//
//	10.201.s.1/24  fd00:201:s::1/64  02:00:00:00:s:01  (a)
//	10.201.s.2/24  fd00:201:s::2/64  02:00:00:00:s:02  (b)
//
// with static neighbour entries, so that no ARP or DAD delay is involved,
// and both ends up (with their real queueing discipline) when it returns.
// Without root the test is skipped; without the ip command it fails.
func Pair(t testing.TB, name, dev string, s int) (a, b string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespace tests need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("network namespace tests need the ip command from iproute2: apt-get install iproute2")
	}
	a = fmt.Sprintf("%s-%d-a", name, os.Getpid())
	b = fmt.Sprintf("%s-%d-b", name, os.Getpid())
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", a)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", a).Run() })
	ip("netns", "add", b)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", b).Run() })
	Link(t, a, b, dev, s)
	return a, b
}

// In runs f on an OS thread switched into the named namespace; sockets f
// opens stay in that namespace. The thread is discarded if it cannot be
// switched back.
func In(t testing.TB, name string, f func()) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer orig.Close()
		target, err := os.Open("/run/netns/" + name)
		if err != nil {
			errc <- err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", name, err)
			return
		}
		f()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns back: %w", err) // the thread dies locked
			return
		}
		runtime.UnlockOSThread()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Routed creates three network namespaces, NAME-PID-a, NAME-PID-r and
// NAME-PID-b: host a and router r joined by a veth pair (device v0 at
// both ends, subnet s of Pair's numbering: a is host 1, r host 2), and r
// and host b joined by another (device v1, subnet s+1: r is host 1, b
// host 2), with forwarding on in r and routes through it in a and b. Every
// link has MTU 1500; a test lowers the router's outgoing one with
// SetMTU(r, "v1", mtu). It removes them when the test ends. Without root
// the test is skipped.
func Routed(t testing.TB, name string, s int) (a, r, b string) {
	t.Helper()
	a, r = Pair(t, name+"-ar", "v0", s)
	r2, b := Pair(t, name+"-rb", "v1", s+1)
	// Move the second pair's a end (the router's v1) into r.
	ip(t, "-n", r2, "link", "set", "v1", "netns", r)
	ip(t, "-n", r, "addr", "add", fmt.Sprintf("10.201.%d.1/24", s+1), "dev", "v1")
	ip(t, "-n", r, "addr", "add", fmt.Sprintf("fd00:201:%x::1/64", s+1), "dev", "v1", "nodad")
	ip(t, "-n", r, "link", "set", "v1", "up")
	mac := func(sub, host int) string { return fmt.Sprintf("02:00:00:00:%02x:%02d", sub, host) }
	ip(t, "-n", r, "neigh", "replace", fmt.Sprintf("10.201.%d.2", s+1), "lladdr", mac(s+1, 2), "dev", "v1", "nud", "permanent")
	ip(t, "-n", r, "neigh", "replace", fmt.Sprintf("fd00:201:%x::2", s+1), "lladdr", mac(s+1, 2), "dev", "v1", "nud", "permanent")
	ip(t, "-n", b, "neigh", "replace", fmt.Sprintf("10.201.%d.1", s+1), "lladdr", mac(s+1, 1), "dev", "v1", "nud", "permanent")
	ip(t, "-n", b, "neigh", "replace", fmt.Sprintf("fd00:201:%x::1", s+1), "lladdr", mac(s+1, 1), "dev", "v1", "nud", "permanent")
	for _, f := range []string{"/proc/sys/net/ipv4/ip_forward", "/proc/sys/net/ipv6/conf/all/forwarding"} {
		if out, err := exec.Command("ip", "netns", "exec", r, "sh", "-c", "echo 1 > "+f).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, out)
		}
	}
	ip(t, "-n", a, "route", "add", fmt.Sprintf("10.201.%d.0/24", s+1), "via", fmt.Sprintf("10.201.%d.2", s))
	ip(t, "-n", a, "route", "add", fmt.Sprintf("fd00:201:%x::/64", s+1), "via", fmt.Sprintf("fd00:201:%x::2", s))
	ip(t, "-n", b, "route", "add", fmt.Sprintf("10.201.%d.0/24", s), "via", fmt.Sprintf("10.201.%d.1", s+1))
	ip(t, "-n", b, "route", "add", fmt.Sprintf("fd00:201:%x::/64", s), "via", fmt.Sprintf("fd00:201:%x::1", s+1))
	// ICMP errors from the router unthrottled, so that every Packet Too
	// Big a test expects is sent.
	for _, f := range []string{"/proc/sys/net/ipv4/icmp_ratelimit", "/proc/sys/net/ipv6/icmp/ratelimit"} {
		exec.Command("ip", "netns", "exec", r, "sh", "-c", "echo 0 > "+f).Run()
	}
	return a, r, b
}

// SetMTU sets the MTU of device dev in namespace ns.
func SetMTU(t testing.TB, ns, dev string, mtu int) {
	t.Helper()
	ip(t, "-n", ns, "link", "set", dev, "mtu", fmt.Sprint(mtu))
}

func ip(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Link joins namespaces a and b (made by Pair) by one more veth pair whose
// ends are both called dev, on subnet s, addressed as Pair addresses its
// link:
//
//	10.201.s.1/24  fd00:201:s::1/64  02:00:00:00:s:01  (a)
//	10.201.s.2/24  fd00:201:s::2/64  02:00:00:00:s:02  (b)
//
// with static neighbour entries, both ends up when it returns. Two links
// on two subnets make two paths between the hosts (multi-homing tests);
// the link goes with the namespaces.
func Link(t testing.TB, a, b, dev string, s int) {
	t.Helper()
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	mac := func(host int) string { return fmt.Sprintf("02:00:00:00:%02x:%02d", s, host) }
	ip("link", "add", dev, "address", mac(1), "netns", a, "type", "veth",
		"peer", "name", dev, "address", mac(2), "netns", b)
	for i, ns := range []string{a, b} {
		me, peer := i+1, 2-i
		ip("-n", ns, "link", "set", "lo", "up")
		ip("-n", ns, "addr", "add", fmt.Sprintf("10.201.%d.%d/24", s, me), "dev", dev)
		ip("-n", ns, "addr", "add", fmt.Sprintf("fd00:201:%x::%d/64", s, me), "dev", dev, "nodad")
		ip("-n", ns, "link", "set", dev, "up")
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("10.201.%d.%d", s, peer), "lladdr", mac(peer), "dev", dev, "nud", "permanent")
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("fd00:201:%x::%d", s, peer), "lladdr", mac(peer), "dev", dev, "nud", "permanent")
	}
	for _, ns := range []string{a, b} {
		waitUp(t, ns, dev)
	}
}

// waitUp waits until dev in ns is up with its real queueing discipline:
// the kernel turns a veth on asynchronously (linkwatch), and until then
// its queueing discipline is noop, which drops every packet.
func waitUp(t testing.TB, ns, dev string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := exec.Command("ip", "-n", ns, "link", "show", dev).CombinedOutput()
		if err != nil {
			t.Fatalf("ip link show: %v\n%s", err, out)
		}
		st := string(out)
		if strings.Contains(st, "LOWER_UP") && strings.Contains(st, "state UP") && !strings.Contains(st, "qdisc noop") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("veth in %s not up: %s", ns, st)
		}
		time.Sleep(time.Millisecond)
	}
}

// SetLink takes dev in namespace ns down (up false: `ip link set dev
// down`, the cut of a link: its routes go, its addresses stay) or up
// again, and waits until an up link carries packets.
func SetLink(t testing.TB, ns, dev string, up bool) {
	t.Helper()
	state := "down"
	if up {
		state = "up"
	} else {
		// Keep the IPv6 addresses too (Linux removes them with the link
		// by default), so that the link comes back as it was.
		knob := "net.ipv6.conf." + dev + ".keep_addr_on_down=1"
		if out, err := exec.Command("ip", "netns", "exec", ns, "sysctl", "-q", "-w", knob).CombinedOutput(); err != nil {
			t.Fatalf("sysctl %s in %s: %v\n%s", knob, ns, err, out)
		}
	}
	if out, err := exec.Command("ip", "-n", ns, "link", "set", dev, state).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s link set %s %s: %v\n%s", ns, dev, state, err, out)
	}
	if up {
		waitUp(t, ns, dev)
	}
}
