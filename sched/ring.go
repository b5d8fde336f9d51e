package sched

import "github.com/usctp/usctp/flexarray"

// linkEnt is the per-stream record of the schedulers built on rings (RR, RR
// per packet, Priority): intrusive links by stream id, the per-stream value
// and flags. It is 8 bytes, so one 4096-byte page holds 512 streams.
type linkEnt struct {
	prev, next uint16 // neighbours in the stream's ring while fLinked
	value      uint16 // Priority: the priority
	flags      uint8
}

// ringInsert links sid, whose record is e, into the ring whose cursor is
// *cur, just before the cursor: last in the current round. An empty ring has
// the cursor none and gets sid as its cursor.
func ringInsert(t *flexarray.Array[linkEnt], cur *uint16, sid uint16, e *linkEnt) {
	e.flags |= fLinked
	if *cur == none {
		e.prev, e.next = sid, sid
		*cur = sid
		return
	}
	c := t.Get(int(*cur))
	p := c.prev
	e.prev, e.next = p, *cur
	c.prev = sid
	t.Get(int(p)).next = sid
}

// ringRemove unlinks sid, whose record is e, from the ring whose cursor is
// *cur. If sid was the cursor, the cursor moves to its successor (none if the
// ring is now empty).
func ringRemove(t *flexarray.Array[linkEnt], cur *uint16, sid uint16, e *linkEnt) {
	e.flags &^= fLinked
	if e.next == sid {
		*cur = none
	} else {
		t.Get(int(e.prev)).next = e.next
		t.Get(int(e.next)).prev = e.prev
		if *cur == sid {
			*cur = e.next
		}
	}
	e.prev, e.next = none, none
}
