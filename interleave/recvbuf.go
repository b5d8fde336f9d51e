package interleave

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Lent fragments. A fragment whose payload arrived in a RecvBuf (the
// socket reader's GRO buffers) can reference the buffer instead of holding
// a copy (Pool.Lend): the payload is then copied once, from the buffer to
// the reader's. The buffer is reference counted: the socket reader holds
// one reference while it reads into it, the pool its fragments are lent
// to one while any is (counting its fragments itself, without atomics),
// and the last to let go recycles it. The reader takes a fresh buffer for
// the next read when fragments still hold the one it read into.
//
// A lent fragment's Data runs from its payload to the end of the buffer's
// bytes (its capacity), so Put finds the buffer's record, stored right
// after the bytes in the same allocation, from Data alone and the fragment
// record keeps its size. Fragments with a copy have a capacity of a buffer
// class (bufClasses) or over RecvBufSize; Lend copies instead when a
// payload's offset would give a class capacity, so the capacity tells the
// two apart.
//
// Memory: a buffer stays pinned while any fragment references it, whatever
// part of it that fragment covers. The pool charges every buffer its
// fragments reference at its whole size (RecvBufCost, LentCost), as Linux
// charges an skb's truesize, and a buffer lends to one pool at a time: a
// peer that spreads tiny chunks over many buffers pins no more memory than
// the receiver's limit allows. Lent fragments themselves cost their
// record only (Frag.Cost).

// RecvBufSize is the bytes a RecvBuf holds: the largest datagram a UDP GRO
// read brings.
const RecvBufSize = 1 << 16

// recvBufAlloc is the size of a RecvBuf's allocation: its bytes and its
// record.
const recvBufAlloc = RecvBufSize + int(unsafe.Sizeof(RecvBuf{}))

// RecvBufCost is what a RecvBuf costs in memory: its allocation rounded up
// to the Go allocator's 8 KiB pages (a large object).
const RecvBufCost = (recvBufAlloc + 8191) &^ 8191

// RecvBuf is a receive buffer that fragments may reference (Pool.Lend). It
// is the buffer's record; its RecvBufSize bytes (Bytes) precede it in the
// same allocation. Get one with NewRecvBuf, which holds one reference for
// the caller, and give each reference back with Release.
type RecvBuf struct {
	refs  atomic.Int32  // holders: NewRecvBuf's caller, the pool its fragments are lent to
	owner atomic.Uint32 // the id of the Pool its lent fragments belong to, 0 for none
	// lent counts the owner's fragments that reference the buffer; only
	// the owner changes it.
	lent int32
	_    int32
}

// recvBufs holds released buffers for reuse.
var recvBufs sync.Pool // of *RecvBuf

// recvBufsOut counts the buffers handed out and not yet recycled.
var recvBufsOut atomic.Int64

// RecvBufsOut returns the number of receive buffers handed out by
// NewRecvBuf and not yet released by all their holders: what tests check
// comes back to its value before a run.
func RecvBufsOut() int64 { return recvBufsOut.Load() }

// NewRecvBuf returns a receive buffer holding one reference, the caller's.
// Its bytes are not cleared.
func NewRecvBuf() *RecvBuf {
	b, _ := recvBufs.Get().(*RecvBuf)
	if b == nil {
		mem := make([]byte, recvBufAlloc)
		b = (*RecvBuf)(unsafe.Pointer(&mem[RecvBufSize]))
	}
	b.refs.Store(1)
	recvBufsOut.Add(1)
	return b
}

// Bytes returns the buffer's RecvBufSize bytes.
func (b *RecvBuf) Bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(b), -RecvBufSize)), RecvBufSize)
}

// Lent reports whether references other than the caller's one are held:
// fragments still reference the buffer, so a reader must not read into it
// again.
func (b *RecvBuf) Lent() bool { return b.refs.Load() != 1 }

