package stream

import "github.com/usctp/usctp/flexarray"

// Resetter is implemented by side-object types that keep expensive parts
// (buffers with capacity, ring slices) across reuse. When a side object is
// released, the table calls Reset on it if its pointer type implements
// Resetter, and otherwise sets it to the zero value. Reset must clear the
// logical state, in particular every reference to user data, and may keep
// the rest.
type Resetter interface {
	Reset()
}

// Handle names one side object of one stream in one Table, with the
// generation of its slot. A handle outlives its object safely: once the
// object is released (its stream removed, reset or freed), looking the
// handle up yields nil, even if the slot was reused since. The zero Handle
// names nothing.
type Handle struct {
	gen uint32 // slot generation; the top bit marks inbound
	idx uint16 // slot + 1
	sid uint16
}

// SID returns the stream the handle's side object belongs to.
func (h Handle) SID() uint16 { return h.sid }

// IsZero reports whether h is the zero Handle.
func (h Handle) IsZero() bool { return h.idx == 0 }

// Inbound reports whether h names an inbound stream's side object.
func (h Handle) Inbound() bool { return h.gen&inboundGen != 0 }

const (
	inboundGen = 1 << 31 // generation bit marking the inbound pool
	genMask    = inboundGen - 1

	// sidePageBytes is the page size of the side-object pools: side
	// objects exist for used streams only, usually a handful, so a small
	// page keeps an association with few streams in use small.
	sidePageBytes = 1024
)

// slot is one side object in a pool, with its bookkeeping (8 bytes).
type slot[S any] struct {
	v S
	// gen is the slot's generation: the pool's mark bit, then a 31-bit
	// counter bumped on every allocation and release, odd while v is in
	// use. A live generation is never 0.
	gen  uint32
	next uint16 // free list: next free slot + 1
	sid  uint16 // the owner while live
}

// pool is a per-table typed free list of side objects in page-chunked
// storage: objects never move, released ones are reset and reused first.
type pool[S any] struct {
	slots *flexarray.Array[slot[S]]
	free  uint16 // first free slot + 1; 0: none
	live  int
	mark  uint32 // 0 or inboundGen, or'ed into every generation
}

func newPool[S any](inbound bool) pool[S] {
	p := pool[S]{slots: flexarray.NewPaged[slot[S]](0, sidePageBytes)}
	if inbound {
		p.mark = inboundGen
	}
	return p
}

// bump advances a slot's generation, keeping the pool's mark.
func (p *pool[S]) bump(s *slot[S]) {
	s.gen = p.mark | (s.gen+1)&genMask
}

// alloc returns a zero or reset side object for sid, its slot + 1 and
// generation.
func (p *pool[S]) alloc(sid uint16) (*S, uint16, uint32) {
	var s *slot[S]
	var idx uint16
	if p.free != 0 {
		idx = p.free
		s = p.slots.Get(int(idx - 1))
		p.free = s.next
		s.next = 0
	} else {
		// At most one object per stream and at most 65535 streams, so
		// the pool never outgrows 16-bit indexes.
		n := p.slots.Len()
		p.slots.Resize(n + 1)
		s = p.slots.Ensure(n)
		s.gen = p.mark
		idx = uint16(n + 1)
	}
	p.bump(s)
	s.sid = sid
	p.live++
	return &s.v, idx, s.gen
}

// get returns the live object in slot idx-1 if its generation is gen.
func (p *pool[S]) get(idx uint16, gen uint32) *S {
	if idx == 0 || gen&1 == 0 {
		return nil
	}
	s := p.slots.Get(int(idx - 1))
	if s == nil || s.gen != gen {
		return nil
	}
	return &s.v
}

// release resets the object in slot idx-1, bumps its generation so every
// handle to it goes stale, and puts it on the free list.
func (p *pool[S]) release(idx uint16) {
	s := p.slots.Get(int(idx - 1))
	if r, ok := any(&s.v).(Resetter); ok {
		r.Reset()
	} else {
		var zero S
		s.v = zero
	}
	p.bump(s)
	s.next, p.free = p.free, idx
	p.live--
}
