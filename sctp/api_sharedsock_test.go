package sctp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/netio"
)

// sharedListen is Listen with the default UDP port (9899). These tests
// are about that default: when another program on the host holds the
// port they fail, saying so (no test of this module holds it).
func sharedListen(t *testing.T, laddr string) *Endpoint {
	t.Helper()
	l, err := Listen(laddr, nil)
	if errors.Is(err, syscall.EADDRINUSE) && netio.SharedSockets() == 0 {
		t.Fatalf("UDP port 9899, the default this test is about, is taken by another program on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// echoOnce accepts one association on l and echoes one message on it.
func echoOnce(t *testing.T, l *Endpoint, dial func() (*Association, error), msg string) *Association {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	s := accept(t, l)
	if _, err := c.WriteMsg([]byte(msg), SendInfo{Stream: 1, PPID: 60}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, info, err := s.ReadMsg(buf)
	if err != nil || string(buf[:n]) != msg || info.PPID != 60 {
		t.Fatalf("server read %q %+v %v", buf[:n], info, err)
	}
	if _, err := s.WriteMsg(buf[:n], SendInfo{Stream: info.Stream, PPID: 60}); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, _, err = c.ReadMsg(buf); err != nil || string(buf[:n]) != msg {
		t.Fatalf("client read %q %v", buf[:n], err)
	}
	return c
}

// TestUDPSharedSocketTwoListens: two Listens on different SCTP ports with
// the default settings share UDP 9899, as the kernel serves both; dialers
// reach each, a listener's own Dial reaches the other through the same
// socket, and closing one leaves the other working while an INIT to the
// closed port is refused at once (the ABORT of RFC 9260 section 8.4).
func TestUDPSharedSocketTwoListens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	socks := netio.SharedSockets()
	l1 := sharedListen(t, "127.0.0.1:5001")
	defer l1.Close()
	l2 := sharedListen(t, "127.0.0.1:5002")
	defer l2.Close()
	if l1.Addr().IP != l2.Addr().IP || l1.Addr().UDPPort != l2.Addr().UDPPort || l1.Addr().UDPPort != 9899 {
		t.Fatalf("listeners on UDP %v and %v, want one socket on 9899", l1.Addr(), l2.Addr())
	}
	if l1.ports == nil || l2.ports == nil || netio.SharedSockets() != socks+1 {
		t.Fatal("the listeners do not share their socket")
	}
	dial := func(addr string) func() (*Association, error) {
		return func() (*Association, error) { return Dial(ctx, addr, nil) }
	}
	c1 := echoOnce(t, l1, dial("127.0.0.1:5001"), "to 5001")
	defer c1.Close()
	c2 := echoOnce(t, l2, dial("127.0.0.1:5002"), "to 5002")
	defer c2.Close()
	// A listener dials the other over their shared socket: the
	// association's packets leave and arrive on it, both directions
	// demultiplexed by SCTP port.
	c3 := echoOnce(t, l2, func() (*Association, error) { return l1.Dial(ctx, "127.0.0.1:5002") }, "from l1 to l2")
	if p := c3.core.LocalPort(); p < 49152 {
		t.Fatalf("dialed association's SCTP port %d, want an ephemeral one", p)
	}
	c3.Close()

	l1.Close()
	// The other listener and its association still work.
	c4 := echoOnce(t, l2, dial("127.0.0.1:5002"), "to 5002 after l1 closed")
	defer c4.Close()
	if _, err := c2.WriteMsg([]byte("still there"), SendInfo{Stream: 1}); err != nil {
		t.Fatal(err)
	}
	// An INIT to the closed port is answered with an ABORT.
	start := time.Now()
	_, err := Dial(ctx, "127.0.0.1:5001", nil)
	if !errors.Is(err, ErrConnRefused) {
		t.Fatalf("dial to the closed port: %v, want ErrConnRefused", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("refusal took %v", d)
	}
	// The port can be listened on again.
	l1 = sharedListen(t, "127.0.0.1:5001")
	c5 := echoOnce(t, l1, dial("127.0.0.1:5001"), "to 5001 again")
	c5.Close()
	l1.Close()
}

// TestUDPSharedSocketPortInUse: a second Listen on an SCTP port of the
// shared socket fails with an EADDRINUSE error, as a second bind does; a
// dial from a fixed LocalPort held by a listener on the socket too.
func TestUDPSharedSocketPortInUse(t *testing.T) {
	l := sharedListen(t, "127.0.0.1:5003")
	defer l.Close()
	_, err := Listen("127.0.0.1:5003", nil)
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second Listen on SCTP port 5003: %v, want EADDRINUSE", err)
	}
	e, err := NewEndpoint(l.Addr().IP, &Config{UDPPort: 9899, LocalPort: 5003})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := e.Dial(ctx, "127.0.0.1:5004"); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("dial from a held port: %v, want EADDRINUSE", err)
	}
}

// TestUDPSharedSocketManyListeners: eight listeners on one socket, each
// with a dialer, exchange messages at once, and the socket closes with
// the last of them.
func TestUDPSharedSocketManyListeners(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const n = 8
	socks := netio.SharedSockets()
	var ls []*Endpoint
	for i := range n {
		ls = append(ls, sharedListen(t, fmt.Sprintf("127.0.0.1:%d", 5010+i)))
	}
	errc := make(chan error, n)
	for i, l := range ls {
		go func() {
			c, err := Dial(ctx, fmt.Sprintf("127.0.0.1:%d", 5010+i), nil)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			s, err := l.AcceptContext(ctx)
			if err != nil {
				errc <- err
				return
			}
			buf := make([]byte, 64)
			for j := range 100 {
				msg := fmt.Sprintf("%d/%d", i, j)
				if _, err := c.WriteMsg([]byte(msg), SendInfo{}); err != nil {
					errc <- err
					return
				}
				k, _, err := s.ReadMsg(buf)
				if err != nil || string(buf[:k]) != msg {
					errc <- fmt.Errorf("listener %d read %q %v, want %q", i, buf[:k], err, msg)
					return
				}
			}
			errc <- nil
		}()
	}
	for range n {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if netio.SharedSockets() != socks+1 {
		t.Fatalf("%d listeners on %d shared sockets, want one", n, netio.SharedSockets()-socks)
	}
	for _, l := range ls {
		l.Close()
	}
	if netio.SharedSockets() != socks {
		t.Fatal("the shared socket outlived its last endpoint")
	}
}

// TestRawIPSharedSocket: listeners on the raw IP transport share the
// process's raw socket of their address, each reached by a dialer (whose
// own raw socket sees every packet of the host and keeps its own).
func TestRawIPSharedSocket(t *testing.T) {
	cfg := &Config{Transport: IP, Timers: Timers{RTOInitial: 200 * time.Millisecond, RTOMin: 100 * time.Millisecond}}
	socks := netio.SharedSockets()
	l1, err := Listen("127.0.0.1:6001", cfg)
	if errors.Is(err, os.ErrPermission) {
		t.Skipf("raw IP: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Close()
	l2, err := Listen("127.0.0.1:6002", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if l1.ports == nil || l2.ports == nil || netio.SharedSockets() != socks+1 {
		t.Fatal("the raw IP listeners do not share their socket")
	}
	if _, err := Listen("127.0.0.1:6001", cfg); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second raw IP Listen on 6001: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, l := range []*Endpoint{l1, l2} {
		addr := fmt.Sprintf("127.0.0.1:%d", l.listenPort)
		c := echoOnce(t, l, func() (*Association, error) { return Dial(ctx, addr, cfg) }, "raw to "+addr)
		c.Close()
	}
	// A listener dials the other over their shared raw socket.
	c := echoOnce(t, l2, func() (*Association, error) { return l1.Dial(ctx, "127.0.0.1:6002") }, "l1 to l2")
	c.Close()
}
