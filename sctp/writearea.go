package sctp

import "github.com/usctp/usctp/sctp/internal/netio"

// The write area: one slab of writeArea bytes per endpoint into which the
// core builds the packets of one WriteBatch back to back, each at a cache
// line boundary. Its size does not follow Config.MTU: 128 packets of 1500
// bytes fill it as before, and a larger MTU means fewer, larger packets
// per batch (three of 64 KiB), not a larger area. A packet is only started
// while the room left holds the largest packet the core builds
// (assoc.Endpoint.MTU), so no packet outgrows the slab; one that would (a
// stateless reply grown past it) gets a buffer of its own from append and
// is written all the same.

// initWriteArea allocates the write area for the core's largest packet.
func (e *Endpoint) initWriteArea() {
	e.maxOut = e.core.MTU()
	e.slab = make([]byte, max(writeArea, 2*lineUp(e.maxOut)))
	e.out = make([]netio.Packet, writeBatch)
}

// lineUp rounds n up to a 64-byte cache line.
func lineUp(n int) int { return (n + 63) &^ 63 }

// nextOut returns the buffer the next packet is built in (empty, its
// capacity the room left), or nil when the room left may not hold the
// largest packet: the batch is full. Called with e.wmu held.
func (e *Endpoint) nextOut() []byte {
	room := len(e.slab) - e.slabOff
	if e.nout >= len(e.out) || room < e.maxOut {
		return nil
	}
	return e.slab[e.slabOff:e.slabOff:len(e.slab)]
}

// tookOut records that packet b was built in the buffer from nextOut.
func (e *Endpoint) tookOut(b []byte) {
	if cap(b) == len(e.slab)-e.slabOff {
		// Built in place (append did not move it).
		e.slabOff = min(e.slabOff+lineUp(len(b)), len(e.slab))
	}
}
