package sctp

import "github.com/usctp/usctp/sctp/internal/netio"

// The write area: one slab of writeAreaSize bytes per endpoint into which
// the core builds the packets of one WriteBatch back to back, each at a
// cache line boundary. Its size does not follow Config.MTU: 128 packets
// of 1500 bytes fill it, and a larger MTU means fewer, larger packets per
// batch (three of 64 KiB), not a larger area. A packet is only started
// while the room left holds the largest packet the core builds
// (assoc.Endpoint.MTU), so no packet outgrows the slab; one that would (a
// stateless reply grown past it) gets a buffer of its own from append and
// is written all the same.

// initWriteArea allocates the write area for the core's largest packet.
func (e *Endpoint) initWriteArea() {
	e.largestPacket = e.core.MTU()
	e.slab = make([]byte, max(writeAreaSize, 2*cacheLineUp(e.largestPacket)))
	e.batch = make([]netio.Packet, writeBatch)
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
