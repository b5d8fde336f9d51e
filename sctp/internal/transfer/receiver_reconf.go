package transfer

import (
	"fmt"
	"slices"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525), the receiving side; the sending side
// is in reconf_tracker.go.

// addIncoming is Engine.AddIncoming.
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

// deferReset starts deferred reset processing (RFC 6525 section 5.2.2 E2):
// "any data arriving with a TSN larger than the Sender's Last Assigned TSN
// for the affected stream(s) MUST be queued locally and held until the
// cumulative acknowledgment point reaches the Sender's Last Assigned TSN."
// Held data is acknowledged as usual. A second call replaces the first,
// keeping what it held.
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

// addFrag hands a fragment to reassembly, or holds it for a deferred reset.
func (r *receiver) addFrag(f *interleave.Frag) bool {
	if r.defers(f) {
		return true
	}
	return r.reasm.Add(f)
}

// held returns the user bytes held, a deferred reset's included.
func (r *receiver) held() int {
	n := r.counts.Held
	if r.deferred != nil {
		n += r.deferred.bytes
	}
	return n
}

// charged returns the memory cost of the data held (interleave.Frag.Cost),
// as Linux charges an skb's truesize: within twice the receive buffer plus
// one chunk, whatever the chunk sizes.
func (r *receiver) charged() int {
	n := r.heldCost()
	if r.deferred != nil {
		n += r.deferred.cost
	}
	return n
}

// ResetIncoming is Engine.ResetIncoming.
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

// readyForTSNReset reports whether no gap is open, nothing waits for
// reassembly or ordering, and no incoming reset is deferred.
func (r *receiver) readyForTSNReset() bool {
	return !r.tsns.hasGaps() && r.counts.Held == r.counts.Ready && r.deferred == nil
}

// resetTSN performs the receiver's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4, 5.2.4). Messages received stay readable.
//
// No SACK goes out until the peer's first DATA in the new numbering: until
// it processed our answer, such a SACK would acknowledge TSNs it never
// sent, and it would abort (RFC 9260 section 12.4).
func (r *receiver) resetTSN(next TSN) {
	r.tsns.reset(next)
	r.acks.dups = r.acks.dups[:0]
	r.ResetIncoming(nil)
	r.acks.muted, r.acks.mutedAt = true, r.tsns.cum
}

// holdAll holds every arriving DATA fragment for our SSN/TSN Reset
// Request (RFC 6525 section 5.1.4): until the answer says where the new
// numbering starts, a fragment may belong to either. endHold releases
// them.
func (r *receiver) holdAll() { r.deferReset(r.tsns.cum, nil) }

// endHold ends holdAll (see Engine.FinishTSNReset).
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

// resetSequences restarts every inbound stream at SSN/MID 0.
func (r *receiver) resetSequences() { r.resetAllIn() }

// resetAllIn resets every inbound stream. The reassembler looks only at
// the streams used since its last reset, so a RE-CONFIG flood costs O(1)
// per request; pdAlways does it eagerly, which the lazy reset must match.
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
