package assoc

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/api"

	"github.com/usctp/usctp/internal/testsupport"
)

// corePair is two endpoints joined in memory: every packet one produces is
// handed to the other at once, with a virtual clock that moves 50 µs per
// exchange. It measures the cores alone: no sockets, no goroutines.
type corePair struct {
	now   time.Time
	eps   [2]*Endpoint
	addrs [2]netip.AddrPort
	as    [2]*Assoc
	buf   []byte
	rbuf  []byte
	got   int      // messages read by side 1
	bytes int      // bytes read by side 1
	pkts  [2]int   // packets sent by each side
	batch int      // packets each side sends per exchange at most; 0: all it can
	run   [][]byte // with batch, the packets of one exchange
}

// receiveData hands side 1 the packets of one exchange from side 0 as one
// receive batch, in runs as the shell hands it a GRO buffer's. It is a function of its own so that an instruction count
// can be limited to it (callgrind --toggle-collect).
//
//go:noinline
func (p *corePair) receiveData(pkts [][]byte) {
	ep := p.eps[1]
	ep.BeginBatch()
	for len(pkts) > 0 {
		pkts = pkts[ep.ReceiveRun(p.now, p.addrs[0], pkts, nil, 0):]
	}
	ep.EndBatch()
}

// receiveAcks is receiveData the other way.
//
//go:noinline
func (p *corePair) receiveAcks(pkts [][]byte) {
	ep := p.eps[0]
	ep.BeginBatch()
	for _, b := range pkts {
		ep.receive(p.now, p.addrs[1], b)
	}
	ep.EndBatch()
}

func newCorePair(tb testing.TB) *corePair { return newCorePairWith(tb, nil) }

// newCorePairWith is newCorePair with both endpoints' configurations
// adjusted by adj when it is not nil.
func newCorePairWith(tb testing.TB, adj func(*Config)) *corePair {
	// The clock starts at a reading of the system's, monotonic reading
	// included, like the times the shell passes.
	return newCorePairAt(tb, time.Now(), adj)
}

// newCorePairAt is newCorePairWith with the clock starting at start.
func newCorePairAt(tb testing.TB, start time.Time, adj func(*Config)) *corePair {
	p := &corePair{now: start, buf: make([]byte, 0, 2048), rbuf: make([]byte, 64<<10)}
	p.addrs = [2]netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:9899"), netip.MustParseAddrPort("10.0.0.2:9899")}
	for i := range 2 {
		// Two trusted endpoints: the scale tests set up thousands of
		// associations from one source at one instant, which the
		// out-of-the-blue rate limit would cut to its burst.
		cfg := Config{Rand: newTestRand(byte(i)), MTU: 1500, Buffers: api.Buffers{RecvBuffer: 1 << 20}, Limits: api.Limits{InitRate: -1}}
		if adj != nil {
			adj(&cfg)
		}
		p.eps[i] = NewEndpoint(cfg, p.now)
	}
	a, err := p.eps[0].connect(p.now, p.addrs[1], 5000, 5001)
	if err != nil {
		tb.Fatal(err)
	}
	p.as[0] = a
	for range 10 {
		p.pump()
	}
	for _, a := range p.eps[1].assocs {
		p.as[1] = a
	}
	if p.as[1] == nil || p.as[0].state != stateEstablished {
		tb.Fatal("no association")
	}
	for {
		if p.eps[0].NextEvent() == nil {
			break
		}
	}
	for {
		if p.eps[1].NextEvent() == nil {
			break
		}
	}
	return p
}

