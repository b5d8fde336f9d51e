package sctp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"

	"github.com/usctp/usctp/internal/testsupport"
)

// loopCfg is a configuration for tests over UDP on loopback: ephemeral
// UDP ports.
func loopCfg() *Config {
	return &Config{EphemeralUDPPort: true, OutStreams: 32, InStreams: 32,
		Timers: Timers{RTOMin: 100 * time.Millisecond, RTOInitial: 200 * time.Millisecond}, CloseTimeout: 5 * time.Second}
}

// listenLoop starts an endpoint on 127.0.0.1 and returns it with the
// configuration a dialer needs to reach it.
func listenLoop(t testing.TB, cfg *Config) (*Endpoint, *Config) {
	t.Helper()
	if cfg == nil {
		cfg = loopCfg()
	}
	l, err := Listen("127.0.0.1:5000", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	dc := *cfg
	dc.RemoteUDPPort = l.Addr().UDPPort
	return l, &dc
}

func dialLoop(t testing.TB, dc *Config) *Association {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := Dial(ctx, "127.0.0.1:5000", dc)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func accept(t testing.TB, l *Endpoint) *Association {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := l.AcceptContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestUDPHandshakeEchoShutdown(t *testing.T) {
	l, dc := listenLoop(t, nil)
	c := dialLoop(t, dc)
	s := accept(t, l)
	if out, in := c.Streams(); out != 32 || in != 32 {
		t.Fatalf("streams %d/%d", out, in)
	}
	if ev := <-c.Events(); ev.Kind != EventUp {
		t.Fatalf("first event %v", ev.Kind)
	}
	for i := range 100 {
		msg := []byte(fmt.Sprintf("hello %d", i))
		if _, err := c.WriteMsg(msg, SendInfo{Stream: uint16(i % 32), PPID: 51, Unordered: i%3 == 0}); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 100)
	seen := map[string]bool{}
	for range 100 {
		n, info, err := s.ReadMsg(buf)
		if err != nil {
			t.Fatal(err)
		}
		if !info.EOR || info.PPID != 51 {
			t.Fatalf("info %+v", info)
		}
		seen[string(buf[:n])] = true
	}
	if len(seen) != 100 {
		t.Fatalf("%d distinct messages", len(seen))
	}
	// A message larger than the buffer comes in parts.
	big := bytes.Repeat([]byte("0123456789"), 1000)
	if _, err := s.WriteMsg(big, SendInfo{Stream: 3}); err != nil {
		t.Fatal(err)
	}
	var got []byte
	small := make([]byte, 777)
	for {
		n, info, err := c.ReadMsg(small)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, small[:n]...)
		if info.EOR {
			break
		}
	}
	if !bytes.Equal(got, big) {
		t.Fatalf("big message: got %d bytes", len(got))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ReadMsg(buf); err != io.EOF {
		t.Fatalf("read after shutdown: %v", err)
	}
	if _, err := s.WriteMsg([]byte("x"), SendInfo{}); !errors.Is(err, ErrShutdown) || errors.Is(err, ErrClosed) {
		t.Fatalf("write after the peer's shutdown: %v, want ErrShutdown", err)
	}
	var kinds []EventKind
	for ev := range s.Events() {
		kinds = append(kinds, ev.Kind)
	}
	if kinds[len(kinds)-1] != EventShutdown {
		t.Fatalf("events %v", kinds)
	}
	st := c.Stats()
	if st.AssocsUp != 1 || st.PacketsOut == 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestUDPAbort(t *testing.T) {
	l, dc := listenLoop(t, nil)
	c := dialLoop(t, dc)
	s := accept(t, l)
	errc := make(chan error, 1)
	go func() {
		_, _, err := s.ReadMsg(make([]byte, 10))
		errc <- err
	}()
	if err := c.Abort("bye now"); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	var ae *AbortError
	if !errors.Is(err, ErrPeerAborted) || !errors.Is(err, ErrAborted) || errors.Is(err, ErrLocalAbort) || !errors.As(err, &ae) {
		t.Fatalf("peer side: %v", err)
	}
	if ae.Cause != uint16(chunk.CauseUserAbort) {
		t.Fatalf("cause %d", ae.Cause)
	}
	if _, err := c.WriteMsg([]byte("x"), SendInfo{}); !errors.Is(err, ErrLocalAbort) {
		t.Fatalf("local side: %v", err)
	}
	if !errors.Is(c.Err(), ErrLocalAbort) {
		t.Fatal(c.Err())
	}
}

func TestUDPDeadlines(t *testing.T) {
	l, dc := listenLoop(t, nil)
	c := dialLoop(t, dc)
	defer c.Abort("test over") // the peer never reads: no graceful end
	s := accept(t, l)
	s.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, _, err := s.ReadMsg(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	// Fill the peer's window and our send buffer: writes then block.
	cfg := *dc
	_ = cfg
	msg := make([]byte, 64<<10)
	c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
	var err error
	for range 1000 {
		if _, err = c.WriteMsg(msg, SendInfo{}); err != nil {
			break
		}
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write: %v", err)
	}
	if _, err := c.WriteMsg(msg, SendInfo{NonBlocking: true}); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write past the deadline: %v", err)
	}
	c.SetWriteDeadline(time.Time{})
	for range 1000 { // the peer's window may still take some
		if _, err = c.WriteMsg(msg, SendInfo{NonBlocking: true}); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("non-blocking write: %v", err)
	}
	// Dial with a context that ends: a UDP socket that never answers (a
	// usctp endpoint on another SCTP port, or a closed UDP port, would
	// refuse at once).
	sink, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	mute := *dc
	mute.RemoteUDPPort = uint16(sink.LocalAddr().(*net.UDPAddr).Port)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, "127.0.0.1:5000", &mute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("dial: %v", err)
	}
	// A stream handle.
	st := s.Stream(0)
	st.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	s.SetReadDeadline(time.Time{})
}

func TestUDPManyAssociations(t *testing.T) {
	n := 200
	if testsupport.RaceEnabled {
		n = 20
	}
	// All n may complete their handshakes within one read batch, before
	// the accept loop runs: the backlog must hold them (TestUDPBacklogFull
	// covers a full one).
	cfg := loopCfg()
	cfg.Limits.Backlog = n
	l, dc := listenLoop(t, cfg)
	var wg sync.WaitGroup
	errc := make(chan error, 2*n)
	acceptDone := make(chan struct{}) // closed after the accept loop's last wg.Add
	go func() {
		defer close(acceptDone)
		for range n {
			s, err := l.Accept()
			if err != nil {
				errc <- err
				return
			}
			wg.Add(1)
			go func() { // echo
				defer wg.Done()
				buf := make([]byte, 2048)
				for {
					k, info, err := s.ReadMsg(buf)
					if err != nil {
						if err != io.EOF {
							errc <- err
						}
						return
					}
					if _, err := s.WriteMsg(buf[:k], SendInfo{Stream: info.Stream, PPID: info.PPID}); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
	}()
	// All dialers share one client endpoint, too.
	ce, err := NewEndpoint(netip.MustParseAddr("127.0.0.1"), dc)
	if err != nil {
		t.Fatal(err)
	}
	defer ce.Close()
	var cwg sync.WaitGroup
	for i := range n {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			a, err := ce.Dial(ctx, "127.0.0.1:5000")
			if err != nil {
				errc <- err
				return
			}
			buf := make([]byte, 2048)
			for j := range 50 {
				msg := []byte(fmt.Sprintf("assoc %d message %d", i, j))
				if _, err := a.WriteMsg(msg, SendInfo{Stream: uint16(j % 4)}); err != nil {
					errc <- err
					return
				}
				k, _, err := a.ReadMsg(buf)
				if err != nil || string(buf[:k]) != string(msg) {
					errc <- fmt.Errorf("echo %q: %v", buf[:k], err)
					return
				}
			}
			if err := a.Shutdown(ctx); err != nil {
				errc <- err
			}
		}()
	}
	cwg.Wait()
	// wg.Wait may start only once every wg.Add was made (an Add racing a
	// Wait at zero is a misuse): after the accept loop, or without it
	// when a dial failed and the loop waits for an association that will
	// not come.
	select {
	case <-acceptDone:
		wg.Wait()
	case <-time.After(10 * time.Second):
		t.Error("the accept loop did not accept every association")
	}
	// errc stays open: the accept loop may still be waiting when a dialer
	// failed, and reports the listener's closing later.
	for {
		select {
		case err := <-errc:
			t.Error(err)
		default:
			return
		}
	}
}

// TestUDPBacklogFull: with the backlog full (associations Accept has not
// returned), a new peer's COOKIE ECHO is dropped, not aborted (its Dial
// keeps waiting for a retransmission to be served); once Accept made room,
// the next peer is served.
func TestUDPBacklogFull(t *testing.T) {
	cfg := loopCfg()
	cfg.Limits.Backlog = 1
	l, dc := listenLoop(t, cfg)
	c1 := dialLoop(t, dc)
	defer c1.Abort("done")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, "127.0.0.1:5000", dc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second dial with the backlog full: %v, want to be left waiting", err)
	}
	if n := l.Stats().BacklogDropped; n == 0 {
		t.Fatal("no COOKIE ECHO dropped for the backlog")
	}
	s1 := accept(t, l)
	defer s1.Close()
	c2 := dialLoop(t, dc)
	defer c2.Abort("done")
}

// TestUDPDialIPv4FragmentPoint: a dialed association to an IPv4 peer over
// UDP encapsulation sizes its packets for IPv4 (20-byte IP and 8-byte UDP
// headers): at MTU 1500 a 1444-byte message fits one DATA chunk (1500 - 20 -
// 8 - 12 - 16), where an IPv6 assumption would cut it in two. Path MTU
// discovery reaches that size (EventPathMTU with 1472) first (MTU 1500
// set: loopback's default is 65535).
func TestUDPDialIPv4FragmentPoint(t *testing.T) {
	cfg := loopCfg()
	cfg.MTU = 1500
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	defer c.Close()
	s := accept(t, l)
	defer s.Close()
	timeout := time.After(10 * time.Second)
	for mtu := 0; mtu != 1472; {
		select {
		case ev := <-c.Events():
			if ev.Kind == EventPathMTU {
				mtu = ev.MTU
				// Events and paths name a peer address alike: IP, SCTP
				// port and UDP port.
				if p := c.Paths(); len(p) == 0 || ev.Addr != p[0].Addr || ev.Addr.Port != 5000 || ev.Addr.UDPPort != dc.RemoteUDPPort {
					t.Errorf("EventPathMTU address %v, path %+v", ev.Addr, p)
				}
			}
		case <-timeout:
			t.Fatalf("no EventPathMTU with 1472 in 10 s: %+v", c.Paths())
		}
	}
	msg := bytes.Repeat([]byte{7}, 1444)
	if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2000)
	n, info, err := s.ReadMsg(buf)
	if err != nil || n != len(msg) || !info.EOR {
		t.Fatalf("read %d bytes, %+v, %v", n, info, err)
	}
	if got := c.Stats().ChunksOut[ctDataType]; got != 1 {
		t.Errorf("a 1444-byte message took %d DATA chunks, want 1", got)
	}
}

// TestUDPEndpointAddr: a listener's Addr names its SCTP port and its UDP
// port, and prints both ("listening on" lines show the SCTP port).
func TestUDPEndpointAddr(t *testing.T) {
	l, dc := listenLoop(t, nil)
	a := l.Addr()
	if a.IP != netip.MustParseAddr("127.0.0.1") || a.Port != 5000 || a.UDPPort == 0 || a.UDPPort != dc.RemoteUDPPort {
		t.Fatalf("listener Addr %+v, want 127.0.0.1, SCTP port 5000 and its UDP port", a)
	}
	if want := fmt.Sprintf("127.0.0.1:5000/udp:%d", a.UDPPort); a.String() != want {
		t.Errorf("Addr prints %q, want %q", a.String(), want)
	}
}
