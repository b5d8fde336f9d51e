package sctp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// simSocket returns a socket of the simulated network n bound to addr.
func simSocket(t testing.TB, n *simconn.Network, addr string) *simconn.Conn {
	t.Helper()
	c, err := n.Listen(netip.MustParseAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// simPair runs f with a listening endpoint at 10.0.0.2 and a dialed
// association from 10.0.0.1 over a simulated link, inside a synctest
// bubble: virtual time, no real sleeps.
func simPair(t *testing.T, link simnet.LinkConfig, f func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network)) {
	simPairAdj(t, link, nil, f)
}

// simPairAdj is simPair with both endpoints' configurations adjusted by
// adj (streams, buffers, interleaving) when it is not nil.
func simPairAdj(t *testing.T, link simnet.LinkConfig, adj func(*Config), f func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network)) {
	simPairConn(t, link, adj, nil, f)
}

// simPairConn is simPairAdj with the client's socket wrapped by wrap when
// it is not nil (a socket that loses chosen packets, say).
func simPairConn(t *testing.T, link simnet.LinkConfig, adj func(*Config), wrap func(*simconn.Conn) netio.Conn,
	f func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network)) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: link, Overhead: 28})
		ca := simSocket(t, n, "10.0.0.1:9899")
		cb := simSocket(t, n, "10.0.0.2:9899")
		lc := &Config{OutStreams: 16, InStreams: 16}
		dc := &Config{OutStreams: 16, InStreams: 16}
		if adj != nil {
			adj(lc)
			adj(dc)
		}
		l, err := listenOn("10.0.0.2:5000", lc, cb)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var cconn netio.Conn = ca
		if wrap != nil {
			cconn = wrap(ca)
		}
		c, err := dialNew(ctx, "10.0.0.2:5000", dc, cconn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := l.AcceptContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f(t, c, s, l, n)
	})
}

