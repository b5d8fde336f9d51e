package transfer

import (
	"fmt"
	"slices"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525), the receiving side: inbound streams
// added, reset (at once, or deferred until the cumulative TSN reaches the
// peer's last assigned TSN, holding the data that arrives meanwhile), and
// the receiver's part of an SSN/TSN reset. The sending side is in
// reconf_tracker.go.

// addIncoming grows the inbound streams by n, for the peer's Add Outgoing
// Streams Request (RFC 6525 section 5.2.5). It fails, changing nothing,
// when the total would exceed 65535. It returns the inbound stream count.
func (r *receiver) addIncoming(n uint16) (int, error) {
	total := r.cfg.InStreams + int(n)
	if total > stream.MaxStreams {
		return r.cfg.InStreams, fmt.Errorf("%w: %d inbound streams", ErrStreamID, total)
	}
	r.streams.ResizeIn(uint16(total))
	r.cfg.InStreams = total
	return total, nil
}

// deferredReset is an incoming stream reset waiting for the cumulative TSN
// to reach the peer's last assigned TSN (RFC 6525 section 5.2.2 E2).
type deferredReset struct {
	last  TSN
	sids  []uint16 // sorted; empty: every stream
	held  []*interleave.Frag
	bytes int
	cost  int // what held costs in memory (Frag.Cost)
}

// deferReset starts "deferred reset processing" (RFC 6525 section 5.2.2
// E2): "any data arriving with a TSN larger than the Sender's Last
// Assigned TSN for the affected stream(s) MUST be queued locally and held
// until the cumulative acknowledgment point reaches the Sender's Last
// Assigned TSN." Such data is acknowledged as usual but kept out of
// reassembly until ResetIncoming. sids empty means every stream. A second
// call replaces the first (holding on to what it held).
func (r *receiver) deferReset(last TSN, sids []uint16) {
	d := r.deferred
	if d == nil {
		d = &deferredReset{}
		r.deferred = d
	}
	d.last = last
	d.sids = append(d.sids[:0], sids...)
	slices.Sort(d.sids)
}

// deferredUntil reports whether a reset is deferred, and its last TSN.
func (r *receiver) deferredUntil() (TSN, bool) {
	if r.deferred == nil {
		return 0, false
	}
	return r.deferred.last, true
}

// defers reports whether fragment f must be held for a deferred reset.
func (r *receiver) defers(f *interleave.Frag) bool {
	d := r.deferred
	if d == nil || !f.TSN.GT(d.last) {
		return false
	}
	if len(d.sids) > 0 {
		if _, ok := slices.BinarySearch(d.sids, f.SID); !ok {
			return false
		}
	}
	d.held = append(d.held, f)
	d.bytes += len(f.Data)
	d.cost += f.Cost()
	r.stats.ReconfHeld++
	return true
}

// addFrag hands a received fragment to reassembly, or holds it for a
// deferred reset.
func (r *receiver) addFrag(f *interleave.Frag) bool {
	if r.defers(f) {
		return true
	}
	return r.reasm.Add(f)
}

// held returns the user bytes the receiver holds, a deferred reset's
// included.
func (r *receiver) held() int {
	n := r.counts.Held
	if r.deferred != nil {
		n += r.deferred.bytes
	}
	return n
}

// charged returns what the data the receiver holds costs in memory, a
// deferred reset's included: the fragment records and their whole
// buffers (interleave.Frag.Cost), as Linux charges an skb's truesize
// against the receive buffer. It stays within twice the receive buffer
// plus one chunk, whatever the size of the chunks the peer sends.
func (r *receiver) charged() int {
	n := r.counts.Charged
	if r.deferred != nil {
		n += r.deferred.cost
	}
	return n
}

// ResetIncoming resets inbound streams sids (every stream when empty) to
// expect SSN (or MID) 0 again, ends a deferred reset and releases the data
// it held to reassembly (RFC 6525 section 5.2.2 E3 and E4). It reports
// false when a held fragment broke the fragment rules (the association
// should abort: protocol violation).
func (r *receiver) ResetIncoming(sids []uint16) bool {
	defer r.syncBudget()
	n := r.streams.InCount()
	if len(sids) == 0 {
		r.resetAllIn()
	} else {
		for _, sid := range sids {
			if int(sid) < n {
				r.streams.In(sid).ResetSequence()
				r.reasm.Recheck(sid)
			}
		}
	}
	d := r.deferred
	if d == nil {
		return true
	}
	r.deferred = nil
	ok := true
	for i, f := range d.held {
		d.held[i] = nil
		switch {
		case !ok:
			r.pool.Put(f)
		case !r.reasm.Add(f):
			ok = false
		}
	}
	r.checkPartial()
	return ok
}

