package sctp

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestSimSchedulerSwitchQueued switches the scheduler of a live
// association through the public API while hundreds of messages are
// queued, sets values through Association and Stream handles, and checks
// that every message arrives once, in order within its stream, and that
// values go back to their defaults on a switch.
func TestSimSchedulerSwitchQueued(t *testing.T) {
	link := simnet.LinkConfig{Delay: 5 * time.Millisecond, Rate: 1_000_000, QueueBytes: 1 << 20}
	simPair(t, link, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		const streams, per = 4, 100
		msg := make([]byte, 1000)
		for i := range per {
			for sid := range uint16(streams) {
				binary.BigEndian.PutUint32(msg, uint32(i))
				if _, err := c.WriteMsg(msg, SendInfo{Stream: sid}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := c.SetScheduler(SchedulerPriority); err != nil {
			t.Fatalf("SetScheduler with %d messages queued: %v", streams*per, err)
		}
		if err := c.Stream(2).SetSchedulerValue(3); err != nil {
			t.Fatal(err)
		}
		if v, err := c.StreamValue(2); v != 3 || err != nil {
			t.Fatalf("priority %d, %v", v, err)
		}
		if err := c.SetScheduler(SchedulerWFQ); err != nil {
			t.Fatal(err)
		}
		if c.Scheduler() != SchedulerWFQ {
			t.Fatalf("scheduler %v", c.Scheduler())
		}
		if v, err := c.Stream(2).SchedulerValue(); v != sched.DefaultWeight || err != nil {
			t.Fatalf("weight %d after the switch, %v; want the default", v, err)
		}
		for sid := range uint16(streams) {
			if err := c.SetStreamValue(sid, 1+sid); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.SetStreamValue(0, 0); !errors.Is(err, sched.ErrValue) {
			t.Errorf("weight 0: %v", err)
		}
		if err := c.SetStreamValue(16, 1); !errors.Is(err, ErrStreamID) {
			t.Errorf("stream 16 of 16: %v", err)
		}
		if _, err := c.StreamValue(16); !errors.Is(err, ErrStreamID) {
			t.Errorf("stream 16 of 16: %v", err)
		}
		if err := c.SetScheduler(Scheduler(9)); !errors.Is(err, sched.ErrKind) {
			t.Errorf("kind 9: %v", err)
		}
		var next [streams]uint32
		buf := make([]byte, 2000)
		for range streams * per {
			n, info, err := s.ReadMsg(buf)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(msg) || info.Stream >= streams {
				t.Fatalf("%d bytes on stream %d", n, info.Stream)
			}
			if i := binary.BigEndian.Uint32(buf); i != next[info.Stream] {
				t.Fatalf("stream %d: message %d, want %d", info.Stream, i, next[info.Stream])
			}
			next[info.Stream]++
		}
		h := c.Stream(1)
		h.Close()
		if err := h.SetSchedulerValue(2); !errors.Is(err, ErrClosed) {
			t.Errorf("value through a closed handle: %v", err)
		}
	})
}
