package sctp

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestStreamCloseWakesBlocked: Stream.Close wakes a Read waiting for data
// and a Write waiting for send buffer space with ErrClosed, as documented,
// not with a timeout (os.ErrDeadlineExceeded): retry-on-timeout code must
// not take a closed handle for a slow peer.
func TestStreamCloseWakesBlocked(t *testing.T) {
	adj := func(c *Config) { c.Buffers.SendBuffer, c.Buffers.RecvBuffer = 8<<10, 4<<10 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		rs := s.Stream(1)
		ws := c.Stream(2)
		msg := make([]byte, 1000)
		// Fill the peer's receive window, then the send buffer.
		for wrote := true; wrote; {
			wrote = false
			for {
				if _, err := c.WriteMsg(msg, SendInfo{Stream: 2, NonBlocking: true}); errors.Is(err, ErrWouldBlock) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				wrote = true
			}
			time.Sleep(100 * time.Millisecond)
		}
		rerr, werr := make(chan error, 1), make(chan error, 1)
		go func() { _, err := rs.Read(make([]byte, 10)); rerr <- err }()
		go func() { _, err := ws.Write(msg); werr <- err }()
		time.Sleep(time.Second) // both block: nothing arrives on stream 1, the peer reads nothing
		select {
		case err := <-rerr:
			t.Fatalf("Read returned before Close: %v", err)
		case err := <-werr:
			t.Fatalf("Write returned before Close: %v", err)
		default:
		}
		rs.Close()
		ws.Close()
		for name, ch := range map[string]chan error{"Read": rerr, "Write": werr} {
			err := <-ch
			if !errors.Is(err, ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("%s blocked at Close: %v, want ErrClosed", name, err)
			}
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("%s blocked at Close: %v is a timeout", name, err)
			}
		}
	})
}

// TestUDPStreamCloseWakesBlocked is TestStreamCloseWakesBlocked over real
// UDP on loopback: a Read with nothing to read and a Write with no send
// buffer space, both blocked, end with ErrClosed at Stream.Close.
func TestUDPStreamCloseWakesBlocked(t *testing.T) {
	cfg := loopCfg()
	cfg.Buffers.SendBuffer, cfg.Buffers.RecvBuffer = 64<<10, 16<<10
	// A receiver takes up to one MTU over its buffer: at loopback's
	// 65535 (the default) the 20 KB below would all fit.
	cfg.MTU = 1500
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	defer c.Abort("")
	s := accept(t, l)
	defer s.Abort("")
	msg := make([]byte, 1000)
	// s reads nothing: its window closes, then c's send buffer fills.
	for range 20 {
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 2}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { st := c.Stats(); return st.Unacked == 0 && st.SendBuffered > 0 })
	for {
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 2, NonBlocking: true}); errors.Is(err, ErrWouldBlock) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	rs, ws := s.Stream(1), c.Stream(2)
	rerr, werr := make(chan error, 1), make(chan error, 1)
	go func() { _, err := rs.Read(make([]byte, 10)); rerr <- err }()
	go func() { _, err := ws.Write(msg); werr <- err }()
	// Let both calls reach their wait (no real sleep: yield a while and
	// check that neither returned).
	for range 10000 {
		runtime.Gosched()
	}
	select {
	case err := <-rerr:
		t.Fatalf("Read returned before Close: %v", err)
	case err := <-werr:
		t.Fatalf("Write returned before Close: %v", err)
	default:
	}
	rs.Close()
	ws.Close()
	for name, ch := range map[string]chan error{"Read": rerr, "Write": werr} {
		select {
		case err := <-ch:
			if !errors.Is(err, ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("%s blocked at Close: %v, want ErrClosed", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still blocked 10 s after Close", name)
		}
	}
}