// TestSimTransferLoss moves messages on many streams both ways over a
// lossy, reordering, duplicating link and shuts down gracefully.
func TestSimTransferLoss(t *testing.T) {
	link := simnet.LinkConfig{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.02, Dup: 0.01, Reorder: 0.01}
	simPair(t, link, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		const msgs = 400
		send := func(a *Association, tag byte) {
			for i := range msgs {
				m := bytes.Repeat([]byte{tag, byte(i)}, 1+i*7%1500)
				if _, err := a.WriteMsg(m, SendInfo{Stream: uint16(i % 16), PPID: uint32(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}
		recv := func(a *Association, tag byte, done chan<- error) {
			buf := make([]byte, 4000)
			var next [16]int
			for range msgs {
				n, info, err := a.ReadMsg(buf)
				if err != nil {
					done <- err
					return
				}
				i := int(info.PPID)
				want := bytes.Repeat([]byte{tag, byte(i)}, 1+i*7%1500)
				if !info.EOR || !bytes.Equal(buf[:n], want) || int(info.Stream) != i%16 || next[info.Stream] > i {
					done <- fmt.Errorf("message %d on stream %d: %d bytes", i, info.Stream, n)
					return
				}
				next[info.Stream] = i
			}
			done <- nil
		}
		done := make(chan error, 2)
		go send(c, 'c')
		go send(s, 's')
		go recv(s, 'c', done)
		go recv(c, 's', done)
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ReadMsg(make([]byte, 10)); err != io.EOF {
			t.Fatalf("after shutdown: %v", err)
		}
		st := c.Stats()
		t.Logf("shutdown took %v virtual; %d packets out, %d retransmits", time.Since(start), st.PacketsOut, st.Retransmits)
	})
}

// TestSimDeadlines checks read and write deadlines and contexts in
// virtual time.
func TestSimDeadlines(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 50 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		start := time.Now()
		s.SetReadDeadline(start.Add(3 * time.Second))
		if _, _, err := s.ReadMsg(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("read deadline after %v", d)
		}
		st := s.Stream(2)
		st.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := st.Read(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("stream read: %v", err)
		}
		// A message on stream 2 reaches the stream handle.
		st.SetReadDeadline(time.Time{})
		if _, err := c.Stream(2).Write([]byte("two")); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 10)
		if n, err := st.Read(b); err != nil || string(b[:n]) != "two" {
			t.Fatalf("stream read %q %v", b[:n], err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := l.AcceptContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("accept: %v", err)
		}
		// Writes block once the peer stops reading and the buffers fill.
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		msg := make([]byte, 32<<10)
		var err error
		for range 1000 {
			if _, err = c.WriteMsg(msg, SendInfo{}); err != nil {
				break
			}
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("write: %v", err)
		}
		// Abort with queued data reports the unsent messages.
		c.Abort("test over")
		var failed int
		for ev := range c.Events() {
			if ev.Kind == EventSendFailed {
				failed++
			}
		}
		if failed == 0 {
			t.Fatal("no send-failed event")
		}
		s.SetReadDeadline(time.Time{})
		_, _, err = s.ReadMsg(make([]byte, 64<<10))
		for err == nil {
			_, _, err = s.ReadMsg(make([]byte, 64<<10))
		}
		if !errors.Is(err, ErrPeerAborted) {
			t.Fatalf("peer: %v", err)
		}
		if ae := (*AbortError)(nil); !errors.As(err, &ae) || ae.Cause != uint16(chunk.CauseUserAbort) {
			t.Fatalf("cause: %v", err)
		}
	})
}

// TestSimPeerUnreachable loses the peer: the association ends with a
// timeout error after Association.Max.Retrans retransmissions.
func TestSimPeerUnreachable(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		a1, a2 := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")
		n.SetLink(a1, a2, simnet.LinkConfig{Loss: 1})
		n.SetLink(a2, a1, simnet.LinkConfig{Loss: 1})
		start := time.Now()
		if _, err := c.WriteMsg([]byte("lost"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		_, _, err := c.ReadMsg(make([]byte, 10))
		if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrLocalAbort) {
			t.Fatalf("read: %v", err)
		}
		t.Logf("peer declared unreachable after %v: %v", time.Since(start), err)
		var sawDown, sawFailed bool
		for ev := range c.Events() {
			sawDown = sawDown || ev.Kind == EventDown
			sawFailed = sawFailed || ev.Kind == EventSendFailed && string(ev.Msg) == "lost"
		}
		if !sawDown || !sawFailed {
			t.Fatalf("events: down %v send failed %v", sawDown, sawFailed)
		}
	})
}

