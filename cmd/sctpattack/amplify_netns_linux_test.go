//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp"
)

// TestAmplifyWildcardMultihoming is TestAmplify against a listener bound
// to the wildcard address with Multihoming, which lists the host's
// addresses in its INIT ACK, on a host (a network namespace) with two
// IPv4 and two IPv6 addresses besides loopback, attacked at 10.203.0.1
// (so the others suit the peer). The INIT ACK grows by the addresses that
// fit, never past 4 times the INIT: a minimal INIT gets none.
func TestAmplifyWildcardMultihoming(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespace tests need root")
	}
	ns := fmt.Sprintf("usctp-amp-%d", os.Getpid())
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	ip("-n", ns, "link", "set", "lo", "up")
	ip("-n", ns, "link", "add", "d0", "type", "veth", "peer", "name", "d1")
	for _, a := range []string{"10.203.0.1/24", "10.203.1.1/24", "fd00:203::1/64", "fd00:203:1::1/64"} {
		args := []string{"-n", ns, "addr", "add", a, "dev", "d0"}
		if strings.Contains(a, ":") {
			args = append(args, "nodad")
		}
		ip(args...)
	}
	ip("-n", ns, "link", "set", "d0", "up")
	ip("-n", ns, "link", "set", "d1", "up")

	var out bytes.Buffer
	inNetns(t, ns, func() {
		const port = 19899
		l, err := sctp.Listen(":7100", &sctp.Config{UDPPort: port, Paths: sctp.Paths{Multihoming: true}})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		target := netip.MustParseAddrPort("10.203.0.1:7100")
		if err := amplify(&options{target: target, udpPort: port, seed: 3}, &out); err != nil {
			t.Fatal(err)
		}
	})
	t.Log("\n" + out.String())
	grew := false
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		f := strings.Fields(line)
		factor, err := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "x"), 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if factor > 4 {
			t.Errorf("%s: answer %.2f times the trigger", strings.Join(f[:len(f)-3], " "), factor)
		}
		answer, _ := strconv.Atoi(f[len(f)-2])
		if strings.HasPrefix(line, "INIT announcing") && answer > 124 {
			grew = true // the addresses are there
		}
	}
	if !grew {
		t.Error("no INIT ACK lists the host's addresses")
	}
}

// inNetns runs f on an OS thread switched into the named namespace.
func inNetns(t *testing.T, name string, f func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		fd, err := unix.Open("/run/netns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		f()
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
