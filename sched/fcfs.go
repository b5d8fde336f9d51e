package sched

import "github.com/usctp/usctp/flexarray"

// fcfs is first come, first served (RFC 8260 section 3.1): messages are sent
// in the order in which they were queued, across all streams.
//
// A ring of (stream id, count) runs records the arrival order: Enqueue
// appends to the tail run and Next returns the stream of the head run. Per
// stream, live counts its queued messages in the ring and dead its first
// ring messages that are gone (sent early, forgotten, or dropped when Sent
// reported the stream empty), discarded lazily at the head. A blocked
// stream's messages that reach the head are parked aside; Unblock puts them
// back at the head, since they arrived before everything still in the ring.
// Each message is handled a constant number of times: O(1) amortised per
// pick. The ring grows by doubling and is given back when it empties after
// growing past fcfsKeepRing.
type fcfs struct {
	t     *flexarray.Array[fcfsEnt]
	q     *flexarray.Array[fcfsRun] // ring of runs; Len is the capacity, 0 or a power of two
	head  int                       // index of the first run
	count int                       // number of runs
	// hot is the record of stream hotSID, the last ent returned (nil:
	// none): a bulk sender's Sent calls name one stream chunk after chunk.
	// Elements do not move (flexarray); Resize forgets it.
	hot    *fcfsEnt
	hotSID uint16
}

// fcfsEnt is the per-stream record of fcfs (16 bytes).
type fcfsEnt struct {
	live   uint32 // queued messages of this stream in the ring
	dead   uint32 // ring messages of this stream, before the live ones, that left the queue
	parked uint32 // queued messages taken off the ring while the stream was blocked
	flags  uint8  // fBlocked only
}

// fcfsRun is n consecutive messages of one stream in arrival order.
type fcfsRun struct {
	n   uint32
	sid uint16
}

const (
	// fcfsFirstRing is the ring capacity allocated on first use: one
	// small page, for associations that never queue much.
	fcfsFirstRing = 128
	fcfsRingPage  = 1024
	// fcfsKeepRing is the largest ring capacity kept when the ring empties
	// (128 KiB); a larger one goes back to fcfsFirstRing.
	fcfsKeepRing = 1 << 14
)

func newFCFS(opt Options) *fcfs {
	return &fcfs{
		t: flexarray.NewFor[fcfsEnt](opt.Streams),
		q: flexarray.NewPaged[fcfsRun](0, fcfsRingPage),
	}
}

func (s *fcfs) Kind() Kind { return FCFS }

func (s *fcfs) ent(sid uint16) *fcfsEnt {
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

// run returns the run at ring offset i from the head.
func (s *fcfs) run(i int) *fcfsRun {
	return s.q.Get((s.head + i) & (s.q.Len() - 1))
}

// grow doubles the ring, keeping the runs in order.
func (s *fcfs) grow() {
	c := s.q.Len()
	if c == 0 {
		s.q.Resize(fcfsFirstRing)
		s.head = 0
		return
	}
	s.q.Resize(2 * c)
	// Runs that wrapped around to the start of the old ring move to just
	// after its old end, so that they follow the head again.
	for i := range s.head + s.count - c {
		*s.q.Ensure(c + i) = *s.q.Get(i)
	}
}

// push appends one message of sid.
func (s *fcfs) push(sid uint16) {
	if s.count > 0 {
		if r := s.run(s.count - 1); r.sid == sid {
			r.n++
			return
		}
	}
	if s.count == s.q.Len() {
		s.grow()
	}
	*s.q.Ensure((s.head + s.count) & (s.q.Len() - 1)) = fcfsRun{n: 1, sid: sid}
	s.count++
}

// pushFront puts n messages of sid at the head.
func (s *fcfs) pushFront(sid uint16, n uint32) {
	if s.count == s.q.Len() {
		s.grow()
	}
	s.head = (s.head - 1) & (s.q.Len() - 1)
	*s.q.Ensure(s.head) = fcfsRun{n: n, sid: sid}
	s.count++
}

func (s *fcfs) pop() {
	s.head = (s.head + 1) & (s.q.Len() - 1)
	s.count--
	if s.count == 0 && s.q.Len() > fcfsKeepRing {
		s.q.Resize(fcfsFirstRing)
		s.head = 0
	}
}

// trim discards dead messages at the head run. It reports whether the head
// run is now one of live messages (false when the ring is empty or the head
// run was consumed).
func (s *fcfs) trim() bool {
	if s.count == 0 {
		return false
	}
	r := s.run(0)
	e := s.t.Get(int(r.sid))
	if e.dead == 0 {
		return true
	}
	k := min(e.dead, r.n)
	e.dead -= k
	r.n -= k
	if r.n == 0 {
		s.pop()
		return false
	}
	return true
}

func (s *fcfs) Enqueue(sid uint16, size int) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	e.live++
	s.push(sid)
}

