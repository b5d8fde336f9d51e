package stream

import (
	"iter"
	"unsafe"

	"github.com/usctp/usctp/flexarray"
)

// MaxStreams is the largest number of streams in one direction: stream
// identifiers and the INIT stream counts are 16-bit (RFC 9260 section 3.3.2).
const MaxStreams = 65535

// Table holds the stream state of one association: a record for each of
// its outbound and inbound streams, in page-chunked tables that allocate
// nothing until a stream is used, and side objects of types O (outbound)
// and I (inbound) for the streams that need them; use struct{} for a
// direction without side objects.
//
// Records are reached only through Out and In, which bounds-check the
// stream identifier. Record pointers stay valid while their stream exists.
//
// A Table is not safe for concurrent use.
type Table[O, I any] struct {
	out *flexarray.Array[Out]
	in  *flexarray.Array[In]
	// outOpen is the number of outbound streams that are not part of a
	// pending Add Outgoing Streams request: streams below it are Open when
	// first touched, the others AddPending.
	outOpen  int
	outSides pool[O]
	inSides  pool[I]
}

// NewTable returns a table with out outbound and in inbound streams, all
// outbound ones Open. It allocates no record: pages of records are made
// when a stream is first touched.
func NewTable[O, I any](out, in uint16) *Table[O, I] {
	return &Table[O, I]{
		out:      flexarray.NewFor[Out](int(out)),
		in:       flexarray.NewFor[In](int(in)),
		outOpen:  int(out),
		outSides: newPool[O](false),
		inSides:  newPool[I](true),
	}
}

// OutCount returns the number of outbound streams.
func (t *Table[O, I]) OutCount() int { return t.out.Len() }

// InCount returns the number of inbound streams.
func (t *Table[O, I]) InCount() int { return t.in.Len() }

// Out returns the record of outbound stream sid, or nil when sid is not
// below OutCount. Use LookupOut where the caller wants an error to report.
// The record of a stream never touched before is created here: Open (or
// AddPending while the stream's addition is unanswered) with MIDs 0.
func (t *Table[O, I]) Out(sid uint16) *Out {
	if o := t.out.Get(int(sid)); o != nil {
		return o
	}
	return t.touchOut(int(sid))
}

// In returns the record of inbound stream sid, or nil when sid is not below
// InCount. Use LookupIn where the caller wants an error to report. The
// record of a stream never touched before is created here, zero.
func (t *Table[O, I]) In(sid uint16) *In {
	return t.in.Ensure(int(sid))
}

// LookupOut is Out with a *RangeError (matching ErrInvalidStream) for a
// stream outside the negotiated range.
func (t *Table[O, I]) LookupOut(sid uint16) (*Out, error) {
	if o := t.Out(sid); o != nil {
		return o, nil
	}
	return nil, &RangeError{SID: sid, Count: t.out.Len()}
}

// LookupIn is In with a *RangeError (matching ErrInvalidStream) for a
// stream outside the negotiated range.
func (t *Table[O, I]) LookupIn(sid uint16) (*In, error) {
	if in := t.In(sid); in != nil {
		return in, nil
	}
	return nil, &RangeError{SID: sid, Count: t.in.Len(), Inbound: true}
}

// touchOut creates the page of records holding sid and initialises it.
func (t *Table[O, I]) touchOut(sid int) *Out {
	o := t.out.Ensure(sid)
	if o == nil {
		return nil
	}
	per := t.out.PerPage()
	first := sid / per * per
	t.initOut(first, min(first+per, t.out.Len()))
	return o
}

// initOut gives the existing records of streams [from, to) their initial
// state, which depends on whether an addition is pending for them.
func (t *Table[O, I]) initOut(from, to int) {
	per := t.out.PerPage()
	for i := from; i < to; {
		o := t.out.Get(i)
		if o == nil {
			i = (i/per + 1) * per
			continue
		}
		o.State = Open
		if i >= t.outOpen {
			o.State = AddPending
		}
		i++
	}
}

// Outs returns an iterator over the outbound streams touched so far (and
// their page neighbours) in stream order. It creates nothing.
func (t *Table[O, I]) Outs() iter.Seq2[uint16, *Out] {
	return func(yield func(uint16, *Out) bool) {
		for i, o := range t.out.All() {
			if !yield(uint16(i), o) {
				return
			}
		}
	}
}

// Ins returns an iterator over the inbound streams touched so far (and
// their page neighbours) in stream order. It creates nothing.
func (t *Table[O, I]) Ins() iter.Seq2[uint16, *In] {
	return func(yield func(uint16, *In) bool) {
		for i, in := range t.in.All() {
			if !yield(uint16(i), in) {
				return
			}
		}
	}
}

// OutSide returns the side object of outbound stream sid, creating it (zero,
// or reset if reused) on first use; nil when sid is not below OutCount.
func (t *Table[O, I]) OutSide(sid uint16) *O {
	o := t.Out(sid)
	if o == nil {
		return nil
	}
	if v := t.outSides.get(o.sideIdx, o.sideGen); v != nil {
		return v
	}
	v, idx, gen := t.outSides.alloc(sid)
	o.sideIdx, o.sideGen = idx, gen
	return v
}

