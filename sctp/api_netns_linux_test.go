//go:build linux

package sctp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/usctp/usctp/sctp/internal/netnstest"

	"github.com/usctp/usctp/internal/testsupport"
)

// apiNetns creates the namespaces of the API tests (netnstest.Pair):
// 10.201.1.1 and .2, fd00:201:1::1 and ::2, device v0.
func apiNetns(t *testing.T) (a, b string) {
	t.Helper()
	return netnstest.Pair(t, "usctp-api", "v0", 1)
}

// inNs runs f inside the named namespace (netnstest.In): sockets it opens
// belong to that namespace.
func inNs(t *testing.T, name string, f func()) {
	t.Helper()
	netnstest.In(t, name, f)
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
			cfg := &Config{Transport: IP, OutStreams: 32, InStreams: 32, Buffers: Buffers{SendBuffer: 2 << 20, RecvBuffer: 2 << 20}}
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
			if testsupport.RaceEnabled || testing.Short() {
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

// TestRawIPSameHost runs both ends of an association over raw IP in one
// network namespace, where each endpoint's raw socket also sees the other's
// packets. Neither may answer the other's packets as out of the blue
// (RFC 9260 section 8.4): that ABORT would kill the association.
func TestRawIPSameHost(t *testing.T) {
	nsA, _ := apiNetns(t)
	cfg := &Config{Transport: IP}
	const laddr = "10.201.1.1:5010"
	var l *Endpoint
	var err error
	inNs(t, nsA, func() { l, err = Listen(laddr, cfg) })
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
	const n = 200
	go func() {
		msg := bytes.Repeat([]byte{0x5a}, 3000) // two chunks each: SACKs flow
		for i := 0; i < n; i++ {
			if _, err := c.WriteMsg(msg, SendInfo{Stream: uint16(i % 4)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	buf := make([]byte, 4000)
	for i := 0; i < n; i++ {
		if m, _, err := s.ReadMsg(buf); err != nil || m != 3000 {
			t.Fatalf("message %d: %d bytes, %v", i, m, err)
		}
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if st := l.Stats(); st.AbortsOut > 0 {
		t.Errorf("listener sent %d ABORTs", st.AbortsOut)
	}
}
