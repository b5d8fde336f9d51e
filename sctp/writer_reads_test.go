package sctp

import (
	"context"
	"io"
	"runtime"
	"testing"
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
