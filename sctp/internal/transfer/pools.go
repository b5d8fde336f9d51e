package transfer

import (
	"math/bits"
	"sync"
	"unsafe"
)

// While data flows, free messages and the retransmission ring are reused.
// When the send buffer empties, the sender keeps keepFreeMessages messages
// and a ring of initialRecords and hands the rest to process-wide
// sync.Pools, so many idle associations hold little more than their idle
// state.

// keepFreeMessages lets one-at-a-time request/response traffic never touch
// the pool.
const keepFreeMessages = 1

// messagePool holds free messages that idle senders gave back.
var messagePool sync.Pool // of *message

// ringPools[k] holds cleared rings of 1<<k records, by first record.
var ringPools [bits.UintSize]sync.Pool // of *record

// newMessage returns a free message: the queue's, the pool's, or a new one.
func (q *sendQueue) newMessage() *message {
	if m := q.free; m != nil {
		q.free = m.next
		q.nfree--
		return m
	}
	if m, ok := messagePool.Get().(*message); ok {
		return m
	}
	return &message{}
}

// idleWithSpareCaches reports whether nothing is buffered and the sender
// holds more than an idle sender keeps.
func (s *sender) idleWithSpareCaches() bool {
	return s.queue.buffered == 0 && (s.queue.nfree > keepFreeMessages || len(s.ledger.recs) > initialRecords)
}

// releaseCaches gives the caches of a burst back.
func (s *sender) releaseCaches() {
	s.queue.trimFree()
	s.ledger.shrink()
}

// trimFree hands the free messages beyond keepFreeMessages to the pool.
func (q *sendQueue) trimFree() {
	for q.nfree > keepFreeMessages {
		m := q.free
		q.free = m.next
		q.nfree--
		m.next = nil
		messagePool.Put(m)
	}
}

// getRing returns a cleared ring of n records, n a power of two.
func getRing(n int) []record {
	if p, ok := ringPools[bits.TrailingZeros(uint(n))].Get().(*record); ok {
		return unsafe.Slice(p, n)
	}
	return make([]record, n)
}

// putRing clears a ring no longer used and pools it.
func putRing(recs []record) {
	clear(recs)
	ringPools[bits.TrailingZeros(uint(len(recs)))].Put(unsafe.SliceData(recs))
}

// keepFreeFragBytes is what the free fragments of a receiver holding no
// data may cost; the rest goes to interleave's pool. It covers a message
// of an MTU-sized chunk and a short tail (1616 + 144 bytes).
const keepFreeFragBytes = 2048

// trimFragments trims the fragment pool once every byte received was read.
func (r *receiver) trimFragments() {
	if r.counts.Held == 0 && r.pool.FreeCost() > keepFreeFragBytes {
		r.pool.Trim(keepFreeFragBytes)
	}
}
