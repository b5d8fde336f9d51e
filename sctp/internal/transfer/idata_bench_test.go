package transfer

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
)

// iMemPair is memPair with I-DATA and a round-robin scheduler that may
// switch streams after every chunk.
type iMemPair struct {
	*memPair
	id IData
}

func newIMemPair(tb testing.TB) *iMemPair {
	mk := func() *Engine {
		s, err := sched.New(sched.RoundRobin, sched.Options{Interleaved: true, Streams: 10})
		if err != nil {
			tb.Fatal(err)
		}
		e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 10, InStreams: 10, PeerRwnd: DefaultBuffer,
			Interleaved: true, Scheduler: s})
		if err != nil {
			tb.Fatal(err)
		}
		return e
	}
	return &iMemPair{memPair: &memPair{a: mk(), b: mk(), now: epoch, pkt: make([]byte, 0, 2048),
		sack: make([]byte, 0, 2048), rbuf: make([]byte, 1<<17)}}
}

// step is memPair.step with I-DATA chunks.
func (m *iMemPair) step(tb testing.TB) int {
	read := 0
	for {
		pkt, n := m.a.Send.AppendData(m.now, m.pkt[:0], DefaultMTU-12)
		if n == 0 {
			break
		}
		it := chunk.Chunks(pkt)
		for c, ok := it.Next(); ok; c, ok = it.Next() {
			d, err := chunk.ParseIData(c)
			if err != nil {
				tb.Fatal(err)
			}
			m.id = d
			if _, err := m.b.Recv.HandleIData(m.now, &m.id); err != nil {
				tb.Fatal(err)
			}
		}
		m.b.Recv.EndPacket(m.now)
		for {
			_, info, err := m.b.Recv.Read(m.rbuf)
			if err != nil {
				break
			}
			if info.EOR {
				read++
			}
		}
		if m.b.Recv.SACKDue(m.now) {
			s := m.b.Recv.AppendSACK(m.now, m.sack[:0], DefaultMTU-12)
			parseSACK(s, &m.sk)
			if _, err := m.a.Send.HandleSACK(m.now, &m.sk); err != nil {
				tb.Fatal(err)
			}
		}
	}
	m.now = m.now.Add(time.Millisecond)
	if d := m.b.Recv.Deadline(); !d.IsZero() && !m.now.Before(d) {
		s := m.b.Recv.AppendSACK(m.now, m.sack[:0], DefaultMTU-12)
		parseSACK(s, &m.sk)
		m.a.Send.HandleSACK(m.now, &m.sk)
	}
	return read
}

// BenchmarkIDataMessages is BenchmarkMessages with I-DATA: messages on ten
// streams, their chunks interleaved by the scheduler.
func BenchmarkIDataMessages(b *testing.B) {
	for _, size := range []int{1452, 1024, 64, 16 << 10} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			m := newIMemPair(b)
			msg := make([]byte, size)
			for range 1000 {
				m.a.Send.Queue(1, 0, false, msg)
				m.step(b)
			}
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.a.Send.Queue(uint16(i%10), 0, false, msg); err != nil {
					b.Fatal(err)
				}
				if i%8 == 7 {
					m.step(b)
				}
			}
			for m.a.Send.Buffered() > 0 {
				m.step(b)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// TestIDataNoAllocsPerMessage: steady-state I-DATA transfer, with
// fragments of messages on ten streams interleaved, allocates nothing per
// message.
func TestIDataNoAllocsPerMessage(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	m := newIMemPair(t)
	msg := make([]byte, 3000)
	for i := range 2000 {
		m.a.Send.Queue(uint16(i%10), 0, i%5 == 0, msg)
		if i%4 == 3 {
			m.step(t)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(2000, func() {
		m.a.Send.Queue(uint16(i%10), 7, i%5 == 0, msg)
		if i%4 == 3 {
			m.step(t)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message, want 0", allocs)
	}
}