func (s *fcfs) Next() (uint16, bool) {
	for s.count > 0 {
		r := s.q.Get(s.head)
		e := s.t.Get(int(r.sid))
		if e.dead > 0 {
			k := min(e.dead, r.n)
			e.dead -= k
			r.n -= k
			if r.n == 0 {
				s.pop()
				continue
			}
		}
		if e.flags&fBlocked == 0 {
			return r.sid, true
		}
		e.parked += r.n
		e.live -= r.n
		s.pop()
	}
	return none, false
}

func (s *fcfs) Sent(sid uint16, n int, msgEnd, empty bool) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	switch {
	case empty:
		e.dead += e.live
		e.live, e.parked = 0, 0
		s.trim()
		return
	case !msgEnd:
	case e.parked > 0:
		e.parked--
	case e.live > 0:
		e.live--
		e.dead++
		s.trim()
	}
	if e.live+e.parked == 0 {
		// The association says sid still has data that no Enqueue
		// announced (or that a bad Sent consumed): queue it now.
		e.live++
		s.push(sid)
	}
}

func (s *fcfs) PacketDone() {}

func (s *fcfs) Block(sid uint16) {
	if e := s.ent(sid); e != nil {
		e.flags |= fBlocked
	}
}

func (s *fcfs) Unblock(sid uint16) {
	e := s.ent(sid)
	if e == nil || e.flags&fBlocked == 0 {
		return
	}
	e.flags &^= fBlocked
	if e.parked > 0 {
		// Parked messages arrived before everything in the ring. No dead
		// messages of sid can be in the ring: dead ones are discarded
		// before live ones are parked, and anything that adds dead
		// messages clears parked first.
		s.pushFront(sid, e.parked)
		e.live += e.parked
		e.parked = 0
	}
}

func (s *fcfs) Forget(sid uint16) {
	e := s.ent(sid)
	if e == nil {
		return
	}
	e.dead += e.live
	e.live, e.parked = 0, 0
	s.trim()
}

func (s *fcfs) SetValue(sid uint16, v uint16) error {
	if int(sid) >= s.t.Len() {
		return errStream(sid, s.t.Len())
	}
	return nil
}

func (s *fcfs) Value(sid uint16) (uint16, error) {
	if int(sid) >= s.t.Len() {
		return 0, errStream(sid, s.t.Len())
	}
	return 0, nil
}

// Resize sets the stream count. Growing is O(1), with no pass over the
// queue, because a peer can trigger it with every Add Incoming Streams
// Request; the new streams start empty since the ring never holds a run of
// a stream at or above the count. Shrinking compacts the ring, dropping the
// runs of removed streams and dead messages, so nothing of a dropped stream
// is mistaken for a later stream with the same id.
func (s *fcfs) Resize(streams int) {
	s.hot = nil
	n := clampStreams(streams)
	if n >= s.t.Len() {
		s.t.Resize(n)
		return
	}
	w := 0
	for i := range s.count {
		r := *s.run(i)
		if int(r.sid) >= n {
			continue
		}
		e := s.t.Get(int(r.sid))
		k := min(e.dead, r.n)
		e.dead -= k
		r.n -= k
		if r.n == 0 {
			continue
		}
		if w > 0 {
			if p := s.run(w - 1); p.sid == r.sid {
				p.n += r.n
				continue
			}
		}
		*s.run(w) = r
		w++
	}
	s.count = w
	s.t.Resize(n)
}
