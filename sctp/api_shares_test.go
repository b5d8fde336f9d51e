package sctp

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// shareLink is a 2 MB/s bottleneck with a 10 ms round trip: the sender's
// queue builds up behind it, so the scheduler decides who is sent.
var shareLink = simnet.LinkConfig{Delay: 5 * time.Millisecond, Rate: 2e6, QueueBytes: 128 << 10}

// writerShares runs one writer per stream of values (WFQ weights or
// priorities, set with SetStreamValue) under scheduler k over shareLink,
// each writing 1000-byte messages as fast as it is admitted (pace > 0:
// one message per pace instead), and returns the fraction of the bytes
// each stream delivered between the first and the third simulated second.
func writerShares(t *testing.T, k Scheduler, values []uint16, pace []time.Duration) []float64 {
	var shares []float64
	simPairAdj(t, shareLink, func(c *Config) { c.Scheduler = k }, func(t *testing.T, c, s *Association, _ *Endpoint, _ *simconn.Network) {
		n := len(values)
		var mu sync.Mutex
		got := make([]int, n)
		var rd sync.WaitGroup
		rd.Add(1)
		go func() { // the reader counts the bytes of each stream
			defer rd.Done()
			buf := make([]byte, 4096)
			for {
				m, ri, err := s.ReadMsg(buf)
				if err != nil {
					return
				}
				mu.Lock()
				got[ri.Stream] += m
				mu.Unlock()
			}
		}()
		var wr sync.WaitGroup
		handles := make([]*Stream, n)
		for i, v := range values {
			if err := c.SetStreamValue(uint16(i), v); err != nil {
				t.Fatal(err)
			}
			handles[i] = c.Stream(uint16(i))
			wr.Add(1)
			go func(st *Stream, pace time.Duration) {
				defer wr.Done()
				msg := make([]byte, 1000)
				for {
					if _, err := st.Write(msg); err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Errorf("stream %d: %v", st.ID(), err)
						}
						return
					}
					if pace > 0 {
						time.Sleep(pace)
					}
				}
			}(handles[i], pace[i])
		}
		snap := func() []int {
			mu.Lock()
			defer mu.Unlock()
			return append([]int(nil), got...)
		}
		time.Sleep(time.Second)
		a := snap()
		time.Sleep(2 * time.Second)
		b := snap()
		for _, h := range handles {
			h.Close()
		}
		wr.Wait()
		c.Close()
		rd.Wait()
		total := 0
		for i := range b {
			total += b[i] - a[i]
		}
		if total == 0 {
			t.Fatal("nothing delivered")
		}
		for i := range b {
			shares = append(shares, float64(b[i]-a[i])/float64(total))
		}
		t.Logf("%v %v: %s of %d bytes", k, values, fmtShares(shares), total)
	})
	return shares
}

func fmtShares(s []float64) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "/"
		}
		out += fmt.Sprintf("%.1f%%", 100*x)
	}
	return out
}

// checkShares fails unless each share is within 10% of its expected value.
func checkShares(t *testing.T, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.1*want[i] {
			t.Errorf("stream %d: %.1f%% of the bytes, want %.1f%% (within 10%%): %s", i, 100*got[i], 100*want[i], fmtShares(got))
		}
	}
}

// TestWriterSharesWFQ: greedy writers, one per stream, get the bytes in the
// proportion of their WFQ weights, not equal shares of the send buffer.
func TestWriterSharesWFQ(t *testing.T) {
	got := writerShares(t, SchedulerWFQ, []uint16{1, 2, 3, 4}, make([]time.Duration, 4))
	checkShares(t, got, []float64{0.1, 0.2, 0.3, 0.4})
}

// TestWriterSharesEqual: FC, RR and RR per packet give greedy writers
// equal shares.
func TestWriterSharesEqual(t *testing.T) {
	for _, k := range []Scheduler{SchedulerFairCapacity, SchedulerRoundRobin, SchedulerRoundRobinPacket} {
		t.Run(k.String(), func(t *testing.T) {
			got := writerShares(t, k, []uint16{0, 0, 0, 0}, make([]time.Duration, 4))
			checkShares(t, got, []float64{0.25, 0.25, 0.25, 0.25})
		})
	}
}

// TestWriterSharesPriority: a lower priority gets only what a higher one
// leaves: nothing next to a greedy writer, the rest of the link next to
// one that writes half of it.
func TestWriterSharesPriority(t *testing.T) {
	got := writerShares(t, SchedulerPriority, []uint16{0, 1}, make([]time.Duration, 2))
	if got[1] > 0.02 {
		t.Errorf("greedy higher priority: the lower got %.1f%%, want at most 2%%", 100*got[1])
	}
	// 1000 bytes every millisecond: half the 2 MB/s link.
	got = writerShares(t, SchedulerPriority, []uint16{0, 1}, []time.Duration{time.Millisecond, 0})
	checkShares(t, got, []float64{0.5, 0.5})
}

// TestSimUnreadStreamHoldsWindow measures what a reader that stops reading
// one inbound stream does to the others. All streams share the
// association's receive window (RFC 9260 has no other flow control): the
// unread stream's data fills it, then the other stream gets nothing (but
// what zero window probes carry) until
// the unread one is read again, and resumes at once after that.
func TestSimUnreadStreamHoldsWindow(t *testing.T) {
	const window = 256 << 10
	simPairAdj(t, shareLink, func(c *Config) { c.Scheduler = SchedulerRoundRobin; c.Buffers.RecvBuffer = window }, func(t *testing.T, c, s *Association, _ *Endpoint, _ *simconn.Network) {
		var mu sync.Mutex
		got := make([]int, 2)
		read := func(st *Stream) {
			buf := make([]byte, 4096)
			for {
				n, err := st.Read(buf)
				if err != nil {
					return
				}
				mu.Lock()
				got[st.ID()] += n
				mu.Unlock()
			}
		}
		snap := func() []int {
			mu.Lock()
			defer mu.Unlock()
			return append([]int(nil), got...)
		}
		r0, r1 := s.Stream(0), s.Stream(1)
		go read(r1) // stream 0 is not read for now
		var wr sync.WaitGroup
		hs := []*Stream{c.Stream(0), c.Stream(1)}
		for _, h := range hs {
			wr.Add(1)
			go func() {
				defer wr.Done()
				msg := make([]byte, 1000)
				for {
					if _, err := h.Write(msg); err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(time.Second)
		a := snap()
		time.Sleep(time.Second)
		b := snap()
		t.Logf("stream 1 got %d bytes in the first second, %d in the second with stream 0 unread", a[1], b[1]-a[1])
		if a[1] == 0 {
			t.Fatal("stream 1 got nothing before the window filled")
		}
		// Zero window probes (one chunk per RTO) may carry a message.
		if b[1]-a[1] > 10000 {
			t.Errorf("stream 1 got %d bytes while the unread stream 0 held the window, want what zero window probes carry (a per-stream share of the window would change this test)", b[1]-a[1])
		}
		go read(r0)
		time.Sleep(100 * time.Millisecond)
		d := snap()
		t.Logf("after stream 0 is read again: stream 0 %d bytes, stream 1 %d bytes in 100 ms", d[0], d[1]-b[1])
		if d[1] == b[1] {
			t.Errorf("stream 1 still stalled 100 ms after stream 0 was read")
		}
		for _, h := range hs {
			h.Close()
		}
		wr.Wait()
		c.Close()
	})
}
