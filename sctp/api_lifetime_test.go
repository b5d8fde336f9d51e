package sctp

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// closeWindow writes reliable messages until the peer, which reads
// nothing, has closed its receive window (recvBuffer bytes), and waits for
// that to be acknowledged: later messages wait in the send buffer, unsent.
func closeWindow(t *testing.T, c *Association, recvBuffer int) {
	t.Helper()
	msg := make([]byte, 1000)
	for range recvBuffer/len(msg) + 4 {
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
}

// fillBuffer writes msg with pr until the send buffer is full and returns
// how many writes succeeded.
func fillBuffer(t *testing.T, c *Association, msg []byte, pr PR) int {
	t.Helper()
	for n := 0; ; n++ {
		_, err := c.WriteMsg(msg, SendInfo{Stream: 1, PR: pr, NonBlocking: true})
		if errors.Is(err, ErrWouldBlock) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSimLifetimeExpiryWakesWriter: messages with a 50 ms lifetime queued
// toward a receiver that reads nothing are given up when their lifetime
// ends (within a few milliseconds: a deadline of the core's timers, not
// the next zero window probe a second later), every one is reported in an
// EventSendFailed, and a WriteMsg blocked on the full send buffer is woken
// by the space that frees and completes at the same moment.
//
// With stuck set, most of the send buffer holds reliable messages the
// peer's closed window keeps: the space the given-up messages free is less
// than half the buffer, and the writer, whose message fits in it, must
// still be woken.
func TestSimLifetimeExpiryWakesWriter(t *testing.T) {
	for _, stuck := range []int{0, 40} {
		t.Run(fmt.Sprintf("stuck=%d", stuck), func(t *testing.T) { lifetimeExpiry(t, stuck) })
	}
}

func lifetimeExpiry(t *testing.T, stuck int) {
	adj := func(c *Config) { c.Buffers.SendBuffer, c.Buffers.RecvBuffer = 64<<10, 16<<10 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		const life = 50 * time.Millisecond
		evs := c.Events()
		msg := make([]byte, 1000)
		closeWindow(t, c, 16<<10)
		for range stuck {
			if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Now()
		queued := fillBuffer(t, c, msg, Lifetime(life))
		if queued < 10 {
			t.Fatalf("only %d messages fit in the send buffer", queued)
		}
		type result struct {
			at  time.Time
			err error
		}
		wrote := make(chan result, 1)
		go func() {
			_, err := c.WriteMsg(msg, SendInfo{Stream: 1, PR: Lifetime(time.Hour)})
			wrote <- result{time.Now(), err}
		}()
		failed := 0
		var firstFail, lastFail time.Time
		timeout := time.After(5 * time.Second)
		for failed < queued {
			select {
			case ev := <-evs:
				if ev.Kind != EventSendFailed {
					continue
				}
				if ev.PR != PRTTL {
					t.Fatalf("send failure of a message with policy %v", ev.PR)
				}
				if failed == 0 {
					firstFail = time.Now()
				}
				lastFail = time.Now()
				failed++
			case <-timeout:
				t.Fatalf("%d of %d messages given up after 5 s", failed, queued)
			}
		}
		if d := firstFail.Sub(t0); d < life || d > life+5*time.Millisecond {
			t.Errorf("first message given up %v after it was written with a lifetime of %v", d, life)
		}
		if d := lastFail.Sub(t0); d > life+5*time.Millisecond {
			t.Errorf("last message given up %v after it was written with a lifetime of %v", d, life)
		}
		select {
		case r := <-wrote:
			if r.err != nil {
				t.Fatalf("blocked write: %v", r.err)
			}
			if d := r.at.Sub(t0); d > life+5*time.Millisecond {
				t.Errorf("blocked writer woken %v after the start, the lifetime was %v", d, life)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the writer blocked on the full send buffer was not woken when abandoning freed it")
		}
		if d := c.Stats().EventsDropped; d != 0 {
			t.Errorf("%d events dropped", d)
		}
	})
}

// TestUDPLifetimeExpiryWakesWriter is TestSimLifetimeExpiryWakesWriter
// over UDP loopback: the messages are given up and the blocked writer
// woken well before the zero window probe (RTO.Min, 1 s), not only when
// that probe looks at them.
func TestUDPLifetimeExpiryWakesWriter(t *testing.T) {
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
	evs := c.Events()
	msg := make([]byte, 1000)
	for range 20 {
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
	}
	// The peer's window closed: all that was sent is acknowledged, the
	// rest waits.
	waitFor(t, func() bool { st := c.Stats(); return st.Unacked == 0 && st.SendBuffered > 0 })
	const life = 50 * time.Millisecond
	t0 := time.Now()
	queued := fillBuffer(t, c, msg, Lifetime(life))
	if queued < 10 {
		t.Fatalf("only %d messages fit in the send buffer", queued)
	}
	wrote := make(chan time.Time, 1)
	go func() {
		c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.WriteMsg(msg, SendInfo{Stream: 1, PR: Lifetime(time.Hour)}); err != nil {
			t.Error(err)
		}
		wrote <- time.Now()
	}()
	const bound = 900 * time.Millisecond
	failed := 0
	timeout := time.After(30 * time.Second)
	for failed < queued {
		select {
		case ev := <-evs:
			if ev.Kind == EventSendFailed {
				failed++
			}
		case <-timeout:
			t.Fatalf("%d of %d messages given up after 30 s", failed, queued)
		}
	}
	if d := time.Since(t0); d > bound {
		t.Errorf("messages with a lifetime of %v given up after %v", life, d)
	}
	select {
	case at := <-wrote:
		if d := at.Sub(t0); d > bound {
			t.Errorf("blocked writer woken after %v", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the blocked writer was not woken")
	}
}
