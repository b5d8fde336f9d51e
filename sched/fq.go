package sched

import "github.com/usctp/usctp/flexarray"

// fq is fair capacity (RFC 8260 section 3.5) and, with weighted set, weighted
// fair queueing (section 3.6), both as start-time fair queueing over virtual
// time:
//
//   - Every stream has a tag, the virtual time at which its next chunk
//     starts; sending n bytes adds n/weight to it (scaled by 2^16 so that
//     weights up to 65535 keep sub-byte precision), which makes the tag the
//     finish time of the chunk just sent.
//   - Next returns the active stream with the smallest tag, from a 4-ary
//     min-heap of (tag, stream id) whose position is stored per stream, so
//     picking is O(1) and accounting a chunk is O(log n). Equal tags are
//     served in the order they were reached (a sequence number breaks the
//     tie), so streams of equal weight and chunk size take turns.
//   - The virtual time V is the smallest tag in service; it never goes
//     backwards. A stream that becomes active starts at max(V, its own
//     tag), so an idle stream comes back level with the others rather than
//     with a credit for the time it did not send (Linux's FC and WFQ count
//     bytes over all time, so a returning stream monopolises the link until
//     its count catches up).
//
// Over any interval in which streams i and j are both active, the bytes they
// are served, divided by their weights, differ by at most one chunk each
// (the start-time fair queueing bound), so shares converge to the weights.
// Fair capacity is the same with every weight 1.
//
// Tags are 64-bit and compared with serial arithmetic (RFC 1982 style), so
// they may wrap: no renormalisation pass is ever needed. The division by the
// weight keeps its remainder per stream, so rounding never accumulates.
type fq struct {
	t        *flexarray.Array[fqEnt]
	heap     fqHeap // heap.Min() has the smallest (tag, seq)
	v        uint64 // virtual time
	seq      uint32 // tie-break stamp of the last heap insertion or update
	weighted bool
}

// fqEnt is the per-stream record of fq (16 bytes).
type fqEnt struct {
	tag    uint64 // start of the stream's next chunk in virtual time: its last finish
	pos    uint16 // position in the heap + 1; 0 when not in the heap
	weight uint16 // WFQ weight; 0 means DefaultWeight
	rem    uint16 // remainder of the last division of scaled bytes by the weight
	flags  uint8
}

const (
	// tagShift scales bytes to virtual time units: a chunk of n bytes on a
	// stream of weight w advances its tag by n<<tagShift/w.
	tagShift = 16
	// maxLead is the furthest ahead of the virtual time a stream's tag may
	// legitimately be when it becomes active (a 4 GiB message at weight 1).
	// A tag further ahead was left behind so long ago that the virtual time
	// wrapped past it, and is treated as behind.
	maxLead = 1 << 48
)

// before reports whether virtual time a is earlier than b (serial order).
func before(a, b uint64) bool { return int64(a-b) < 0 }

func newFQ(opt Options, weighted bool) *fq {
	s := &fq{
		t:        flexarray.NewFor[fqEnt](opt.Streams),
		weighted: weighted,
	}
	s.heap.Init(heapArity, fqIndex{s.t})
	return s
}

func (s *fq) Kind() Kind {
	if s.weighted {
		return WFQ
	}
	return FairCapacity
}

func (s *fq) ent(sid uint16) *fqEnt {
	if int(sid) >= s.t.Len() {
		return nil
	}
	return s.t.Ensure(int(sid))
}

func (s *fq) Enqueue(sid uint16, size int) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	e.flags |= fData
	if e.flags&(fBlocked|fLinked) == 0 {
		s.link(sid, e)
	}
}

func (s *fq) Next() (uint16, bool) {
	if s.heap.Len() == 0 {
		return none, false
	}
	return s.heap.Min().Val, true
}

func (s *fq) Sent(sid uint16, n int, msgEnd, empty bool) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	if n > 0 {
		// The chunk in service started at the smallest tag (SFQ's virtual
		// time); V only moves forward.
		if s.heap.Len() > 0 {
			if t := s.heap.Min().Key; before(s.v, t) {
				s.v = t
			}
		}
		w := uint64(DefaultWeight)
		if s.weighted && e.weight != 0 {
			w = uint64(e.weight)
		}
		x := uint64(n)<<tagShift + uint64(e.rem)
		e.tag += x / w
		e.rem = uint16(x % w)
		if e.flags&fLinked != 0 && !empty {
			s.seq++
			s.heap.Fix(int(e.pos)-1, heapEnt{Key: e.tag, Tie: s.seq, Val: sid})
		}
	}
	if empty {
		e.flags &^= fData
		if e.flags&fLinked != 0 {
			s.unlink(sid, e)
		}
		return
	}
	if e.flags&fData == 0 {
		e.flags |= fData
		if e.flags&fBlocked == 0 {
			s.link(sid, e)
		}
	}
}

func (s *fq) PacketDone() {}

func (s *fq) Block(sid uint16) { blockStream(s, sid) }

func (s *fq) Unblock(sid uint16) { unblockStream(s, sid) }

// Forget drops sid's data and its tag: when it has data again it starts at
// the virtual time, like a new stream.
func (s *fq) Forget(sid uint16) {
	if e := forgetStream(s, sid); e != nil {
		e.tag, e.rem = s.v, 0
	}
}

// SetValue sets sid's WFQ weight (1 to 65535), effective from its next
// chunk; fair capacity accepts and ignores the value, as Linux does.
func (s *fq) SetValue(sid uint16, v uint16) error {
	if int(sid) >= s.t.Len() {
		return errStream(sid, s.t.Len())
	}
	if !s.weighted {
		return nil
	}
	if v == 0 {
		return errWeight
	}
	s.t.Ensure(int(sid)).weight = v
	return nil
}

func (s *fq) Value(sid uint16) (uint16, error) {
	if int(sid) >= s.t.Len() {
		return 0, errStream(sid, s.t.Len())
	}
	if !s.weighted {
		return 0, nil
	}
	if e := s.t.Get(int(sid)); e != nil && e.weight != 0 {
		return e.weight, nil
	}
	return DefaultWeight, nil
}

// Resize sets the stream count. Growing is O(1); shrinking unlinks the
// active streams removed (one step per removed stream) and gives back the
// heap pages the remaining active streams do not need.
func (s *fq) Resize(streams int) {
	n := clampStreams(streams)
	if n >= s.t.Len() {
		s.t.Resize(n)
		return
	}
	for sid := n; sid < s.t.Len(); sid++ {
		if e := s.t.Get(sid); e != nil && e.flags&fLinked != 0 {
			s.unlink(uint16(sid), e)
		}
	}
	s.t.Resize(n)
	s.heap.Shrink()
}