// InSide returns the side object of inbound stream sid, creating it (zero,
// or reset if reused) on first use; nil when sid is not below InCount.
func (t *Table[O, I]) InSide(sid uint16) *I {
	v, _ := t.InSideHandle(sid)
	return v
}

// InSideHandle is InSide that also returns a handle to the side object (the
// zero Handle with nil), for a caller that keeps it to find the object
// again with InSideOf.
func (t *Table[O, I]) InSideHandle(sid uint16) (*I, Handle) {
	in := t.In(sid)
	if in == nil {
		return nil, Handle{}
	}
	v := t.inSides.get(in.sideIdx, in.sideGen)
	if v == nil {
		var idx uint16
		var gen uint32
		v, idx, gen = t.inSides.alloc(sid)
		in.sideIdx, in.sideGen = idx, gen
	}
	return v, Handle{gen: in.sideGen, idx: in.sideIdx, sid: sid}
}

// PeekOutSide returns the side object of outbound stream sid if it has
// one, else nil. It creates nothing.
func (t *Table[O, I]) PeekOutSide(sid uint16) *O {
	if o := t.out.Get(int(sid)); o != nil {
		return t.outSides.get(o.sideIdx, o.sideGen)
	}
	return nil
}

// PeekInSide returns the side object of inbound stream sid if it has one,
// else nil. It creates nothing.
func (t *Table[O, I]) PeekInSide(sid uint16) *I {
	if in := t.in.Get(int(sid)); in != nil {
		return t.inSides.get(in.sideIdx, in.sideGen)
	}
	return nil
}

// OutHandle returns a handle to the side object of outbound stream sid, or
// the zero Handle if it has none. Keep the handle, not a pointer, wherever
// the reference may outlive the object (a pinned message, a cursor).
func (t *Table[O, I]) OutHandle(sid uint16) Handle {
	if o := t.out.Get(int(sid)); o != nil && o.sideIdx != 0 {
		return Handle{gen: o.sideGen, idx: o.sideIdx, sid: sid}
	}
	return Handle{}
}

// InHandle returns a handle to the side object of inbound stream sid, or
// the zero Handle if it has none.
func (t *Table[O, I]) InHandle(sid uint16) Handle {
	if in := t.in.Get(int(sid)); in != nil && in.sideIdx != 0 {
		return Handle{gen: in.sideGen, idx: in.sideIdx, sid: sid}
	}
	return Handle{}
}

// OutSideOf returns the outbound side object h names, or nil if h is zero,
// inbound, or stale (the object was released since h was taken).
func (t *Table[O, I]) OutSideOf(h Handle) *O {
	if h.Inbound() {
		return nil
	}
	return t.outSides.get(h.idx, h.gen)
}

// InSideOf returns the inbound side object h names, or nil if h is zero,
// outbound, or stale.
func (t *Table[O, I]) InSideOf(h Handle) *I {
	if !h.Inbound() {
		return nil
	}
	return t.inSides.get(h.idx, h.gen)
}

// FreeOutSide releases the side object of outbound stream sid, if any: it
// is reset (see Resetter) and kept for reuse, and every handle to it goes
// stale. The stream's record is unchanged.
func (t *Table[O, I]) FreeOutSide(sid uint16) {
	if o := t.out.Get(int(sid)); o != nil && o.sideIdx != 0 {
		t.outSides.release(o.sideIdx)
		o.sideIdx, o.sideGen = 0, 0
	}
}

// FreeInSide releases the side object of inbound stream sid, if any, as
// FreeOutSide does.
func (t *Table[O, I]) FreeInSide(sid uint16) {
	if in := t.in.Get(int(sid)); in != nil && in.sideIdx != 0 {
		t.inSides.release(in.sideIdx)
		in.sideIdx, in.sideGen = 0, 0
	}
}

// OutSides returns an iterator over the outbound streams that have a side
// object, in stream order.
func (t *Table[O, I]) OutSides() iter.Seq2[uint16, *O] {
	return func(yield func(uint16, *O) bool) {
		if t.outSides.live == 0 {
			return
		}
		for i, o := range t.out.All() {
			if o.sideIdx != 0 && !yield(uint16(i), t.outSides.get(o.sideIdx, o.sideGen)) {
				return
			}
		}
	}
}

// InSides returns an iterator over the inbound streams that have a side
// object, in stream order.
func (t *Table[O, I]) InSides() iter.Seq2[uint16, *I] {
	return func(yield func(uint16, *I) bool) {
		if t.inSides.live == 0 {
			return
		}
		for i, in := range t.in.All() {
			if in.sideIdx != 0 && !yield(uint16(i), t.inSides.get(in.sideIdx, in.sideGen)) {
				return
			}
		}
	}
}

