package sctp

import (
	"math"

	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// The write area: one slab of writeAreaSize bytes per endpoint into which
// the core builds the packets of one WriteBatch back to back, each at a
// cache line boundary. Its size does not follow Config.MTU: 132 packets
// of 1500 bytes fill it, and a larger MTU means fewer, larger packets per
// batch (three of 64 KiB), not a larger area. A packet is only started
// while the room left holds the largest packet the core builds
// (assoc.Endpoint.MTU), so no packet outgrows the slab; one that would (a
// stateless reply grown past it) gets a buffer of its own from append and
// is written all the same.
//
// The packets are built with holes (assoc.Endpoint.GatherInto): the
// DATA payloads of fillMin bytes or more are left out while a packet is
// built, then copied in by the pass that computes its checksum, which
// reads each once (crc32c.UpdateCopy) where a copy then a checksum read
// it twice. On a conn that gathers (netio.Gatherer) the large ones stay
// in the send buffer and the conn sends them from there, so the write
// area holds the packets' headers, control chunks and other payloads, at
// the offsets of the whole packets. The holes of a batch are listed in
// holes (as the core returns them) and netHoles (as the conn takes them).

// gatherMin is the smallest DATA payload sent as a hole. Leaving a
// payload in the send buffer saves its copy into the packet, but the
// checksum and the kernel's copy then read it from the message buffer,
// out of the caches since the user's message was copied in, where the
// copy would have brought a packet of a 1500-byte path into the L1 cache
// for both. Below about 10 KB what the copy costs the cold reads cost as
// much and the holes' bookkeeping more; 64 KB chunks (loopback) are
// cheaper as holes.
const gatherMin = 16 << 10

// fillMin is the smallest DATA payload copied in with the checksum: for
// shorter ones both take the CRC32 instruction alone and the copy is
// cheaper than the bookkeeping. Where the CRC32c code does not fuse the
// two (assoc.FillsInOnePass), payloads are copied as they are appended.
const fillMin = 256

// maxPacketHoles bounds the holes of one packet, batchHoles those of a
// batch per packet: a packet with more large chunks, or after a batch's
// holes are used up, has the others copied. A packet of a 1500-byte path
// holds one large chunk, one of 64 KiB at most two (the fragment point's
// bound by the peer's window) unless its messages are small.
const (
	maxPacketHoles = 8
	batchHoles     = 2
)

// initWriteArea allocates the write area for the core's largest packet.
func (e *Endpoint) initWriteArea() {
	e.largestPacket = e.core.MTU()
	e.slab = make([]byte, max(writeAreaSize, 2*cacheLineUp(e.largestPacket)))
	e.batch = make([]netio.Packet, writeBatch)
	least, keep := fillMin, math.MaxInt
	if !assoc.FillsInOnePass() {
		least = keep
	}
	if g, ok := e.conn.(netio.Gatherer); ok && g.Gathers() {
		e.netHoles = make([]netio.Hole, writeBatch*batchHoles)
		least, keep = min(least, gatherMin), gatherMin
	}
	if least < math.MaxInt {
		e.holes = make([]assoc.Hole, writeBatch*batchHoles)
		e.core.GatherInto(&e.polled, least, keep)
	}
}

// commitHoles lists the holes of the packet just polled in o.
// Called with e.flushMu held.
func (e *Endpoint) commitHoles(o *netio.Packet) {
	if len(e.polled) == 0 {
		o.Holes = nil
		return
	}
	u := e.holesUsed
	nh := e.netHoles[u : u+len(e.polled)]
	for i, h := range e.polled {
		nh[i] = netio.Hole(h)
	}
	o.Holes = nh
	e.holesUsed += len(e.polled)
	e.polled = nil
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