// TestSimScheduler changes the scheduler of a live association and sets
// per-stream values.
func TestSimScheduler(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if k := c.Scheduler(); k != SchedulerFCFS {
			t.Fatalf("default scheduler %v", k)
		}
		if err := c.SetScheduler(SchedulerPriority); err != nil {
			t.Fatal(err)
		}
		if err := c.SetStreamValue(3, 7); err != nil {
			t.Fatal(err)
		}
		if v, err := c.StreamValue(3); err != nil || v != 7 || c.Scheduler() != SchedulerPriority {
			t.Fatalf("value %d %v, scheduler %v", v, err, c.Scheduler())
		}
		for i := range 20 {
			if _, err := c.WriteMsg(make([]byte, 1000), SendInfo{Stream: uint16(i % 4)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.SetScheduler(SchedulerRoundRobin); err != nil {
			t.Fatalf("SetScheduler with data queued: %v", err) // allowed at any time
		}
		buf := make([]byte, 2000)
		for range 20 {
			if _, _, err := s.ReadMsg(buf); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSimSimultaneousOpen has two endpoints that do not listen dial each
// other at the same moment (an INIT collision, RFC 9260 section 5.2.1):
// both get the one association.
func TestSimSimultaneousOpen(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprint("late=", late), func(t *testing.T) { simultaneousOpen(t, late) })
	}
}

func simultaneousOpen(t *testing.T, late bool) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(3, simconn.Config{Link: simnet.LinkConfig{Delay: 20 * time.Millisecond}, Overhead: 28})
		var eps [2]*Endpoint
		for i := range eps {
			c, err := n.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), 9899))
			if err != nil {
				t.Fatal(err)
			}
			eps[i], err = newEndpointOn(netip.Addr{}, &Config{LocalPort: 5000}, c)
			if err != nil {
				t.Fatal(err)
			}
			defer eps[i].Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var as [2]*Association
		errc := make(chan error, 2)
		for i := range eps {
			go func() {
				var err error
				as[i], err = eps[i].Dial(ctx, fmt.Sprintf("10.0.0.%d:5000", 2-i))
				errc <- err
			}()
			if late {
				// The first INIT reaches the other endpoint before it
				// dials: it must not abort it.
				time.Sleep(100 * time.Millisecond)
			}
		}
		for range 2 {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		if _, err := as[0].WriteMsg([]byte("crossed"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 10)
		if n, _, err := as[1].ReadMsg(b); err != nil || string(b[:n]) != "crossed" {
			t.Fatalf("read %q %v", b[:n], err)
		}
		if err := as[1].Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSimRestart has the dialing side crash (its ABORT lost) and come
// back from the same address and port: the accepted association sees a
// restart (RFC 9260 section 5.2.4) and goes on with the new peer.
func TestSimRestart(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		a1, a2 := netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")
		lport := c.LocalAddrs()[0].Port
		n.SetLink(a1, a2, simnet.LinkConfig{Loss: 1})
		c.ep.Close() // crash: the ABORT is lost
		n.SetLink(a1, a2, simnet.LinkConfig{Delay: 5 * time.Millisecond})
		conn, err := n.Listen(a1)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c2, err := dialNew(ctx, "10.0.0.2:5000", &Config{OutStreams: 16, InStreams: 16, LocalPort: lport}, conn)
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		restarted := false
		for !restarted {
			select {
			case ev := <-s.Events():
				restarted = ev.Kind == EventRestart
			case <-ctx.Done():
				t.Fatal("no restart event")
			}
		}
		if _, err := c2.WriteMsg([]byte("again"), SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 10)
		if n, _, err := s.ReadMsg(b); err != nil || string(b[:n]) != "again" {
			t.Fatalf("after restart: %q %v", b[:n], err)
		}
	})
}

// TestSimDialTimeout dials a peer that never answers: the INIT is given up
// after Max.Init.Retransmits, and Dial's error says so once, matching
// ErrTimeout ("dial sctp ADDR: association aborted locally (init
// timeout)", not "dial sctp ADDR: sctp: ...").
func TestSimDialTimeout(t *testing.T) {
	bubble(t, func(t *testing.T) {
		n := simconn.New(1, simconn.Config{Link: simnet.LinkConfig{Loss: 1}, Overhead: 28})
		ca := simSocket(t, n, "10.0.0.1:9899")
		_, err := dialNew(context.Background(), "10.0.0.2:5000", &Config{Timers: Timers{RTOMax: 2 * time.Second}}, ca)
		if !errors.Is(err, ErrTimeout) || strings.Count(err.Error(), "sctp") != 1 ||
			!strings.HasPrefix(err.Error(), "dial sctp 10.0.0.2:5000: ") {
			t.Fatalf("dial: %v", err)
		}
		t.Log(err)
	})
}

// simBulk writes volume bytes in 1400-byte messages from c while a
// goroutine reads them at s, and returns when all were read. progress, if
// not nil, is told the bytes read after each message.
func simBulk(t *testing.T, c, s *Association, volume int, progress func(got int)) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		got := 0
		for got < volume {
			n, _, err := s.ReadMsg(buf)
			if err != nil {
				done <- fmt.Errorf("read after %d bytes: %w", got, err)
				return
			}
			got += n
			if progress != nil {
				progress(got)
			}
		}
		done <- nil
	}()
	msg := make([]byte, 1400)
	for sent := 0; sent < volume; sent += len(msg) {
		if _, err := c.WriteMsg(msg, SendInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil && err != io.EOF {
		t.Fatal(err)
	}
}
