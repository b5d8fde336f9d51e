package sctp

import (
	"encoding/binary"
	"testing"
	"testing/synctest"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// eventLog reads an association's events until the channel is closed,
// pausing now and then (pause) so that the channel fills, and keeps what
// it read.
type eventLog struct {
	failed map[uint32]int // EventSendFailed by message number
	sent   int            // of them, messages partly transmitted
	down   int            // EventDown events
	last   EventKind
	after  int // events after EventDown
	done   chan struct{}
}

func readEvents(ch <-chan Event, pause func(i int)) *eventLog {
	l := &eventLog{failed: map[uint32]int{}, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		i := 0
		for ev := range ch {
			if l.down > 0 {
				l.after++
			}
			switch ev.Kind {
			case EventSendFailed:
				if len(ev.Msg) >= 4 {
					l.failed[binary.BigEndian.Uint32(ev.Msg)]++
				}
				if ev.MaybeDelivered {
					l.sent++
				}
			case EventDown:
				l.down++
			}
			l.last = ev.Kind
			i++
			if pause != nil {
				pause(i)
			}
		}
	}()
	return l
}

// numbered returns a 100-byte message carrying i.
func numbered(i int) []byte {
	b := make([]byte, 100)
	binary.BigEndian.PutUint32(b, uint32(i)+1)
	return b
}

// readAll reads what s holds (Stats.RecvBuffered) and returns the
// message numbers it got; wait bounds each read.
func readAll(t *testing.T, s *Association, wait time.Duration) map[uint32]bool {
	t.Helper()
	got := map[uint32]bool{}
	buf := make([]byte, 200)
	for s.Stats().RecvBuffered > 0 {
		s.SetReadDeadline(time.Now().Add(wait))
		n, _, err := s.ReadMsg(buf)
		if err != nil {
			return got
		}
		if n == 100 {
			got[binary.BigEndian.Uint32(buf)] = true
		}
	}
	return got
}

const burst = 10000

// eventsCfg has a send buffer for the whole burst and a small receive
// buffer: the receiver, which reads nothing, takes a few messages only.
func eventsCfg(c *Config) {
	c.Buffers.SendBuffer, c.Buffers.UnsentLimit, c.Buffers.RecvBuffer = 4<<20, 4<<20, 16<<10
}

// burstGivenUp writes burst messages with a 50 ms lifetime to s, which
// reads nothing until the end, while a reader that keeps reading (with
// pauses) takes c's events: every message the receiver did not get is
// reported exactly once, none twice, and no event is dropped.
func burstGivenUp(t *testing.T, c, s *Association, pause func(int), settle func()) {
	l := readEvents(c.Events(), pause)
	c.SetWriteDeadline(time.Now().Add(time.Minute))
	for i := range burst {
		if _, err := c.WriteMsg(numbered(i), SendInfo{Stream: 1, PR: Lifetime(50 * time.Millisecond)}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	settle()
	got := readAll(t, s, 10*time.Second)
	c.Abort("done") // nothing is left to report
	<-l.done
	missing := 0
	for i := range burst {
		n := uint32(i) + 1
		if l.failed[n] > 1 {
			t.Fatalf("message %d reported failed %d times", i, l.failed[n])
		}
		if !got[n] && l.failed[n] == 0 {
			missing++
		}
	}
	if missing > 0 || len(l.failed) < burst-len(got) {
		t.Errorf("%d messages neither received nor reported failed; %d received, %d reported", missing, len(got), len(l.failed))
	}
	if d := c.EventsDropped(); d != 0 {
		t.Errorf("%d events dropped", d)
	}
	if l.down != 1 || l.last != EventDown {
		t.Errorf("%d EventDown, last event %v", l.down, l.last)
	}
}

// abortQueued aborts c with burst messages queued toward s (which reads
// nothing) while a reader that keeps reading takes c's events: every
// queued message is reported, then EventDown, last and once.
func abortQueued(t *testing.T, c *Association, pause func(int), settle func()) {
	l := readEvents(c.Events(), pause)
	for i := range burst {
		if _, err := c.WriteMsg(numbered(i), SendInfo{Stream: 1}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	settle()
	queued := c.Stats().SendBuffered / 100
	if queued < burst/2 {
		t.Fatalf("only %d messages queued", queued)
	}
	c.Abort("enough")
	<-l.done
	if len(l.failed) < queued || len(l.failed) > burst {
		t.Errorf("%d messages reported failed, %d were queued", len(l.failed), queued)
	}
	for n, k := range l.failed {
		if k != 1 {
			t.Fatalf("message %d reported %d times", n, k)
		}
	}
	if l.down != 1 || l.last != EventDown || l.after != 0 {
		t.Errorf("%d EventDown, last event %v, %d events after it", l.down, l.last, l.after)
	}
	if d := c.EventsDropped(); d != 0 {
		t.Errorf("%d events dropped", d)
	}
}

// slowReader pauses the event reader 1 ms every 100 events, in virtual
// time, so that the channel fills many times over.
func slowReader(i int) {
	if i%100 == 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestSimEventsBurstGivenUp: 10,000 messages given up at once reach a
// reader that keeps reading, every one (the Events channel holds 64).
func TestSimEventsBurstGivenUp(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, eventsCfg, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		burstGivenUp(t, c, s, slowReader, func() { time.Sleep(time.Second) })
	})
}

// TestSimEventsAbortQueued: an abort with 10,000 messages queued reports
// every one to a reader that keeps reading, then EventDown, last.
func TestSimEventsAbortQueued(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, eventsCfg, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		abortQueued(t, c, slowReader, func() { time.Sleep(time.Second); synctest.Wait() })
	})
}

// TestUDPEventsBurstGivenUp is TestSimEventsBurstGivenUp over UDP loopback.
func TestUDPEventsBurstGivenUp(t *testing.T) {
	cfg := loopCfg()
	eventsCfg(cfg)
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	s := accept(t, l)
	defer s.Close()
	// Wait until every message was given up or delivered: the send
	// buffer empties (bounded: the lifetimes are 50 ms).
	burstGivenUp(t, c, s, nil, func() { waitFor(t, func() bool { return c.Stats().SendBuffered == 0 }) })
}

// TestUDPEventsAbortQueued is TestSimEventsAbortQueued over UDP loopback.
func TestUDPEventsAbortQueued(t *testing.T) {
	cfg := loopCfg()
	eventsCfg(cfg)
	l, dc := listenLoop(t, cfg)
	c := dialLoop(t, dc)
	s := accept(t, l)
	defer s.Close()
	abortQueued(t, c, nil, func() {})
}

// waitFor waits until cond holds, at most 30 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	end := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatal("condition not reached in 30 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSimEventsReadOnce: a program that read Events once and stopped
// (the common pattern: wait for EventUp, then write) never blocks a
// writer. Messages with a 10 ms lifetime toward a peer whose window is
// shut are given up by the thousand; every write completes at once (a
// message given up frees its send buffer space whether or not its event
// was read), the reports waiting behind the full channel stay within the
// send buffer's size, the rest are dropped and counted, and none is
// reported twice. An abort then still ends the association: EventDown
// comes last, and the channel is closed although nobody reads it.
func TestSimEventsReadOnce(t *testing.T) {
	const sendBuffer = 64 << 10
	adj := func(c *Config) { c.Buffers.SendBuffer, c.Buffers.RecvBuffer = sendBuffer, 16<<10 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		evs := c.Events()
		closeWindow(t, c, 16<<10)
		const total = 20000 // 2 MB of 100-byte messages: 30 send buffers
		c.SetWriteDeadline(time.Now().Add(time.Minute))
		for i := range total {
			if _, err := c.WriteMsg(numbered(i), SendInfo{Stream: 1, PR: Lifetime(10 * time.Millisecond)}); err != nil {
				t.Fatalf("write %d of %d: %v (the writer waits for the event reader)", i, total, err)
			}
			if i%500 == 0 {
				time.Sleep(20 * time.Millisecond) // they are given up
			}
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		c.ep.mu.Lock()
		held, waiting := c.failuresHeld, len(c.pendingEvents)-c.pendingHead
		c.ep.mu.Unlock()
		if held > sendBuffer {
			t.Errorf("send failures waiting hold %d bytes, more than the %d-byte send buffer", held, sendBuffer)
		}
		dropped := c.EventsDropped()
		if dropped == 0 {
			t.Errorf("nothing dropped: %d events wait", waiting)
		}
		// The reader comes back: what was kept comes in order, then
		// EventDown after the abort, and the channel is closed.
		c.Abort("done")
		last, failed, seen := EventKind(0), 0, map[uint32]bool{}
		for ev := range evs {
			last = ev.Kind
			if ev.Kind != EventSendFailed || len(ev.Msg) != 100 {
				continue
			}
			failed++
			n := binary.BigEndian.Uint32(ev.Msg)
			if seen[n] {
				t.Fatalf("message %d reported twice", n)
			}
			seen[n] = true
		}
		if last != EventDown {
			t.Errorf("last event %v, want EventDown", last)
		}
		if failed+int(dropped) < total-30 {
			t.Errorf("%d reported and %d dropped of %d messages given up", failed, dropped, total)
		}
	})
}

// TestSimEventsReadOnceAbortLeaksNothing: after the read-once pattern an
// abort by the peer, with reports waiting behind the full channel, ends
// every goroutine of the association within the 2-second linger
// (synctest fails the test on a goroutine left blocked).
func TestSimEventsReadOnceAbortLeaksNothing(t *testing.T) {
	adj := func(c *Config) { c.Buffers.SendBuffer, c.Buffers.RecvBuffer = 64<<10, 16<<10 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		_ = c.Events()
		closeWindow(t, c, 16<<10)
		for i := range 5000 {
			if _, err := c.WriteMsg(numbered(i), SendInfo{Stream: 1, PR: Lifetime(5 * time.Millisecond)}); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		s.Abort("bye")
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the peer's abort did not end the association")
		}
		time.Sleep(5 * time.Second) // past the linger: the pump gives up
		synctest.Wait()
		c.ep.mu.Lock()
		pumping := c.pumping
		c.ep.mu.Unlock()
		if pumping {
			t.Fatal("the event pump still runs after the linger")
		}
	})
}

// senderDry writes 50 requests, each once the last was acknowledged, and
// returns the EventSenderDry events c reported, with the events dropped.
func senderDry(t *testing.T, c *Association) (dry int, dropped uint64) {
	evs := c.Events() // and never read until the end: the channel fills
	for i := range 50 {
		if _, err := c.WriteMsg(numbered(i), SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // acknowledged: the sender is dry
	}
	c.Abort("done")
	for ev := range evs {
		if ev.Kind == EventSenderDry {
			dry++
		}
	}
	return dry, c.EventsDropped()
}

// TestSimSenderDryOptIn: EventSenderDry is off by default (RFC 6458's
// SCTP_SENDER_DRY_EVENT is too); with Config.SenderDryEvents it comes
// once per drain, and those that find the channel full behind another
// EventSenderDry wait as that one, coalesced, not counted as dropped.
func TestSimSenderDryOptIn(t *testing.T) {
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, nil, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if dry, dropped := senderDry(t, c); dry != 0 || dropped != 0 {
			t.Errorf("default: %d EventSenderDry, %d dropped; want none", dry, dropped)
		}
	})
	on := func(c *Config) { c.SenderDryEvents, c.EventQueue = true, 8 }
	simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, on, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		dry, dropped := senderDry(t, c)
		if dry < 8 || dry > 9 || dropped != 0 {
			t.Errorf("SenderDryEvents with 50 drains and a channel of 8 nobody reads: %d EventSenderDry (want 8 in the channel and one waiting), %d dropped (want 0)", dry, dropped)
		}
	})
}