// OutSideCount returns the number of outbound side objects in use.
func (t *Table[O, I]) OutSideCount() int { return t.outSides.live }

// InSideCount returns the number of inbound side objects in use.
func (t *Table[O, I]) InSideCount() int { return t.inSides.live }

// ResizeOut sets the number of outbound streams to n, as stream-count
// negotiation (RFC 9260 section 5.1.1) or an association restart needs.
// Growing never moves a record; the new streams are Open, or AddPending
// while an Add Outgoing Streams request is unanswered. Shrinking removes the
// streams from n up: their side objects are released (reset, handles go
// stale) and their records dropped. Drain their queues first: the table does
// not know what a side object holds.
func (t *Table[O, I]) ResizeOut(n uint16) {
	old := t.out.Len()
	if int(n) < old {
		t.releaseOut(int(n), old)
		t.out.Resize(int(n))
		t.outOpen = min(t.outOpen, int(n))
		return
	}
	if t.outOpen == old {
		t.outOpen = int(n)
	}
	t.out.Resize(int(n))
	t.initOut(old, int(n))
}

// ResizeIn sets the number of inbound streams to n. Growing (for example
// when the peer adds outgoing streams, RFC 6525 section 5.2.5) never moves
// a record and the new streams start at zero; shrinking releases the side
// objects of the streams removed and drops their records.
func (t *Table[O, I]) ResizeIn(n uint16) {
	old := t.in.Len()
	if int(n) < old {
		per := t.in.PerPage()
		for i := int(n); i < old; {
			in := t.in.Get(i)
			if in == nil {
				i = (i/per + 1) * per
				continue
			}
			if in.sideIdx != 0 {
				t.inSides.release(in.sideIdx)
			}
			i++
		}
	}
	t.in.Resize(int(n))
}

// releaseOut releases the side objects of outbound streams [from, to).
func (t *Table[O, I]) releaseOut(from, to int) {
	if t.outSides.live == 0 {
		return
	}
	per := t.out.PerPage()
	for i := from; i < to; {
		o := t.out.Get(i)
		if o == nil {
			i = (i/per + 1) * per
			continue
		}
		if o.sideIdx != 0 {
			t.outSides.release(o.sideIdx)
			o.sideIdx, o.sideGen = 0, 0
		}
		i++
	}
}

// AddOut adds n outbound streams for an Add Outgoing Streams request (RFC
// 6525 section 4.5) and returns the first new stream identifier. The new
// streams are AddPending until FinishAddOut. It returns ErrAddPending if an
// earlier request is unanswered and ErrTooManyStreams if the total would
// exceed MaxStreams; the table is then unchanged.
func (t *Table[O, I]) AddOut(n uint16) (first uint16, err error) {
	old := t.out.Len()
	if t.outOpen != old {
		return 0, ErrAddPending
	}
	if old+int(n) > MaxStreams {
		return 0, ErrTooManyStreams
	}
	t.out.Resize(old + int(n))
	t.initOut(old, old+int(n))
	return uint16(old), nil
}

// AddOutPending reports whether an Add Outgoing Streams request is
// unanswered, and the streams it adds: [first, OutCount).
func (t *Table[O, I]) AddOutPending() (first uint16, pending bool) {
	return uint16(t.outOpen), t.outOpen != t.out.Len()
}

// FinishAddOut ends the pending Add Outgoing Streams request. When the peer
// performed it, the new streams become Open with MIDs 0; otherwise they are
// removed as by ResizeOut (drain their queues first).
func (t *Table[O, I]) FinishAddOut(performed bool) {
	if !performed {
		t.ResizeOut(uint16(t.outOpen))
		return
	}
	from := t.outOpen
	t.outOpen = t.out.Len()
	per := t.out.PerPage()
	for i := from; i < t.out.Len(); {
		o := t.out.Get(i)
		if o == nil {
			i = (i/per + 1) * per
			continue
		}
		if o.State == AddPending {
			o.State = Open
			o.ResetSequence()
		}
		i++
	}
}

// ResetSequences restarts the numbering of every stream in both directions
// at 0 and ends every partial delivery, as an SSN/TSN Reset (RFC 6525
// section 5.2.4) requires. Side objects and states are kept.
func (t *Table[O, I]) ResetSequences() {
	for _, o := range t.out.All() {
		o.ResetSequence()
	}
	for _, in := range t.in.All() {
		in.ResetSequence()
	}
}

// Bytes returns the bytes of memory the table holds: the table itself, its
// record pages and directories, and its side-object pages, each counted as
// the size-class slot the Go allocator gives it.
func (t *Table[O, I]) Bytes() int {
	arrays := 4 * flexarray.AllocSize(int(unsafe.Sizeof(*t.out)), true)
	return flexarray.AllocSize(int(unsafe.Sizeof(*t)), true) + arrays +
		t.out.Bytes() + t.in.Bytes() + t.outSides.slots.Bytes() + t.inSides.slots.Bytes()
}
