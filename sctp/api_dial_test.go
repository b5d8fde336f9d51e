package sctp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// wantRefused fails t unless err is a dial error that matches
// ErrConnRefused and syscall.ECONNREFUSED.
func wantRefused(t *testing.T, err error) {
	t.Helper()
	var ae *AbortError
	if !errors.Is(err, ErrConnRefused) || !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &ae) ||
		errors.Is(err, ErrTimeout) {
		t.Fatalf("dial: %v, want ErrConnRefused and ECONNREFUSED", err)
	}
}

// RFC 9260 section 8.4 (3), quoted in the core's
// TestInitToUnknownPortAborted: a usctp endpoint answers an INIT to an
// SCTP port nobody listens on with an ABORT, and a Dial that gets it
// fails at once with ErrConnRefused (it took Max.Init.Retransmits T1
// expiries, about 4 minutes, before).
func TestSimDialOtherSCTPPort(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Overhead: 28})
		ca := simSocket(t, n, "10.0.0.1:9899")
		cb := simSocket(t, n, "10.0.0.2:9899")
		l, err := listenOn("10.0.0.2:5000", nil, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		start := time.Now()
		_, err = dialNew(context.Background(), "10.0.0.2:5001", nil, ca)
		wantRefused(t, err)
		if !errors.Is(err, ErrPeerAborted) {
			t.Fatalf("dial: %v, want the peer's ABORT", err)
		}
		if d := time.Since(start); d >= time.Second {
			t.Fatalf("dial failed after %v, want one round trip", d)
		}
		if s := l.Stats(); s.AbortsOut != 1 || s.InitsIn != 0 {
			t.Fatalf("listener: AbortsOut %d InitsIn %d", s.AbortsOut, s.InitsIn)
		}
	})
}

// An endpoint listens before it reads its first packet: a peer that
// dialed first over the socket, whose INIT waits there when Listen is
// called, is accepted (not refused with an ABORT, as an INIT to a port
// nobody listens on is). Programs that hand usctp a connection already
// carrying traffic, a WebRTC server over DTLS say, rely on it.
func TestSimListenAnswersWaitingINIT(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Overhead: 28})
		ca := simSocket(t, n, "10.0.0.1:9899")
		cb := simSocket(t, n, "10.0.0.2:9899")
		// The order itself: an endpoint is built listening, before start
		// gives its socket a reader.
		cx := simSocket(t, n, "10.0.0.3:9899")
		e, err := buildEndpoint(netip.Addr{}, nil, cx, 5000)
		if err != nil {
			t.Fatal(err)
		}
		if e.listenPort != 5000 {
			t.Errorf("built with listenPort %d before its reader starts, want 5000", e.listenPort)
		}
		e.start()
		e.Close()

		dialed := make(chan error, 1)
		go func() {
			c, err := dialNew(context.Background(), "10.0.0.2:5000", nil, ca)
			if err == nil {
				defer c.Close()
			}
			dialed <- err
		}()
		synctest.Wait() // the INIT waits on the listener's socket
		l, err := listenOn("10.0.0.2:5000", nil, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := <-dialed; err != nil {
			t.Fatalf("dial: %v", err)
		}
		if st := l.Stats(); st.AbortsOut != 0 || st.InitsIn != 1 {
			t.Fatalf("listener: AbortsOut %d InitsIn %d, want 0 and 1", st.AbortsOut, st.InitsIn)
		}
	})
}

// The same over UDP on loopback: a usctp endpoint on another SCTP port
// refuses at once.
func TestUDPDialOtherSCTPPort(t *testing.T) {
	_, dc := listenLoop(t, nil)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Dial(ctx, "127.0.0.1:5001", dc)
	wantRefused(t, err)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("dial failed after %v", d)
	}
}

