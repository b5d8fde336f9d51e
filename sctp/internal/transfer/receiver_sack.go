package transfer

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// SACK scheduling (RFC 9260 section 6.2): at least every second packet
// with DATA, within the delayed-SACK timeout, at once for a gap, a
// duplicate, the I bit (RFC 7053) or a window update, and once per
// receive batch.

// sackSchedule is when the next SACK is due and the duplicates it reports.
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
	// (receiver.resetTSN).
	muted   bool
	mutedAt TSN
	held    bool // the batch before held its SACK for this one (endBatchHeld)
}

// batchHold bounds the wait of a SACK a full batch held for the next
// (endBatchHeld): the next batch is already in the socket, and if it does
// not come the SACK goes when the delayed-SACK timer, so shortened, runs.
const batchHold = time.Millisecond

// endPacket schedules the SACK after the DATA chunks of one packet: "An
// acknowledgement SHOULD be generated for at least every second packet
// ... and SHOULD be generated within 200 ms of the arrival of any
// unacknowledged DATA chunk" (6.2).
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

// beginBatch opens a receive batch: the packets up to EndBatch arrived
// together (one recvmmsg, maybe GRO-coalesced) and count as one reception
// for the every-second-packet rule, so one SACK acknowledges the batch, as
// TCP acknowledges a GRO super-packet once. SACKs due at once for other
// reasons are not held, so loss recovery is unchanged.
func (r *receiver) beginBatch() { r.acks.inBatch = true }

// endBatch closes the receive batch and reports whether a SACK is due.
func (a *sackSchedule) endBatch() bool {
	a.inBatch, a.held = false, false
	if a.batchDue {
		a.batchDue = false
		a.dueNow = true
	}
	return a.dueNow
}

// endBatchHeld is endBatch for a batch that filled the reader's buffers,
// so that more packets wait in the socket: a SACK due only by the
// every-second-packet rule waits for the end of the next batch (or
// batchHold), once. The two reads count as one reception, as the packets
// of one read do; a SACK due at once for another reason (a gap, a
// duplicate, the I bit, a window update) is not held.
func (a *sackSchedule) endBatchHeld(now time.Time) bool {
	if !a.batchDue || a.dueNow || a.held {
		return a.endBatch()
	}
	a.inBatch, a.held = false, true
	if d := now.Add(batchHold); a.deadline.IsZero() || d.Before(a.deadline) {
		a.deadline = d
	}
	return false
}

// due reports whether a SACK should go out now.
func (a *sackSchedule) due(now time.Time) bool {
	return a.dueNow || (!a.deadline.IsZero() && !now.Before(a.deadline))
}

// pending is Engine.SACKPending.
func (a *sackSchedule) pending() bool {
	return a.dueNow || !a.deadline.IsZero() || len(a.dups) > 0
}

// duplicate notes a duplicate for the next SACK, due at once (6.2: "the
// endpoint MUST immediately send a SACK chunk with no delay").
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
	a.dueNow, a.batchDue, a.held = false, false, false
	a.deadline = time.Time{}
}

// appendSACK appends a SACK chunk within room bytes (blocks and duplicates
// that do not fit are left out) and clears the schedule.
func (r *receiver) appendSACK(now time.Time, pkt []byte, room int) []byte {
	if room < sackHeaderLen {
		return pkt
	}
	if r.acks.muted {
		if r.tsns.cum == r.acks.mutedAt {
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
	adv := min(r.advertise(), negativeWindow-1) // a peer reads larger as negative, as we do
	pkt, _ = chunk.AppendSack(pkt, r.tsns.cum, uint32(adv), r.acks.gaps, r.acks.dups[:ndups])
	r.acks.clear()
	r.win.lastAdv, r.win.advRecv = adv, r.stats.BytesReceived
	r.stats.SACKsSent++
	return pkt
}
