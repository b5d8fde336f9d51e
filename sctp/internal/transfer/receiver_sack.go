package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// SACK scheduling (RFC 9260 section 6.2): a SACK for at least every
// second packet with DATA, within the delayed-SACK timeout of any
// unacknowledged DATA, at once for a gap, a duplicate, a DATA chunk with
// the I bit (RFC 7053) or a window update, and once per receive batch
// rather than per packet pair.

// sackSchedule is when the receiver's next SACK is due and the duplicates
// it reports.
type sackSchedule struct {
	dups      []TSN      // duplicate TSNs to report
	gaps      []GapBlock // Gap Ack Blocks of the SACK being built, reused
	packets   int        // packets with DATA since the last SACK
	dueNow    bool       // a SACK is due at once
	deadline  time.Time  // delayed SACK deadline, zero when none
	newData   bool       // the current packet had new DATA
	inBatch   bool       // a receive batch is open (BeginBatch)
	batchDue  bool       // the every-second-packet SACK became due in it
	immediate bool       // the current packet had a DATA with the I bit
	// muted: no SACK until DATA moves the cumulative TSN past mutedAt
	// (after an SSN/TSN reset we performed, receiver.resetTSN).
	muted   bool
	mutedAt TSN
}

// endPacket tells the receiver that the DATA chunks of one packet were all
// handled; it schedules the SACK: "An acknowledgement SHOULD be generated
// for at least every second packet ... received and SHOULD be generated
// within 200 ms of the arrival of any unacknowledged DATA chunk" (6.2), or
// at once for a DATA chunk with the I bit (RFC 7053).
func (r *receiver) endPacket(now time.Time) {
	if r.acks.immediate {
		r.acks.dueNow = true
		r.acks.immediate = false
	}
	if !r.acks.newData {
		return
	}
	r.acks.newData = false
	if r.win.recvBudget != nil {
		r.win.recvBudget.note(&r.win, r.stats.BytesReceived, now)
	}
	r.acks.packets++
	r.stats.DataPacketsReceived++
	if r.acks.packets >= r.cfg.SACKFreq || r.shareBlocked() {
		if r.acks.inBatch {
			r.acks.batchDue = true
		} else {
			r.acks.dueNow = true
		}
	}
	if r.acks.deadline.IsZero() {
		r.acks.deadline = now.Add(r.cfg.SACKDelay)
	}
}

// beginBatch opens a receive batch: the packets that follow, up to
// EndBatch, arrived together (one recvmmsg call, whose datagrams the
// kernel may have coalesced with GRO) and count as one reception event
// for the rule "An acknowledgement SHOULD be generated for at least every
// second packet" (RFC 9260 section 6.2): the SACK that rule asks for goes
// out once, at EndBatch, and acknowledges the whole batch. Per-packet
// SACKs would leave in the same write at the end of the batch anyway,
// each older than the last; one SACK carries the same information in one
// packet instead of one per two, as TCP acknowledges a GRO super-packet
// once. SACKs due at once for other reasons (a gap, a duplicate, the I
// bit, the first DATA) are not held, so loss recovery sees a SACK per
// packet, as it does without a batch.
func (r *receiver) beginBatch() { r.acks.inBatch = true }

// endBatch closes the receive batch and reports whether a SACK is due.
func (a *sackSchedule) endBatch() bool {
	a.inBatch = false
	if a.batchDue {
		a.batchDue = false
		a.dueNow = true
	}
	return a.dueNow
}

// due reports whether a SACK should go out now.
func (a *sackSchedule) due(now time.Time) bool {
	return a.dueNow || (!a.deadline.IsZero() && !now.Before(a.deadline))
}

// pending reports whether DATA arrived that no SACK has acknowledged yet
// (a SACK is due or delayed), or duplicates wait to be reported: such a
// SACK may ride on outbound DATA before it is due.
func (a *sackSchedule) pending() bool {
	return a.dueNow || !a.deadline.IsZero() || len(a.dups) > 0
}

// duplicate notes a duplicate of TSN t for the next SACK, which is due at
// once. 6.2: "When a packet arrives with duplicate DATA chunk(s) and with
// no new DATA chunk(s), the endpoint MUST immediately send a SACK chunk
// with no delay." Every duplicate is answered at once.
func (a *sackSchedule) duplicate(t TSN) {
	if len(a.dups) < maxDupTSNs {
		a.dups = append(a.dups, t)
	}
	a.dueNow = true
}

// clear empties the schedule: a SACK went, or none is to go.
func (a *sackSchedule) clear() {
	a.dups = a.dups[:0]
	a.packets = 0
	a.dueNow, a.batchDue = false, false
	a.deadline = time.Time{}
}

// appendSACK appends a SACK chunk reporting the TSN map (cumulative TSN,
// Gap Ack Blocks, duplicate TSNs) and the receive window to pkt, using at
// most room bytes (blocks and duplicates that do not fit are left out), and
// returns the extended packet. It clears the SACK schedule.
func (r *receiver) appendSACK(now time.Time, pkt []byte, room int) []byte {
	if room < sackHeaderLen {
		return pkt
	}
	if r.acks.muted {
		if r.tsns.cum == r.acks.mutedAt {
			// After an SSN/TSN reset we performed: see resetTSN.
			r.acks.clear()
			return pkt
		}
		r.acks.muted = false
	}
	maxGaps := (room - sackHeaderLen) / 4
	r.acks.gaps = r.acks.gaps[:0]
	if r.tsns.hasGaps() {
		r.tsns.gaps(maxGaps, func(s, e uint16) {
			r.acks.gaps = append(r.acks.gaps, GapBlock{Start: s, End: e})
		})
	}
	ndups := min(len(r.acks.dups), (room-sackHeaderLen)/4-len(r.acks.gaps))
	adv := r.advertise()
	pkt, _ = chunk.AppendSack(pkt, r.tsns.cum, uint32(adv), r.acks.gaps, r.acks.dups[:ndups])
	r.acks.clear()
	r.win.lastAdv, r.win.advRecv = adv, r.stats.BytesReceived
	r.stats.SACKsSent++
	return pkt
}
