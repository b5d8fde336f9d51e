//go:build linux

package sctp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// apiNetns creates two network namespaces joined by a veth pair (10.201.1.1
// and .2, fd00:201:1::1 and ::2) with static neighbours, and removes them
// at the end of the test. It needs root and iproute2.
func apiNetns(t *testing.T) (a, b string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespace tests need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("network namespace tests need the ip command (iproute2)")
	}
	a = fmt.Sprintf("usctp-api-%d-a", os.Getpid())
	b = fmt.Sprintf("usctp-api-%d-b", os.Getpid())
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
	ip("link", "add", "v0", "address", "02:00:00:00:01:01", "netns", a, "type", "veth",
		"peer", "name", "v0", "address", "02:00:00:00:01:02", "netns", b)
	for i, ns := range []string{a, b} {
		me, peer := i+1, 2-i
		ip("-n", ns, "link", "set", "lo", "up")
		ip("-n", ns, "addr", "add", fmt.Sprintf("10.201.1.%d/24", me), "dev", "v0")
		ip("-n", ns, "addr", "add", fmt.Sprintf("fd00:201:1::%d/64", me), "dev", "v0", "nodad")
		ip("-n", ns, "link", "set", "v0", "up")
		mac := fmt.Sprintf("02:00:00:00:01:%02d", peer)
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("10.201.1.%d", peer), "lladdr", mac, "dev", "v0", "nud", "permanent")
		ip("-n", ns, "neigh", "replace", fmt.Sprintf("fd00:201:1::%d", peer), "lladdr", mac, "dev", "v0", "nud", "permanent")
	}
	return a, b
}

// inNs runs f on an OS thread inside the named namespace: sockets it
// opens belong to that namespace.
func inNs(t *testing.T, name string, f func()) {
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
			errc <- err
			return
		}
		f()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err // the thread stays locked and dies
			return
		}
		runtime.UnlockOSThread()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestRawIPNetns runs associations over raw IP (plain SCTP, protocol
// 132) between two network namespaces, over IPv4 and IPv6: handshake,
// messages through many streams, shutdown, and abort.
func TestRawIPNetns(t *testing.T) {
	nsA, nsB := apiNetns(t)
	for _, fam := range []struct{ name, server string }{{"ipv4", "10.201.1.2"}, {"ipv6", "fd00:201:1::2"}} {
		t.Run(fam.name, func(t *testing.T) {
			laddr := fmt.Sprintf("[%s]:5000", fam.server)
			if !strings.Contains(fam.server, ":") {
				laddr = fam.server + ":5000"
			}
			cfg := &Config{Transport: IP, OutStreams: 32, InStreams: 32, SendBuffer: 2 << 20, RecvBuffer: 2 << 20}
			var l *Endpoint
			var err error
			inNs(t, nsB, func() { l, err = Listen(laddr, cfg) })
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var c *Association
			inNs(t, nsA, func() { c, err = Dial(ctx, laddr, cfg) })
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s, err := l.AcceptContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			total := 16 << 20
			if raceEnabled || testing.Short() {
				total = 4 << 20
			}
			go func() {
				msg := bytes.Repeat([]byte{0xa5}, 4000)
				for i := 0; i < total/len(msg); i++ {
					msg[0] = byte(i)
					if _, err := c.WriteMsg(msg, SendInfo{Stream: uint16(i % 32)}); err != nil {
						t.Error(err)
						return
					}
				}
				if err := c.Shutdown(ctx); err != nil {
					t.Error(err)
				}
			}()
			start := time.Now()
			buf := make([]byte, 8000)
			got := 0
			for {
				n, info, err := s.ReadMsg(buf)
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatal(err)
					}
					break
				}
				if n != 4000 || !info.EOR || buf[1] != 0xa5 {
					t.Fatalf("message of %d bytes, %+v", n, info)
				}
				got += n
			}
			el := time.Since(start)
			if got != total/4000*4000 {
				t.Fatalf("got %d bytes", got)
			}
			st := c.Stats()
			t.Logf("%d MB in %v (%.0f Mbit/s), %d retransmits, %d T3", got>>20, el.Round(time.Millisecond), float64(got)*8/el.Seconds()/1e6, st.Retransmits, st.T3Expiries)
			// Abort: a second association, aborted by the dialer.
			var c2 *Association
			inNs(t, nsA, func() { c2, err = Dial(ctx, laddr, cfg) })
			if err != nil {
				t.Fatal(err)
			}
			s2, err := l.AcceptContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c2.Abort("raw abort")
			if _, _, err := s2.ReadMsg(buf); !errors.Is(err, ErrPeerAborted) {
				t.Fatalf("abort: %v", err)
			}
		})
	}
}

// TestRawIPNeedsCapNetRaw checks the error without CAP_NET_RAW.
func TestRawIPNeedsCapNetRaw(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to drop the capability on one thread")
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
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
		_, err := NewEndpoint(netip.IPv4Unspecified(), &Config{Transport: IP})
		errc <- err
	}()
	err := <-errc
	if !errors.Is(err, os.ErrPermission) || !errors.Is(err, ErrNeedRaw) {
		t.Fatalf("got %v", err)
	}
}