// pump moves every packet across once each way, reads what side 1 got,
// and advances the clock.
func (p *corePair) pump() {
	for i := range 2 {
		if p.batch > 0 {
			// One receive batch, as the shell reads them: the packets
			// side i sends now, all polled before side 1-i sees any (it
			// sends nothing meanwhile).
			n := 0
			for ; n < p.batch; n++ {
				if n == len(p.run) {
					p.run = append(p.run, make([]byte, 0, 2048))
				}
				// As the shell collects a batch: Poll, then PollNext.
				var po Packet
				var ok bool
				if n == 0 {
					po, ok = p.eps[i].Poll(p.now, p.run[n][:0])
				} else {
					po, ok = p.eps[i].PollNext(p.now, p.run[n][:0])
				}
				if !ok {
					break
				}
				p.run[n] = po.Data
			}
			p.pkts[i] += n
			if i == 0 {
				p.receiveData(p.run[:n])
			} else {
				p.receiveAcks(p.run[:n])
			}
			continue
		}
		for n := 0; ; n++ {
			// As the shell collects: Poll, then PollNext.
			var po Packet
			var ok bool
			if n == 0 {
				po, ok = p.eps[i].Poll(p.now, p.buf[:0])
			} else {
				po, ok = p.eps[i].PollNext(p.now, p.buf[:0])
			}
			b := po.Data
			if !ok {
				break
			}
			p.pkts[i]++
			p.eps[1-i].receive(p.now, p.addrs[i], b)
		}
	}
	if a := p.as[1]; a != nil {
		for a.data.eng.Readable() {
			n, _, err := a.read(p.rbuf)
			if err != nil {
				panic(err)
			}
			p.got++
			p.bytes += n
		}
	}
	p.now = p.now.Add(50 * time.Microsecond)
	for _, ep := range p.eps {
		if d := ep.Deadline(); !d.IsZero() && !d.After(p.now) {
			ep.Expire(p.now)
		}
	}
}

// send queues one message on side 0, pumping while the buffer is full.
func (p *corePair) send(msg []byte) {
	for {
		err := p.as[0].send(p.now, 0, 0, false, msg)
		if err == nil {
			return
		}
		if !errors.Is(err, api.ErrWouldBlock) {
			panic(err)
		}
		p.pump()
	}
}

// BenchmarkCorePair1452 sends 1452-byte messages through two cores joined
// in memory (one DATA chunk per packet at a MTU of 1500) and reports
// messages per second and allocations per message.
func BenchmarkCorePair1452(b *testing.B) { benchCorePair(b, newCorePair(b)) }

// BenchmarkCorePairAuth is BenchmarkCorePair1452 with DATA and SACK
// authenticated (RFC 4895) both ways: an HMAC computed per packet sent and
// checked per packet received.
func BenchmarkCorePairAuth(b *testing.B) {
	for _, hm := range []uint16{chunk.HMACSHA1, chunk.HMACSHA256} {
		b.Run(map[uint16]string{1: "sha1", 3: "sha256"}[hm], func(b *testing.B) {
			benchCorePair(b, newCorePairWith(b, func(c *Config) {
				c.AuthChunks = []chunk.Type{chunk.TypeData, chunk.TypeSack}
				c.AuthHMAC = []uint16{hm}
			}))
		})
	}
}

// benchCorePair is BenchmarkCorePair1452's loop over the pair p.
func benchCorePair(b *testing.B, p *corePair) {
	msg := make([]byte, 1452)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.send(msg)
		p.pump()
	}
	for p.got < b.N {
		p.pump()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkCorePairBulk sends 64 KiB messages through two cores joined in
// memory the way a bulk stream moves them: the sender queues messages until
// its buffer is full, each exchange carries up to 32 1452-byte DATA packets
// of the congestion window (a receive batch, between BeginBatch and
// EndBatch as the shell reads them) and brings back the SACKs of the batch, and the receiver reads what arrived. It reports the packets
// each side sent per message beside the usual figures.
func BenchmarkCorePairBulk(b *testing.B) { benchCorePairBulk(b, newCorePair(b)) }

// benchCorePairBulk is BenchmarkCorePairBulk's loop over the pair p.
func benchCorePairBulk(b *testing.B, p *corePair) {
	p.batch = 32
	msg := make([]byte, 64<<10)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	b.ResetTimer()
	p.pkts = [2]int{}
	for range b.N {
		p.send(msg)
	}
	for p.bytes < b.N*len(msg) {
		p.pump()
	}
	b.ReportMetric(float64(p.pkts[0])/float64(b.N), "pkts/msg")
	b.ReportMetric(float64(p.pkts[1])/float64(b.N), "acks/msg")
}

// TestCorePairNoAllocs: in steady state, a message through two cores
// (queue, packetize, CRC, parse, SACK, deliver, read) allocates nothing.
func TestCorePairNoAllocs(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	p := newCorePair(t)
	msg := make([]byte, 1452)
	for range 2000 { // warm up: grow buffers, pools, rings
		p.send(msg)
		p.pump()
	}
	n := testing.AllocsPerRun(1000, func() {
		p.send(msg)
		p.pump()
	})
	if n > 0 {
		t.Fatalf("%v allocations per message", n)
	}
}