// readyForTSNReset reports whether the receiver can take part in an SSN/TSN
// reset: every TSN up to the highest received arrived (no gap), nothing
// waits for reassembly or ordering (what is held is ready to read), and
// no incoming stream reset is deferred.
func (r *receiver) readyForTSNReset() bool {
	return !r.tsns.hasGaps() && r.counts.Held == r.counts.Ready && r.deferred == nil
}

// resetTSN performs the receiver's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4 and 5.2.4) once readyForTSNReset: the next TSN expected from the
// peer is next (the cumulative TSN becomes next-1) and every inbound
// stream expects stream sequence number (or message id) 0 again. Messages
// already received stay readable.
//
// No SACK goes out until the peer's first DATA in the new numbering
// arrives: a SACK reports the cumulative TSN in the new numbering, which
// acknowledges TSNs the peer never sent until it has processed our
// answer (RFC 9260 section 12.4 then has it abort), and the peer, which
// sent its request with nothing outstanding, needs none.
func (r *receiver) resetTSN(next TSN) {
	r.tsns.reset(next)
	r.acks.dups = r.acks.dups[:0]
	r.ResetIncoming(nil)
	r.acks.muted, r.acks.mutedAt = true, r.tsns.cum
}

// holdAll starts holding every DATA fragment that arrives from now on,
// for our SSN/TSN Reset Request (RFC 6525 section 5.1.4): until the
// peer's answer says where its new numbering starts (the Sender's Next
// TSN), a fragment may belong to the old numbering or to the new, which
// restarts every stream at 0. Held fragments are acknowledged as usual and
// count against the window; endHold releases them.
func (r *receiver) holdAll() { r.deferReset(r.tsns.cum, nil) }

// endHold ends holdAll. When the peer performed the reset, the fragments
// held below next (the Sender's Next TSN of its answer) go to reassembly
// with the old numbering, then every inbound stream restarts at 0 and the
// next TSN expected becomes next, unless DATA from next on already arrived
// (held, and released now with the new numbering). Otherwise everything
// held is released unchanged. It reports false when a released fragment
// broke the fragment rules (the association should abort).
func (r *receiver) endHold(performed bool, next TSN) bool {
	defer r.syncBudget()
	d := r.deferred
	r.deferred = nil
	ok := true
	release := func(f *interleave.Frag) {
		if !ok {
			r.pool.Put(f)
		} else if !r.reasm.Add(f) {
			ok = false
		}
	}
	var held []*interleave.Frag
	if d != nil {
		held = d.held
	}
	rest := held[:0]
	for _, f := range held {
		if performed && !f.TSN.LT(next) {
			rest = append(rest, f)
			continue
		}
		release(f)
	}
	if performed {
		if d := r.tsns.cum.Sub(next - 1); d >= tsnMapBits {
			// Nothing from next on arrived, or the peer moved its TSN:
			// expect next.
			r.tsns.reset(next)
		}
		r.acks.dups = r.acks.dups[:0]
		r.resetSequences()
		r.acks.dueNow = true
	}
	for i, f := range rest {
		rest[i] = nil
		release(f)
	}
	clear(held)
	r.checkPartial()
	return ok
}

// resetSequences makes every inbound stream expect stream sequence number
// (or message id) 0 again.
func (r *receiver) resetSequences() { r.resetAllIn() }

// resetAllIn resets the In record of every inbound stream. The reassembler
// does it looking only at the streams used since its last reset
// (interleave.Reassembler.ResetAll), so a flood of RE-CONFIG requests
// costs O(1) each, not a walk over every stream in use. The twin receiver
// of the tests that looks at every stream (pdAlways) does it the eager
// way, every record and RecheckAll, which the lazy reset must match.
func (r *receiver) resetAllIn() {
	if r.pdAlways {
		for _, in := range r.streams.Ins() {
			in.ResetSequence()
		}
		r.reasm.RecheckAll()
		return
	}
	r.reasm.ResetAll()
}
