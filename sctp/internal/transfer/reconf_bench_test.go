package transfer

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkAddStreamsFlood is a peer that sends one Add Incoming Streams
// Request per op (RFC 6525 section 5.2.6): each makes this end add one
// outbound stream with an Add Outgoing Streams Request that the peer then
// performs (AddOutgoing, FinishAddOutgoing), while queued messages (1, 1k,
// 64k, 1 byte each, spread over ten streams) wait behind a closed window.
// The cost of a request must not grow with what is queued: the FCFS
// scheduler's Resize must not compact its whole queue every time.
func BenchmarkAddStreamsFlood(b *testing.B) {
	for _, k := range []sched.Kind{sched.FCFS, sched.RoundRobin, sched.WFQ} {
		for _, q := range []int{1, 1 << 10, 1 << 16} {
			b.Run(fmt.Sprintf("%v/queued=%d", k, q), func(b *testing.B) { benchAddStreamsFlood(b, k, q) })
		}
	}
}

func benchAddStreamsFlood(b *testing.B, k sched.Kind, queued int) {
	const first = 10
	var s *sender
	setup := func() {
		sc, err := sched.New(k, sched.Options{Streams: first})
		if err != nil {
			b.Fatal(err)
		}
		e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: first, InStreams: 1, Scheduler: sc,
			PeerRwnd: attackBuffer, Buffers: api.Buffers{SendBuffer: 64 * attackBuffer}})
		if err != nil {
			b.Fatal(err)
		}
		s = &e.send
		for i := range queued {
			if err := s.enqueue(uint16(i%first), 1, false, []byte{1}); err != nil {
				b.Fatal(err)
			}
		}
	}
	setup()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if s.streams.OutCount() == sched.MaxStreams {
			b.StopTimer()
			setup()
			b.StartTimer()
		}
		if _, err := s.addOutgoing(1); err != nil {
			b.Fatal(err)
		}
		s.finishAddOutgoing(true)
	}
}