// Release gives back one reference; the last recycles the buffer.
func (b *RecvBuf) Release() {
	switch n := b.refs.Add(-1); {
	case n == 0:
		recvBufsOut.Add(-1)
		recvBufs.Put(b)
	case n < 0:
		panic("interleave: RecvBuf released too often")
	}
}

// LendMin is the smallest payload Lend references: smaller ones are
// copied, which costs less than the buffer's reference counting and pins
// no buffer (a copy-break, as network drivers copy small packets).
const LendMin = 512

// poolIDs numbers the pools that lend (Pool.id).
var poolIDs atomic.Uint32

// lentCap reports whether a fragment's Data of capacity c references a
// RecvBuf (see Lent fragments above): c is under RecvBufSize and neither
// a power of two, 1536 nor 9216, which covers every buffer class (0,
// powers of two, 1536, 9216); Lend keeps what it returns (capacities of
// LendMin or more) apart from them (TestLentCap checks both). It runs for
// every fragment held and read, so it is a few instructions, inlined.
func lentCap(c int) bool {
	return c&(c-1) != 0 && c != 1536 && c != 9216 && c < RecvBufSize
}

// Lend returns a fragment whose Data references payload in b, its other
// fields zero, or nil when the payload is to be copied (Get): it is small
// (under LendMin bytes), not inside b, at an offset Data could not show as
// lent, or b lends to another pool. The caller holds a reference to b
// meanwhile (it read into b). The pool then holds a reference to b until
// its last fragment from b is Put, and charges b's whole size meanwhile
// (LentCost). A receiver checks that it has room for RecvBufCost more
// before it lends from a buffer it does not lend from yet (Lends).
func (p *Pool) Lend(payload []byte, b *RecvBuf) *Frag {
	if len(payload) < LendMin {
		return nil
	}
	buf := b.Bytes()
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(payload))) - uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	if off < 0 || off > RecvBufSize-len(payload) || !lentCap(RecvBufSize-off) {
		return nil
	}
	if p.id == 0 {
		p.id = poolIDs.Add(1)
	}
	switch o := b.owner.Load(); {
	case o == p.id:
	case o == 0 && b.owner.CompareAndSwap(0, p.id):
		p.lentBufs++
		b.refs.Add(1) // the pool's, for all its fragments
	default:
		return nil
	}
	b.lent++
	f := p.record()
	f.Data = buf[off : off+len(payload) : RecvBufSize]
	return f
}

// Lends reports whether fragments of the pool reference b: lending more
// from b then charges nothing more.
func (p *Pool) Lends(b *RecvBuf) bool { return p.id != 0 && b.owner.Load() == p.id }

// LentCost returns what the receive buffers the pool's fragments
// reference cost in memory: RecvBufCost each.
func (p *Pool) LentCost() int { return int(p.lentBufs) * RecvBufCost }

// LentBufs returns the number of receive buffers the pool's fragments
// reference.
func (p *Pool) LentBufs() int { return int(p.lentBufs) }

// record returns a fragment record without a buffer, its fields zero.
func (p *Pool) record() *Frag {
	if f := p.free[0]; f != nil {
		p.free[0] = f.next
		p.count--
		p.cost -= int32(FragOverhead)
		*f = Frag{}
		return f
	}
	if f, ok := shared[0].Get().(*Frag); ok {
		return f
	}
	return &Frag{}
}

// unlend lets f, a lent fragment, go of its buffer, the pool's reference
// with the last of its fragments, and clears f's Data.
func (p *Pool) unlend(f *Frag) {
	b := (*RecvBuf)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(f.Data)), cap(f.Data)))
	f.Data = nil
	if b.owner.Load() != p.id {
		panic("interleave: lent fragment put to another pool")
	}
	if b.lent--; b.lent == 0 {
		// Disowned before released: once released, b may be recycled
		// and owned by another pool.
		p.lentBufs--
		b.owner.Store(0)
		b.Release()
	}
}
