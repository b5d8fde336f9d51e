package sctp

import (
	"context"
	"io"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// A bulk writer that waits for room reads the socket itself once the
// reader goroutine has lent it the reader role: the SACKs that make room
// come to it, and it is not woken by another goroutine (a hand-off that,
// with a P idle, starts a spinning thread). With one P it waits on its
// channel. Every byte arrives either way.
func TestBulkWriterReadsSocket(t *testing.T) {
	for _, procs := range []int{2, 1} {
		t.Run(map[int]string{1: "one P", 2: "two Ps"}[procs], func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			simPair(t, simnet.LinkConfig{Delay: 20 * time.Microsecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
				const msg, count = 64 << 10, 160 // 10 MiB: twenty times UnsentLimit
				got := make(chan int64, 1)
				go func() {
					var total int64
					buf := make([]byte, msg)
					for {
						k, _, err := s.ReadMsg(buf)
						total += int64(k)
						if err != nil {
							if err != io.EOF {
								t.Errorf("ReadMsg: %v", err)
							}
							got <- total
							return
						}
					}
				}()
				p := make([]byte, msg)
				write := func(k int) {
					for range k {
						if _, err := c.WriteMsg(p, SendInfo{}); err != nil {
							t.Fatal(err)
						}
					}
				}
				write(count / 4) // past slow start and the first lending
				e := c.ep
				waits0, reads0 := e.nRoomWaits.Load(), e.nRoomReads.Load()
				write(count - count/4)
				waits, reads := e.nRoomWaits.Load()-waits0, e.nRoomReads.Load()-reads0
				t.Logf("%d MiB: the writer woken for room %d times, read %d batches itself", count*msg>>20, waits, reads)
				if procs > 1 && (waits > 2 || reads == 0) {
					t.Errorf("two Ps: woken for room %d times, %d batches read itself; want at most 2 and some", waits, reads)
				}
				if procs == 1 && (reads != 0 || waits < 4) {
					t.Errorf("one P: %d batches read itself, woken %d times; want none and one per half buffer", reads, waits)
				}
				if err := c.Shutdown(context.Background()); err != nil {
					t.Fatal(err)
				}
				if total := <-got; total != count*msg {
					t.Errorf("%d bytes arrived, want %d", total, count*msg)
				}
			})
		})
	}
}

// A flush that starts one of the core's timers (T3-rtx, for a message
// written to an idle association) moves the owner's timer to it without
// waking the owner.
func TestFlushMovesOwnerTimer(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 20 * time.Microsecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		e := c.ep
		// Past the timers of the handshake's aftermath, the owner's timer
		// is set for one later than a T3-rtx would be.
		time.Sleep(time.Second)
		synctest.Wait()
		wakes := e.nOwnerWakes.Load()
		if _, err := c.WriteMsg([]byte("request"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the owner would run now if woken; the packet is on its way
		if w := e.nOwnerWakes.Load() - wakes; w != 0 {
			t.Errorf("the owner woke %d times for one message", w)
		}
		e.mu.Lock()
		at, d := e.timerAt, e.core.Deadline()
		e.mu.Unlock()
		if d.IsZero() || !at.Equal(d) {
			t.Errorf("the owner's timer is set for %v, want the core's deadline %v", at, d)
		}
	})
}

// With two Ps, while user calls read the socket (readLoop parked: a bulk
// writer reading its SACKs), a message of many packets is sent by its
// writer before WriteMsg returns, and the owner is not woken; a short one
// is left to the owner, who sends several at once.
func TestWriterSendsLongMessageItself(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	simPair(t, simnet.LinkConfig{Delay: 20 * time.Microsecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		e := c.ep
		if _, err := c.WriteMsg(make([]byte, 100), SendInfo{}); err != nil {
			t.Fatal(err) // in flight from here on: the writes below are not to an idle association
		}
		synctest.Wait()
		e.mu.Lock()
		// As a user call leaves it, having just read.
		e.reader.role, e.reader.nextCheck = readerNone, time.Now().Add(readerCheck)
		e.reader.takes++
		e.mu.Unlock()
		for _, tc := range []struct {
			size    int
			through bool
		}{
			{1000, false}, // first: the initial window has room for both
			{throughPackets * e.core.MTU(), true},
		} {
			wakes, writes := e.nOwnerWakes.Load(), e.nWrites.Load()
			if _, err := c.WriteMsg(make([]byte, tc.size), SendInfo{}); err != nil {
				t.Fatal(err)
			}
			wrote := e.nWrites.Load() - writes
			synctest.Wait()
			woke := e.nOwnerWakes.Load() - wakes
			if tc.through && (wrote == 0 || woke != 0) {
				t.Errorf("%d bytes: %d writes before WriteMsg returned, the owner woke %d times; want some and none", tc.size, wrote, woke)
			}
			if !tc.through && woke == 0 {
				t.Errorf("%d bytes: the owner was not woken", tc.size)
			}
		}
	})
}

// A take of the reader role puts the owner's check of it off to
// readerCheck later, and the owner's timer with it, but never past a timer
// of the core's: a goroutine that takes the role again and again does not
// have the owner woken to check on it, and the core's timers run on time.
func TestReaderTakePutsCheckOff(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 20 * time.Microsecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		e := c.ep
		time.Sleep(time.Second) // past the handshake's timers
		synctest.Wait()
		e.mu.Lock()
		defer e.mu.Unlock()
		// As readDirect takes it; given back to readLoop after.
		role := e.reader.role
		e.reader.role = readerUser
		defer func() { e.reader.role = role }()
		core := e.core.Deadline()
		now := time.Now()
		e.kickReaderCheck(now)
		if want := now.Add(readerCheck); !e.timerAt.Equal(want) || !e.reader.nextCheck.Equal(want) {
			t.Errorf("after a take: timer %v, next check %v, want both %v", e.timerAt, e.reader.nextCheck, want)
		}
		late := core.Add(-readerCheck / 2)
		e.kickReaderCheck(late)
		if !e.timerAt.Equal(core) || !e.reader.nextCheck.Equal(late.Add(readerCheck)) {
			t.Errorf("a take just before the core's deadline: timer %v, want the deadline %v", e.timerAt, core)
		}
	})
}
