package assoc

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/api"
)

// BenchmarkCoreAssocs measures the cost per message of bulk traffic over
// 1, 8 and 64 associations between the same two endpoints joined in
// memory (the CPU per byte over several associations must stay near
// what it is over one), as over loopback: 1452-byte
// messages in packets of up to 64 KiB, the endpoints' send budget at its
// default, each association's writer filling its send buffer in turn (as
// sctpperf's writers do until they block), then every packet crossing and
// every message read. The cores alone: no sockets, no goroutines, so what
// rises with the number of associations here is the cores' own work
// (batch sizes, SACKs per byte, caches), not the host's scheduling.
func BenchmarkCoreAssocs(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("assocs=%d", n), func(b *testing.B) {
			p := newCorePairWith(b, func(c *Config) {
				c.MTU = 65535 - 48
				c.SendBudget = 1 << 20
				c.SendBuffer = 1 << 20
			})
			p.buf = make([]byte, 0, 64<<10)
			if n > 1 {
				p.addIdle(b, n-1)
			}
			var as []*Assoc
			for _, a := range p.eps[0].assocs {
				as = append(as, a)
			}
			var peers []*Assoc
			for _, a := range p.eps[1].assocs {
				peers = append(peers, a)
			}
			msg := make([]byte, 1452)
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			b.ResetTimer()
			sent, got, i := 0, 0, 0
			packets := 0
			for sent < b.N {
				// The next association's writer queues until refused.
				a := as[i%len(as)]
				i++
				for sent < b.N {
					if err := a.send(p.now, 0, 0, false, msg); err != nil {
						if !errors.Is(err, api.ErrWouldBlock) {
							b.Fatal(err)
						}
						break
					}
					sent++
				}
				packets += p.pumpMany(peers, &got)
			}
			for got < b.N {
				packets += p.pumpMany(peers, &got)
			}
			b.ReportMetric(float64(b.N)*float64(len(msg))/float64(packets), "bytes/packet")
		})
	}
}

// pumpMany is pump for several associations: every packet crosses once
// each way, side 1 reads every association's messages, and the clock
// advances. It returns the packets side 0 sent.
func (p *corePair) pumpMany(peers []*Assoc, got *int) int {
	n := 0
	for i := range 2 {
		for {
			po, ok := p.eps[i].Poll(p.now, p.buf[:0])
			b := po.Data
			if !ok {
				break
			}
			if i == 0 {
				n++
			}
			p.eps[1-i].receive(p.now, p.addrs[i], b)
		}
	}
	for _, a := range peers {
		for a.data.eng.Readable() {
			if _, _, err := a.read(p.rbuf); err != nil {
				panic(err)
			}
			*got++
		}
	}
	p.now = p.now.Add(50 * time.Microsecond)
	for _, ep := range p.eps {
		if d := ep.Deadline(); !d.IsZero() && !d.After(p.now) {
			ep.Expire(p.now)
		}
	}
	return n
}
