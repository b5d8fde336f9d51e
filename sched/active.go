package sched

// The ring and heap schedulers (RR, RR per packet, Priority, FC, WFQ) keep
// a stream in the set Next picks from exactly while it has data (fData) and
// is not blocked (fBlocked); fLinked says it is in. Block, Unblock and
// Forget change the two conditions and link or unlink the stream to match,
// the same way for all of them.

// record is a scheduler's per-stream record, seen through its flags.
type record interface {
	comparable
	flagBits() *uint8
}

func (e *linkEnt) flagBits() *uint8 { return &e.flags }
func (e *fqEnt) flagBits() *uint8   { return &e.flags }

// activeSet is the part of a scheduler that Block, Unblock and Forget use.
type activeSet[E record] interface {
	// ent returns sid's record, creating its page, or the zero E if sid
	// is out of range.
	ent(sid uint16) E
	link(sid uint16, e E)
	unlink(sid uint16, e E)
}

// flagsOf returns sid's record and its flags; ok is false if sid is out
// of range.
func flagsOf[E record](s activeSet[E], sid uint16) (e E, f *uint8, ok bool) {
	var zero E
	if e = s.ent(sid); e == zero {
		return zero, nil, false
	}
	return e, e.flagBits(), true
}

// blockStream takes sid out of the set until unblockStream.
func blockStream[E record](s activeSet[E], sid uint16) {
	if e, f, ok := flagsOf(s, sid); ok {
		*f |= fBlocked
		if *f&fLinked != 0 {
			s.unlink(sid, e)
		}
	}
}

// unblockStream puts sid back in the set if it has data.
func unblockStream[E record](s activeSet[E], sid uint16) {
	if e, f, ok := flagsOf(s, sid); ok {
		*f &^= fBlocked
		if *f&(fData|fLinked) == fData {
			s.link(sid, e)
		}
	}
}

// forgetStream drops sid's data and takes it out of the set; it returns
// sid's record (the zero E if sid is out of range).
func forgetStream[E record](s activeSet[E], sid uint16) E {
	e, f, ok := flagsOf(s, sid)
	if ok {
		*f &^= fData
		if *f&fLinked != 0 {
			s.unlink(sid, e)
		}
	}
	return e
}
