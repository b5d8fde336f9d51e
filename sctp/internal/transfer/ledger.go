package transfer

import "time"

// The retransmission ledger: a record of every DATA chunk from TSN
// assignment until the cumulative TSN ack point passes it, in a ring
// indexed by TSN, and the counts of records in each state. The counts
// change only through the transitions below, which keep them equal to a
// walk over the records (checkInvariants in the tests).

// ledger is the retransmission ledger of one sender.
type ledger struct {
	cumAck  TSN      // cumulative TSN ack point
	nextTSN TSN      // next TSN to assign
	recs    []record // ring of the records in (cumAck, nextTSN), indexed by TSN & mask
	mask    uint32
	hdr     int // chunk header length of the variant: a record counts hdr + padded payload in flight

	inFlight    int    // records sent and not acknowledged (not gap-acked, not acked)
	rtxPending  int    // records marked for retransmission
	gapAcked    int    // records acknowledged by a Gap Ack Block
	unackedData int    // user bytes of records in flight or marked for retransmission
	xmitSeq     uint32 // transmission number of the last chunk sent (serial)
}

// Record marks.
const (
	markFastDone = 1 << 0 // was fast-retransmitted once already (RecoveryRFC9260)
	markDupSeen  = 1 << 1 // the peer reported a duplicate of this transmission
)

// Record states.
const (
	recInFlight  uint8 = iota // sent, not acknowledged
	recGapAcked               // acknowledged by a Gap Ack Block (may be reneged)
	recRtx                    // marked for retransmission
	recAcked                  // below the cumulative TSN ack point (slot free)
	recAbandoned              // abandoned (RFC 3758 section 3.5): treated as acked, not yet passed by the peer
)

// record is the retransmission record of one DATA chunk; its payload is a
// slice of the message's buffer.
type record struct {
	msg     *message
	sent    time.Time // last transmission
	seq     uint32    // transmission number of the last transmission (serial)
	off, n  int32     // payload = msg.buf[off:off+n]
	ppid    uint32
	mid     uint32 // SSN or MID
	fsn     uint32 // I-DATA fragment sequence number
	sid     uint16
	flags   uint8
	state   uint8
	misses  uint8 // miss indications (7.2.4)
	xmits   uint8 // transmissions so far
	fastRtx bool  // marked by fast retransmit, not yet resent
	marks   uint8 // markFastDone, markDupSeen, markT3, and the path index (paths.go)
}

// initialRecords is the record ring's first size, a power of two.
const initialRecords = 4

// init starts the ledger at TSN first for chunks with hdr-byte headers.
func (l *ledger) init(first TSN, hdr int) {
	l.cumAck = first - 1
	l.nextTSN = first
	l.hdr = hdr
	// Start small: an idle association holds a few records.
	l.recs = getRing(initialRecords)
	l.mask = initialRecords - 1
}

// rec returns the record of tsn, which must lie in (cumAck, nextTSN).
func (l *ledger) rec(tsn TSN) *record { return &l.recs[uint32(tsn)&l.mask] }

// outstanding returns the number of TSNs above the cumulative ack point.
func (l *ledger) outstanding() int { return int(l.nextTSN - l.cumAck - 1) }

// size returns the bytes a chunk counts in flight: header and padding
// included.
func (l *ledger) size(r *record) int { return l.hdr + pad4(int(r.n)) }

// grow doubles the record ring.
func (l *ledger) grow() {
	n := len(l.recs) * 2
	recs := getRing(n)
	for t := l.cumAck + 1; t != l.nextTSN; t++ {
		recs[uint32(t)&uint32(n-1)] = *l.rec(t)
	}
	putRing(l.recs)
	l.recs, l.mask = recs, uint32(n-1)
}

// full reports whether the ring has no free record: grow before assign.
func (l *ledger) full() bool { return l.outstanding() == len(l.recs) }

// assign gives the next TSN a record for the caller to fill; the ring must
// not be full.
func (l *ledger) assign() (TSN, *record) {
	t := l.nextTSN
	l.nextTSN++
	return t, l.rec(t)
}

// nextSeq numbers a transmission, ordering chunks sent within the clock's
// resolution, which TSNs do not do for retransmissions.
func (l *ledger) nextSeq() uint32 {
	l.xmitSeq++
	return l.xmitSeq
}

// sent counts r, a new chunk just recorded in flight.
func (l *ledger) sent(r *record) {
	l.inFlight++
	l.unackedData += int(r.n)
}

// resent moves r from the retransmission queue back in flight.
func (l *ledger) resent(r *record) {
	r.state = recInFlight
	l.rtxPending--
	l.inFlight++
}

// markRtx moves r from flight to the retransmission queue.
func (l *ledger) markRtx(r *record) {
	r.state = recRtx
	l.rtxPending++
	l.inFlight--
}

// acked takes r out of flight or the retransmission queue on its first
// acknowledgement and reports whether it was there.
func (l *ledger) acked(r *record) bool {
	switch r.state {
	case recInFlight:
		l.inFlight--
	case recRtx:
		l.rtxPending--
		r.fastRtx = false
	default:
		return false
	}
	l.unackedData -= int(r.n)
	return true
}

// gapAck records that a Gap Ack Block acknowledged r.
func (l *ledger) gapAck(r *record) {
	r.state = recGapAcked
	l.gapAcked++
}

// passed records that the cumulative TSN ack point passed r.
func (l *ledger) passed(r *record) {
	if r.state == recGapAcked {
		l.gapAcked--
	}
	r.state = recAcked
}

// reneged puts gap-acked r back in flight (RFC 9260 section 6.2.1 D iii),
// counting one miss indication.
func (l *ledger) reneged(r *record) {
	r.state = recInFlight
	r.misses++
	l.gapAcked--
	l.unackedData += int(r.n)
	l.inFlight++
}

// abandoned marks r abandoned (RFC 3758 section 3.5) and returns its
// previous state, or false when it was acknowledged or abandoned already.
func (l *ledger) abandoned(r *record) (was uint8, ok bool) {
	was = r.state
	switch was {
	case recInFlight:
		l.inFlight--
		l.unackedData -= int(r.n)
	case recRtx:
		l.rtxPending--
		l.unackedData -= int(r.n)
		r.fastRtx = false
	case recGapAcked:
		l.gapAcked--
	default:
		return was, false
	}
	r.state = recAbandoned
	return was, true
}

// forget empties the ledger (Drain).
func (l *ledger) forget() {
	l.cumAck = l.nextTSN - 1
	l.inFlight, l.rtxPending, l.gapAcked, l.unackedData = 0, 0, 0, 0
}

// restart makes next the next TSN with nothing outstanding (RFC 6525).
func (l *ledger) restart(next TSN) {
	l.nextTSN = next
	l.cumAck = next - 1
}

// shrink gives a grown ring back to the pool when no record is live.
func (l *ledger) shrink() {
	if len(l.recs) > initialRecords && l.outstanding() == 0 {
		putRing(l.recs)
		l.recs = getRing(initialRecords)
		l.mask = initialRecords - 1
	}
}

// flightOn reports whether a chunk last sent on path i is in flight.
func (l *ledger) flightOn(i uint8) bool {
	for t := l.cumAck + 1; t != l.nextTSN; t++ {
		if r := l.rec(t); r.state == recInFlight && r.marks>>pathShift == i {
			return true
		}
	}
	return false
}
