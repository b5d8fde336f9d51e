package transfer

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// saturated is a schedPair whose sender keeps depth small messages queued
// on each of n streams: every message the receiver reads is replaced by a
// new one on the same stream, so all n streams stay active and the
// scheduler picks among n streams for every message.
type saturated struct {
	*schedPair
	msg  []byte
	read int
}

func newSaturated(tb testing.TB, k sched.Kind, n, depth, size int) *saturated {
	// StreamUnsentLimit: every stream holds depth messages whatever its
	// weight (the weights are also the streams' shares of the buffer).
	cfg := Config{OutStreams: n, InStreams: n, PeerRwnd: 4 << 20,
		Buffers: api.Buffers{SendBuffer: n*depth*size + 1<<20, StreamUnsentLimit: depth * size, RecvBuffer: 4 << 20}}
	s := &saturated{schedPair: newSchedPair(tb, cfg), msg: make([]byte, size)}
	if err := s.a.SwitchScheduler(k); err != nil {
		tb.Fatal(err)
	}
	for sid := range n {
		// Priority: eight levels; WFQ: weights 1 to 8 (FC and the round
		// robins ignore the value).
		s.a.SetStreamValue(uint16(sid), uint16(1+sid%8))
	}
	s.rbuf = make([]byte, 2*size)
	s.onMsg = func(info RecvInfo, _ []byte) {
		s.read++
		if err := s.a.send.enqueue(info.SID, 0, false, s.msg); err != nil {
			tb.Fatal(err)
		}
	}
	for range depth {
		for sid := range n {
			if err := s.a.send.enqueue(uint16(sid), 0, false, s.msg); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return s
}

// run moves at least msgs messages through.
func (s *saturated) run(msgs int) {
	for target := s.read + msgs; s.read < target; {
		for s.packet(DefaultMTU-12) > 0 {
		}
		s.ack()
	}
}

// BenchmarkSchedulers measures the cost per message through the engine
// (queue, pick, cut, encode, receive, read, SACK) under every scheduler
// with 1, 1000 and 65535 streams all active: 64-byte messages, about 4096
// queued at all times (at least two per stream), so that only the number of
// streams the scheduler picks among varies.
func BenchmarkSchedulers(b *testing.B) {
	for _, k := range allKinds {
		for _, n := range []int{1, 1000, 65535} {
			b.Run(fmt.Sprintf("%v/streams=%d", k, n), func(b *testing.B) {
				s := newSaturated(b, k, n, max(2, 4096/n), 64)
				s.run(4 * n) // every stream past its first pages and rounds
				b.ReportAllocs()
				b.ResetTimer()
				c0 := testsupport.CPUTime()
				s.run(b.N) // one op is one message
				testsupport.ReportCPU(b, c0)
			})
		}
	}
}

// TestSchedulerAllocs: steady-state transfer allocates nothing per message
// under any scheduler, with 1000 active streams.
func TestSchedulerAllocs(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, k := range allKinds {
		s := newSaturated(t, k, 1000, 2, 64)
		// Until the flight reaches the queue's depth: every SACK here
		// acknowledges a whole flight and adds Max.Burst packets to it.
		s.run(150000)
		allocs := testing.AllocsPerRun(50, func() { s.run(100) })
		if allocs != 0 {
			t.Errorf("%v: %v allocations per 100 messages, want 0", k, allocs)
		}
	}
}

// TestMessageSize: the arrival number of a message fits in what was
// padding; a message record stays in the 64-byte size class.
func TestMessageSize(t *testing.T) {
	if n := unsafe.Sizeof(message{}); n > 64 {
		t.Errorf("message is %d bytes, want at most 64", n)
	}
}

// BenchmarkSwitchScheduler measures a run-time switch with 65535 active
// streams, two messages queued on each (131070 re-enqueued in arrival
// order), alternating between round robin and WFQ.
func BenchmarkSwitchScheduler(b *testing.B) {
	s := newSaturated(b, sched.RoundRobin, 65535, 2, 64)
	kinds := [2]sched.Kind{sched.WFQ, sched.RoundRobin}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.a.SwitchScheduler(kinds[i&1]); err != nil {
			b.Fatal(err)
		}
	}
}
