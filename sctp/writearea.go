package sctp

import (
	"time"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// The write area: one slab of writeAreaSize bytes per endpoint into which
// the core builds the packets of one WriteBatch back to back, each at a
// cache line boundary. Its size does not follow Config.MTU: 128 packets
// of 1500 bytes fill it, and a larger MTU means fewer, larger packets per
// batch (three of 64 KiB), not a larger area. A packet is only started
// while the room left holds the largest packet the core builds
// (assoc.Endpoint.MTU), so no packet outgrows the slab; one that would (a
// stateless reply grown past it) gets a buffer of its own from append and
// is written all the same.

//
// On a conn that gathers (netio.Gatherer) the packets are built with
// holes (assoc.Endpoint.PollGather): the large DATA payloads stay in the
// send buffer and the conn sends them from there, so the write area holds
// the packets' headers, control chunks and small payloads, at the
// offsets of the whole packets. The holes of a batch are listed in holes
// (as the core returns them) and netHoles (as the conn takes them), at
// most maxPacketHoles per packet.

// maxPacketHoles bounds the holes of one packet: a packet with more
// large chunks has the others copied.
const maxPacketHoles = 8

// initWriteArea allocates the write area for the core's largest packet.
func (e *Endpoint) initWriteArea() {
	e.largestPacket = e.core.MTU()
	e.slab = make([]byte, max(writeAreaSize, 2*cacheLineUp(e.largestPacket)))
	e.batch = make([]netio.Packet, writeBatch)
	if g, ok := e.conn.(netio.Gatherer); ok && g.Gathers() {
		e.holes = make([]assoc.Hole, writeBatch*maxPacketHoles)
		e.netHoles = make([]netio.Hole, writeBatch*maxPacketHoles)
	}
}

// pollPacket polls the core's next packet into buf: with holes when the
// conn gathers. Called with e.flushMu and e.mu held.
func (e *Endpoint) pollPacket(now time.Time, buf []byte) (assoc.Packet, bool) {
	if e.holes == nil {
		return e.core.Poll(now, buf)
	}
	if e.batchLen == 0 && e.holesUsed > 0 {
		// The packets with holes collected before are written: their
		// messages may be reused.
		e.core.BatchWritten()
		e.holesUsed = 0
	}
	u := e.holesUsed
	return e.core.PollGather(now, buf, e.holes[u:u:u+maxPacketHoles])
}

// commitHoles lists the holes of packet p, just polled, in o. Called with
// e.flushMu held.
func (e *Endpoint) commitHoles(o *netio.Packet, p *assoc.Packet) {
	if len(p.Holes) == 0 {
		o.Holes = nil
		return
	}
	u := e.holesUsed
	nh := e.netHoles[u : u+len(p.Holes)]
	for i, h := range p.Holes {
		nh[i] = netio.Hole(h)
	}
	o.Holes = nh
	e.holesUsed += len(p.Holes)
}

// cacheLineUp rounds n up to a 64-byte cache line.
func cacheLineUp(n int) int { return (n + 63) &^ 63 }

// nextPacketBuf returns the buffer the next packet is built in (empty, its
// capacity the room left), or nil when the room left may not hold the
// largest packet: the batch is full. Called with e.flushMu held.
func (e *Endpoint) nextPacketBuf() []byte {
	room := len(e.slab) - e.slabUsed
	if e.batchLen >= len(e.batch) || room < e.largestPacket {
		return nil
	}
	return e.slab[e.slabUsed:e.slabUsed:len(e.slab)]
}

// commitPacketBuf records that packet b was built in the buffer from
// nextPacketBuf. Called with e.flushMu held.
func (e *Endpoint) commitPacketBuf(b []byte) {
	if cap(b) == len(e.slab)-e.slabUsed {
		// Built in place (append did not move it).
		e.slabUsed = min(e.slabUsed+cacheLineUp(len(b)), len(e.slab))
	}
}