// closedUDPPort returns a UDP port of ip that answers with ICMP port
// unreachable and that no other program can take while the test runs: a
// socket the test holds is bound to it and connected elsewhere (to port
// 9 of ip), so the kernel delivers it nothing from anyone else and
// answers their packets as for a port nobody holds.
func closedUDPPort(t *testing.T, ip string) uint16 {
	t.Helper()
	c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.ParseIP(ip)}, &net.UDPAddr{IP: net.ParseIP(ip), Port: 9})
	if err != nil {
		t.Skipf("no %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// onFreeUDPPort calls listen with a UDP port of ip free a moment before,
// until listen binds it: another program may take the port in between,
// and then listen fails with EADDRINUSE and another port is tried. It
// returns listen's result and the port, which it then holds.
func onFreeUDPPort[T any](t *testing.T, ip string, listen func(port uint16) (T, error)) (T, uint16) {
	t.Helper()
	for try := 1; ; try++ {
		port := freeUDPPort(t, ip)
		v, err := listen(port)
		if err == nil {
			return v, port
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 10 {
			t.Fatalf("listen on UDP port %d: %v", port, err)
		}
	}
}

// freeUDPPort returns a UDP port of ip on which nothing listens now, for
// onFreeUDPPort and for other processes.
func freeUDPPort(t *testing.T, ip string) uint16 {
	t.Helper()
	c, err := net.ListenPacket("udp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("no %s: %v", ip, err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	c.Close()
	return uint16(port)
}

// RFC 6951 section 5.5 (paraphrased): ICMP port unreachable for UDP
// encapsulation is treated as protocol unreachable, which RFC 9260
// appendix C (ICMP8, paraphrased) handles like an ABORT for an INIT in
// COOKIE-WAIT. A Dial to a UDP port where nothing listens fails within a
// few seconds with ErrConnRefused, from the ICMP error the kernel reports
// (IP_RECVERR), not after 4 minutes of INIT retransmissions.
func TestUDPDialClosedPort(t *testing.T) {
	for _, ip := range []string{"127.0.0.1", "::1"} {
		t.Run(ip, func(t *testing.T) {
			port := closedUDPPort(t, ip)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			_, err := Dial(ctx, net.JoinHostPort(ip, "5000"), &Config{RemoteUDPPort: port})
			wantRefused(t, err)
			if errors.Is(err, ErrPeerAborted) {
				t.Fatalf("dial: %v: no peer answered", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("dial failed after %v, want a few seconds at most", d)
			}
			t.Log(err)
		})
	}
}

// Config.Timers.MaxInitRetransmits and InitRTOMax bound how long a Dial nobody
// answers takes: RTOInitial, then doubled up to InitRTOMax, for
// MaxInitRetransmits retransmissions; with the defaults 243 s, as the
// package documentation says.
func TestSimDialInitBounds(t *testing.T) {
	for _, tc := range []struct {
		cfg  *Config
		want time.Duration
	}{
		{nil, 243 * time.Second}, // 1+2+4+8+16+32+60+60+60
		{&Config{Timers: Timers{MaxInitRetransmits: 2}}, 7 * time.Second},
		{&Config{Timers: Timers{InitRTOMax: 3 * time.Second}}, 24 * time.Second}, // 1+2+3+3+3+3+3+3+3
		{&Config{Timers: Timers{MaxInitRetransmits: 3, RTOInitial: 500 * time.Millisecond, InitRTOMax: time.Second}},
			3500 * time.Millisecond},
	} {
		bubble(t, func(t *testing.T) {
			n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Loss: 1}, Overhead: 28})
			ca := simSocket(t, n, "10.0.0.1:9899")
			start := time.Now()
			_, err := dialNew(context.Background(), "10.0.0.2:5000", tc.cfg, ca)
			if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnRefused) {
				t.Fatalf("dial: %v", err)
			}
			if d := time.Since(start); d != tc.want {
				t.Fatalf("%+v: dial failed after %v, want %v", tc.cfg, d, tc.want)
			}
		})
	}
}
