package assoc

import (
	"hash/fnv"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// poll returns ep's next packet, built with holes that are then filled
// when p.gather is set, and hashes it into p.wire. next polls with
// PollNext instead of Poll.
func (p *pair) poll(ep *Endpoint, next bool) (Packet, bool) {
	if !p.gather {
		pk, ok := p.pollWith(ep, next, p.buf[:0])
		if ok {
			p.hashWire(pk.Data)
		}
		return pk, ok
	}
	b := p.buf[:cap(p.buf)]
	for i := range b {
		b[i] = 0xa5 // stale bytes where the holes are
	}
	if p.holes == nil {
		p.holes = make([]chunk.Hole, 0, 8)
	}
	holes := p.holes[:0]
	ep.GatherInto(&holes, testHoleFill, testHoleMin)
	pk, ok := p.pollWith(ep, next, b[:0])
	ep.GatherInto(nil, 0, 0)
	if !ok {
		ep.BatchWritten()
		return pk, ok
	}
	for _, h := range holes {
		if len(h.Data) < testHoleMin {
			p.t.Fatalf("a hole of %d bytes", len(h.Data))
		}
	}
	chunk.FillHoles(pk.Data, holes)
	p.hashWire(pk.Data)
	if len(holes) > 0 {
		p.holed++
	}
	return pk, ok
}

// testHoleMin is the smallest payload the tests leave as a hole,
// testHoleFill the smallest filled in with the checksum.
const (
	testHoleMin  = 512
	testHoleFill = 64
)

func (p *pair) hashWire(b []byte) {
	h := fnv.New64a()
	h.Write(b)
	p.wire = p.wire*31 + h.Sum64()
}

// TestEndToEndGather runs TestEndToEnd's transfer twice, polling with
// Poll after GatherInto (holes filled before sending) and with Poll: the runs must
// be the same, packet for packet, byte for byte.
func TestEndToEndGather(t *testing.T) {
	link := simnet.LinkConfig{Delay: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.01}
	var res [2]uint64
	var pairs [2]*pair
	for i, gather := range []bool{false, true} {
		res[i] = runEndToEndWith(t, 7, link, 500, func(p *pair) {
			p.gather = gather
			pairs[i] = p
			p.connect()
		})
	}
	if res[0] != res[1] || pairs[0].wire != pairs[1].wire {
		t.Fatalf("runs with and without holes differ: %x vs %x, packets %x vs %x",
			res[0], res[1], pairs[0].wire, pairs[1].wire)
	}
	if n := pairs[1].holed; n < 100 {
		t.Fatalf("%d packets with holes: too few to tell", n)
	}
	t.Logf("%d packets with holes", pairs[1].holed)
}
