package sched

import "github.com/usctp/usctp/flexarray"

// rr is the round robin scheduler (RFC 8260 section 3.2) and, with perPacket
// set, round robin per packet (section 3.3). The active streams form a ring
// linked by stream id; the cursor is the stream Next returns.
//
// RoundRobin moves the cursor after the cursor stream sent the last chunk of
// a message, or any chunk when interleaved. RoundRobinPacket moves it only in
// PacketDone, and only if the cursor stream sent something in that packet.
// When the cursor stream runs dry or is blocked mid-packet, the cursor moves
// on and the next stream may fill the rest (as usrsctp does); an association
// that must never mix streams ends the packet when Next changes stream.
type rr struct {
	t            *flexarray.Array[linkEnt]
	cur          uint16 // the stream Next returns; none when no stream is active
	interleaved  bool
	perPacket    bool
	sentInPacket bool // RoundRobinPacket: the cursor stream sent a chunk since the cursor last moved
	// hot is the record of stream hotSID, the last ent returned (nil:
	// none), as in fcfs; Resize forgets it.
	hot    *linkEnt
	hotSID uint16
}

func newRR(opt Options, perPacket bool) *rr {
	return &rr{
		t:           flexarray.NewFor[linkEnt](opt.Streams),
		cur:         none,
		interleaved: opt.Interleaved,
		perPacket:   perPacket,
	}
}

func (s *rr) Kind() Kind {
	if s.perPacket {
		return RoundRobinPacket
	}
	return RoundRobin
}

// ent returns sid's record, creating its page, or nil if sid is out of range.
func (s *rr) ent(sid uint16) *linkEnt {
	if s.hot != nil && sid == s.hotSID {
		return s.hot
	}
	if int(sid) >= s.t.Len() {
		return nil
	}
	e := s.t.Ensure(int(sid))
	s.hot, s.hotSID = e, sid
	return e
}

func (s *rr) link(sid uint16, e *linkEnt) { ringInsert(s.t, &s.cur, sid, e) }

func (s *rr) unlink(sid uint16, e *linkEnt) {
	if s.cur == sid {
		s.sentInPacket = false
	}
	ringRemove(s.t, &s.cur, sid, e)
}

func (s *rr) Enqueue(sid uint16, size int) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	e.flags |= fData
	if e.flags&(fBlocked|fLinked) == 0 {
		s.link(sid, e)
	}
}

func (s *rr) Next() (uint16, bool) { return s.cur, s.cur != none }

func (s *rr) Sent(sid uint16, n int, msgEnd, empty bool) {
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
	if sid != s.cur {
		return
	}
	switch {
	case s.perPacket:
		s.sentInPacket = true
	case msgEnd || s.interleaved:
		s.cur = e.next
	}
}

func (s *rr) PacketDone() {
	if s.sentInPacket && s.cur != none {
		s.cur = s.t.Get(int(s.cur)).next
	}
	s.sentInPacket = false
}

func (s *rr) Block(sid uint16) { blockStream(s, sid) }

func (s *rr) Unblock(sid uint16) { unblockStream(s, sid) }

func (s *rr) Forget(sid uint16) { forgetStream(s, sid) }

func (s *rr) SetValue(sid uint16, v uint16) error {
	if int(sid) >= s.t.Len() {
		return errStream(sid, s.t.Len())
	}
	return nil
}

func (s *rr) Value(sid uint16) (uint16, error) {
	if int(sid) >= s.t.Len() {
		return 0, errStream(sid, s.t.Len())
	}
	return 0, nil
}

// Resize sets the stream count: O(1) when growing, one step per removed
// stream when shrinking (removed active streams are unlinked).
func (s *rr) Resize(streams int) {
	s.hot = nil
	n := clampStreams(streams)
	for sid := n; sid < s.t.Len(); sid++ {
		if e := s.t.Get(sid); e != nil && e.flags&fLinked != 0 {
			s.unlink(uint16(sid), e)
		}
	}
	s.t.Resize(n)
}
