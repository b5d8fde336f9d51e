package sctp

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/netio"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// The errors of reads and writes once an association is closing or ended
// follow one rule, net.Conn's: after a local Close every read and write
// fails with ErrClosed (net.ErrClosed), also those blocked when Close
// was called and those with data still to read; io.EOF is a read's
// answer only after a graceful shutdown this side did not end with
// Close (the peer's, or Shutdown), once every message was read; a write
// after a graceful shutdown began, either side's, fails with ErrShutdown.

// TestSimCloseErrors: after a local Close, ReadMsg and WriteMsg, and a
// ReadMsg blocked at Close, return ErrClosed, not io.EOF, although a
// message waits unread.
func TestSimCloseErrors(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		blocked := make(chan error, 1)
		go func() {
			_, _, err := c.ReadMsg(make([]byte, 100))
			blocked <- err
		}()
		time.Sleep(10 * time.Millisecond)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-blocked; !errors.Is(err, ErrClosed) || errors.Is(err, io.EOF) {
			t.Errorf("ReadMsg blocked at Close: %v, want ErrClosed", err)
		}
		if _, _, err := c.ReadMsg(make([]byte, 100)); !errors.Is(err, ErrClosed) {
			t.Errorf("ReadMsg after Close: %v, want ErrClosed", err)
		}
		if _, err := c.WriteMsg([]byte("x"), SendInfo{}); !errors.Is(err, ErrClosed) {
			t.Errorf("WriteMsg after Close: %v, want ErrClosed", err)
		}
		// The peer's side saw a graceful shutdown: io.EOF to reads,
		// ErrShutdown to writes.
		if _, _, err := s.ReadMsg(make([]byte, 100)); err != io.EOF {
			t.Errorf("peer's ReadMsg after the shutdown: %v, want io.EOF", err)
		}
		if _, err := s.WriteMsg([]byte("x"), SendInfo{}); !errors.Is(err, ErrShutdown) || errors.Is(err, ErrClosed) {
			t.Errorf("peer's WriteMsg after the shutdown: %v, want ErrShutdown", err)
		}
	})
}

// TestSimCloseWithDataUnread: Close fails reads at once, even with a
// message buffered (net.Conn's Read after Close does not return data).
func TestSimCloseWithDataUnread(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if _, err := s.WriteMsg([]byte("unread"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		if c.Stats().RecvBuffered == 0 {
			t.Fatal("the message did not arrive")
		}
		c.Close()
		if _, _, err := c.ReadMsg(make([]byte, 100)); !errors.Is(err, ErrClosed) {
			t.Errorf("ReadMsg after Close with data unread: %v, want ErrClosed", err)
		}
	})
}

// TestSimShutdownErrors: after this side's Shutdown (not Close), reads
// return the messages still buffered, then io.EOF; writes fail with
// ErrShutdown.
func TestSimShutdownErrors(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if _, err := s.WriteMsg([]byte("last"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 100)
		if n, _, err := c.ReadMsg(buf); err != nil || string(buf[:n]) != "last" {
			t.Errorf("ReadMsg after Shutdown: %q, %v; want the buffered message", buf[:n], err)
		}
		if _, _, err := c.ReadMsg(buf); err != io.EOF {
			t.Errorf("second ReadMsg after Shutdown: %v, want io.EOF", err)
		}
		if _, err := c.WriteMsg([]byte("x"), SendInfo{}); !errors.Is(err, ErrShutdown) {
			t.Errorf("WriteMsg after Shutdown: %v, want ErrShutdown", err)
		}
	})
}

// checkErrText fails unless err's text starts with "sctp: " once and
// names no package of the implementation.
func checkErrText(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	s := err.Error()
	if !strings.HasPrefix(s, "sctp: ") || strings.Count(s, "sctp: ") > 1 {
		t.Errorf("%s: %q, want one \"sctp: \" prefix", what, s)
	}
	for _, p := range []string{"transfer:", "netio:", "assoc:", "api:", "stream:", "sched:", "interleave:"} {
		if strings.Contains(s, p) {
			t.Errorf("%s: %q names an internal package (%s)", what, s, p)
		}
	}
}

// TestSimErrorTexts: the errors a user meets from calls on an
// association say "sctp: " once and name none of the packages inside.
func TestSimErrorTexts(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		ctx := context.Background()
		_, err := c.WriteMsg([]byte("x"), SendInfo{Stream: 100})
		checkErrText(t, "WriteMsg on stream 100", err)
		_, err = c.WriteMsg(nil, SendInfo{})
		checkErrText(t, "empty WriteMsg", err)
		_, err = c.WriteMsg([]byte("x"), SendInfo{PR: PR{Policy: 9}})
		checkErrText(t, "WriteMsg with PR policy 9", err)
		checkErrText(t, "SetStreamValue(100)", c.SetStreamValue(100, 1))
		checkErrText(t, "SetScheduler(99)", c.SetScheduler(99))
		if err := c.SetScheduler(SchedulerWFQ); err != nil {
			t.Fatal(err)
		}
		checkErrText(t, "WFQ weight 0", c.SetStreamValue(1, 0))
		checkErrText(t, "ResetStreams(100)", c.ResetStreams(ctx, DirOutgoing, 100))
		checkErrText(t, "AddStreams(65535)", c.AddStreams(ctx, 65535, 0))
		checkErrText(t, "SetPrimary(unknown)", c.SetPrimary(netip.MustParseAddr("192.0.2.1")))
	})
}

// noShutdownComplete is a simulated socket that never receives a
// SHUTDOWN COMPLETE: the peer's answer to our SHUTDOWN ACK is lost, every
// time.
type noShutdownComplete struct{ *simconn.Conn }

func (c noShutdownComplete) ReadBatch(pkts []netio.Packet) (int, error) {
	for {
		n, err := c.Conn.ReadBatch(pkts)
		k := 0
		for i := range n {
			if d := pkts[i].Data(); len(d) > 12 && chunk.Type(d[12]) == chunk.TypeShutdownComplete {
				continue
			}
			pkts[k], pkts[i] = pkts[i], pkts[k]
			k++
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// TestSimEOFAfterPeerShutdownThenAbort: once the peer's SHUTDOWN came,
// every message it sent has arrived (RFC 9260 section 9.2), so reads end
// with io.EOF after the last message even when the shutdown handshake then
// fails (here our SHUTDOWN ACK never gets its SHUTDOWN COMPLETE and the
// association gives up; on a duplicating link an ABORT answering a late
// duplicate does the same). The failure still shows where it belongs: in
// Err and EventDown.
func TestSimEOFAfterPeerShutdownThenAbort(t *testing.T) {
	lossy := func(c *simconn.Conn) netio.Conn { return noShutdownComplete{c} }
	simPairConn(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, lossy, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		if _, err := s.WriteMsg([]byte("last"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		if err := s.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 100)
		if n, _, err := c.ReadMsg(buf); err != nil || string(buf[:n]) != "last" {
			t.Fatalf("ReadMsg: %q, %v; want the peer's last message", buf[:n], err)
		}
		if _, _, err := c.ReadMsg(buf); err != io.EOF {
			t.Fatalf("ReadMsg after the peer's shutdown and the failed handshake: %v, want io.EOF", err)
		}
		if err := c.Err(); !errors.Is(err, ErrAborted) {
			t.Fatalf("Err: %v, want the handshake's failure", err)
		}
	})
}
