//go:build linux

package transport

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

// netnsPair creates two network namespaces joined by a veth pair, with
// static neighbour entries so that no ARP or DAD delay is involved:
//
//	a: usctp0 02:00:00:00:00:01 10.201.0.1/24 fd00:201::1/64
//	b: usctp0 02:00:00:00:00:02 10.201.0.2/24 fd00:201::2/64
//
// It needs root and iproute2's ip command, and fails saying so.
func netnsPair(t testing.TB) (a, b string) {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("network namespace tests need the ip command from iproute2: apt-get install iproute2")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespace tests need root")
	}
	a = fmt.Sprintf("usctp-%d-a", os.Getpid())
	b = fmt.Sprintf("usctp-%d-b", os.Getpid())
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
	ip("link", "add", "usctp0", "address", "02:00:00:00:00:01", "netns", a, "type", "veth",
		"peer", "name", "usctp0", "address", "02:00:00:00:00:02", "netns", b)
	for i, ns := range []string{a, b} {
		me, peer := i+1, 2-i
		ip("-n", ns, "link", "set", "lo", "up")
		ip("-n", ns, "addr", "add", fmt.Sprintf("10.201.0.%d/24", me), "dev", "usctp0")
		ip("-n", ns, "addr", "add", fmt.Sprintf("fd00:201::%d/64", me), "dev", "usctp0", "nodad")
		ip("-n", ns, "link", "set", "usctp0", "up")
		mac := fmt.Sprintf("02:00:00:00:00:%02d", peer)
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("10.201.0.%d", peer), "lladdr", mac, "dev", "usctp0", "nud", "permanent")
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("fd00:201::%d", peer), "lladdr", mac, "dev", "usctp0", "nud", "permanent")
	}
	// The kernel turns a veth on asynchronously (linkwatch): until then
	// its queueing discipline is noop, which drops every packet. Wait for
	// both ends to be up with their real one.
	for _, ns := range []string{a, b} {
		deadline := time.Now().Add(5 * time.Second)
		for {
			out, err := exec.Command("ip", "-n", ns, "link", "show", "usctp0").CombinedOutput()
			if err != nil {
				t.Fatalf("ip link show: %v\n%s", err, out)
			}
			st := string(out)
			if strings.Contains(st, "LOWER_UP") && strings.Contains(st, "state UP") && !strings.Contains(st, "qdisc noop") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("veth in %s not up: %s", ns, st)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return a, b
}

// inNetns runs f on an OS thread switched into the named namespace;
// sockets f opens stay in that namespace. The thread is discarded if it
// cannot be switched back.
func inNetns(t testing.TB, name string, f func()) {
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
			errc <- fmt.Errorf("setns back: %w", err) // thread dies locked
			return
		}
		runtime.UnlockOSThread()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// withoutNetRaw runs f on an OS thread whose effective capabilities lack
// CAP_NET_RAW (capabilities are per thread on Linux); the thread is then
// discarded.
func withoutNetRaw(t *testing.T, f func()) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with us
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		data[0].Effective &^= 1 << unix.CAP_NET_RAW
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		f()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
