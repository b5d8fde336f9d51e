package sched

import "github.com/usctp/usctp/flexarray"

// prio is the priority scheduler (RFC 8260 section 3.4): strict priority,
// lower value first (as in Linux and usrsctp), round robin among the active
// streams of one priority (per message without I-DATA, per chunk with it).
//
// Each priority value in use has a ring of its active streams, linked by
// stream id, whose cursor is kept in heads; a levelSet holds the priorities
// whose ring is not empty, so Next is two table lookups and three
// count-trailing-zeros, whatever the number of streams or priorities.
type prio struct {
	t           *flexarray.Array[linkEnt]
	heads       *flexarray.Array[uint16] // per priority: cursor stream id + 1; 0 when no stream of that priority is active
	levels      levelSet
	interleaved bool
}

func newPrio(opt Options) *prio {
	return &prio{
		t:           flexarray.NewFor[linkEnt](opt.Streams),
		heads:       flexarray.New[uint16](1 << 16),
		levels:      newLevelSet(),
		interleaved: opt.Interleaved,
	}
}

func (s *prio) Kind() Kind { return Priority }

func (s *prio) ent(sid uint16) *linkEnt {
	if int(sid) >= s.t.Len() {
		return nil
	}
	return s.t.Ensure(int(sid))
}

func (s *prio) link(sid uint16, e *linkEnt) {
	h := s.heads.Ensure(int(e.value))
	cur := *h - 1 // 0 - 1 wraps to none
	if cur == none {
		s.levels.add(e.value)
	}
	ringInsert(s.t, &cur, sid, e)
	*h = cur + 1
}

func (s *prio) unlink(sid uint16, e *linkEnt) {
	h := s.heads.Get(int(e.value))
	cur := *h - 1
	ringRemove(s.t, &cur, sid, e)
	*h = cur + 1
	if cur == none {
		s.levels.remove(e.value)
	}
}

func (s *prio) Enqueue(sid uint16, size int) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	e.flags |= fData
	if e.flags&(fBlocked|fLinked) == 0 {
		s.link(sid, e)
	}
}

func (s *prio) Next() (uint16, bool) {
	if s.levels.empty() {
		return none, false
	}
	return *s.heads.Get(int(s.levels.min())) - 1, true
}

func (s *prio) Sent(sid uint16, n int, msgEnd, empty bool) {
	e := s.ent(sid)
	if e == nil {
		return
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
	if e.flags&fLinked != 0 && (msgEnd || s.interleaved) {
		if h := s.heads.Get(int(e.value)); *h-1 == sid {
			*h = e.next + 1
		}
	}
}

func (s *prio) PacketDone() {}

func (s *prio) Block(sid uint16) { blockStream(s, sid) }

func (s *prio) Unblock(sid uint16) { unblockStream(s, sid) }

func (s *prio) Forget(sid uint16) { forgetStream(s, sid) }

// SetValue sets sid's priority. An active stream moves to the end of the
// round of its new priority.
func (s *prio) SetValue(sid uint16, v uint16) error {
	e := s.ent(sid)
	if e == nil {
		return errStream(sid, s.t.Len())
	}
	if e.value == v {
		return nil
	}
	if e.flags&fLinked != 0 {
		s.unlink(sid, e)
		e.value = v
		s.link(sid, e)
		return nil
	}
	e.value = v
	return nil
}

func (s *prio) Value(sid uint16) (uint16, error) {
	if int(sid) >= s.t.Len() {
		return 0, errStream(sid, s.t.Len())
	}
	if e := s.t.Get(int(sid)); e != nil {
		return e.value, nil
	}
	return DefaultPriority, nil
}

// Resize sets the stream count: O(1) when growing, one step per removed
// stream when shrinking (removed active streams are unlinked).
func (s *prio) Resize(streams int) {
	n := clampStreams(streams)
	for sid := n; sid < s.t.Len(); sid++ {
		if e := s.t.Get(sid); e != nil && e.flags&fLinked != 0 {
			s.unlink(uint16(sid), e)
		}
	}
	s.t.Resize(n)
}
