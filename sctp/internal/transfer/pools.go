package transfer

import (
	"math/bits"
	"sync"
	"unsafe"
)

// An association keeps what its traffic needs, and gives it back once that
// traffic is over. While data flows, free messages (with their buffers)
// and the retransmission ring are reused with no allocation. When the
// send buffer empties (everything queued was acknowledged), the sender
// releases its caches: it keeps keepFreeMessages free messages and a ring of
// initialRecords, and hands the rest to process-wide pools that every
// association draws from before it allocates. The pools are sync.Pools:
// what no association takes back is freed by the garbage collector, so a
// process with many idle associations holds little more than their idle
// state, and one whose associations burst again reuses the same memory.

// keepFreeMessages is the free messages an idle sender keeps: enough for
// request/response traffic, one message at a time, to never touch the pool.
const keepFreeMessages = 1

// messagePool holds free messages that idle senders gave back.
var messagePool sync.Pool // of *message

// ringPools[k] holds idle record rings of 1<<k records (cleared), as a
// pointer to their first record.
var ringPools [bits.UintSize]sync.Pool // of *record

// newMessage returns a free message: the queue's own, the pool's, or a
// new one.
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

// idleWithSpareCaches reports whether the sender should give its caches
// back: nothing is buffered and it holds more than an idle sender keeps.
func (s *sender) idleWithSpareCaches() bool {
	return s.queue.buffered == 0 && (s.queue.nfree > keepFreeMessages || len(s.ledger.recs) > initialRecords)
}

// releaseCaches gives the caches of a burst back (see
// idleWithSpareCaches). The ring is swapped only when it holds no live
// record.
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

// keepFreeFragBytes is what the free fragments a receiver keeps when it
// holds no data may cost (interleave.Frag.Cost); the others go to
// interleave's process-wide pool (Pool.Trim). It holds the fragments of a
// message of an MTU-sized chunk and a short tail (1616 + 144 bytes), so a
// flow of such messages read as they come keeps its fragments instead of
// trading one with the process-wide pool for every message.
const keepFreeFragBytes = 2048

// trimFragments trims the fragment pool once every byte received was read.
func (r *receiver) trimFragments() {
	if r.counts.Held == 0 && r.pool.FreeCost() > keepFreeFragBytes {
		r.pool.Trim(keepFreeFragBytes)
	}
}
