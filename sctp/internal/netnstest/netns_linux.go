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
// down`, the cut of a link: its routes go, its IPv4 addresses stay) or up
// again, and waits until an up link carries packets.
func SetLink(t testing.TB, ns, dev string, up bool) {
	t.Helper()
	state := "down"
	if up {
		state = "up"
	}
	if out, err := exec.Command("ip", "-n", ns, "link", "set", dev, state).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s link set %s %s: %v\n%s", ns, dev, state, err, out)
	}
	if up {
		waitUp(t, ns, dev)
	}
}
