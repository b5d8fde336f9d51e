package transfer

import (
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sched"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"
)

// memPair joins a sender and a receiver of two engines directly in memory
// (no network): packets go from a to b at once, SACKs back from b to a.
// With I-DATA (newIMemPair) the engines use a round-robin scheduler that
// may switch streams after every chunk.
type memPair struct {
	a, b *Engine
	now  time.Time
	pkt  []byte
	sack []byte
	d    Data
	id   IData
	sk   SACK
	rbuf []byte
}

func newMemPair(tb testing.TB) *memPair {
	cfg := Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 10, InStreams: 10, PeerRwnd: api.DefaultBuffer}
	a, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := New(cfg)
	return &memPair{a: a, b: b, now: epoch, pkt: make([]byte, 0, 2048), sack: make([]byte, 0, 2048), rbuf: make([]byte, 4096)}
}

func newIMemPair(tb testing.TB) *memPair {
	mk := func() *Engine {
		s, err := sched.New(sched.RoundRobin, sched.Options{Interleaved: true, Streams: 10})
		if err != nil {
			tb.Fatal(err)
		}
		e, err := New(Config{LocalTSN: 1, PeerTSN: 1, OutStreams: 10, InStreams: 10, PeerRwnd: api.DefaultBuffer,
			Interleaved: true, Scheduler: s})
		if err != nil {
			tb.Fatal(err)
		}
		return e
	}
	return &memPair{a: mk(), b: mk(), now: epoch, pkt: make([]byte, 0, 2048),
		sack: make([]byte, 0, 2048), rbuf: make([]byte, 1<<17)}
}

// deliver hands every DATA or I-DATA chunk of pkt to b, then ends the
// packet.
func (m *memPair) deliver(tb testing.TB, pkt []byte) {
	it := chunk.Chunks(pkt)
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		var err error
		switch c.Type {
		case chunk.TypeData:
			if m.d, err = chunk.ParseData(c); err == nil {
				_, err = m.b.HandleData(m.now, &m.d)
			}
		case chunk.TypeIData:
			if m.id, err = chunk.ParseIData(c); err == nil {
				_, err = m.b.HandleIData(m.now, &m.id)
			}
		default:
			err = fmt.Errorf("chunk type %v in a data packet", c.Type)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	m.b.EndPacket(m.now)
}

// ack gives b's SACK to a.
func (m *memPair) ack(tb testing.TB) {
	s := m.b.AppendSACK(m.now, m.sack[:0], DefaultMTU-12)
	parseSACK(s, &m.sk)
	if _, err := m.a.HandleSACK(m.now, &m.sk); err != nil {
		tb.Fatal(err)
	}
}

// step sends what a can send to b, reads everything at b and returns b's
// SACK to a. It returns the number of messages b read.
func (m *memPair) step(tb testing.TB) int {
	read := 0
	for {
		pkt, n := m.a.AppendData(m.now, m.pkt[:0], DefaultMTU-12)
		if n == 0 {
			break
		}
		m.deliver(tb, pkt)
		for {
			_, info, err := m.b.Read(m.rbuf)
			if err != nil {
				break
			}
			if info.EOR {
				read++
			}
		}
		if m.b.SACKDue(m.now) {
			m.ack(tb)
		}
	}
	m.now = m.now.Add(time.Millisecond)
	if d := m.b.SACKDeadline(); !d.IsZero() && !m.now.Before(d) {
		m.ack(tb)
	}
	return read
}

// BenchmarkMessages measures messages through a sender and a receiver
// joined in memory: queue, cut, encode, parse, receive, reassemble, read,
// SACK, acknowledge. 1452-byte messages take two chunks at the default MTU
// of 1452 (fragment point 1424); 1024-byte ones one.
func BenchmarkMessages(b *testing.B) {
	for _, size := range []int{1452, 1024, 64, 16 << 10} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchMessages(b, newMemPair(b), size) })
	}
}

func benchMessages(b *testing.B, m *memPair, size int) {
	msg := make([]byte, size)
	// Warm up the free lists.
	for range 1000 {
		m.a.send.enqueue(1, 0, false, msg)
		m.step(b)
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.a.send.enqueue(uint16(i%10), 0, false, msg); err != nil {
			b.Fatal(err)
		}
		if i%8 == 7 {
			m.step(b)
		}
	}
	for m.a.send.queue.buffered > 0 {
		m.step(b)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// TestNoAllocsPerMessage: steady-state data transfer allocates nothing per
// message.
func TestNoAllocsPerMessage(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	m := newMemPair(t)
	msg := make([]byte, 1452)
	for range 2000 {
		m.a.send.enqueue(1, 0, false, msg)
		m.step(t)
	}
	i := 0
	allocs := testing.AllocsPerRun(2000, func() {
		m.a.send.enqueue(uint16(i%10), 7, i%5 == 0, msg)
		i++
		m.step(t)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message, want 0", allocs)
	}
}
