package transfer

import (
	"fmt"
	"slices"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/stream"
)

// Stream reconfiguration (RFC 6525): the data plane's part. The
// association runs the RE-CONFIG exchange and calls these to reset stream
// numbering, hold the data of a deferred reset and add streams.

// LastAssignedTSN returns the TSN of the last DATA chunk cut (the
// "Sender's Last Assigned TSN" of an Outgoing SSN Reset Request, RFC 6525
// section 4.1), the initial TSN less one before any.
func (s *sender) LastAssignedTSN() TSN { return s.ledger.nextTSN - 1 }

// Cutting reports whether outbound stream sid has a message partly cut
// into chunks: its remaining fragments carry the message's SSN (or MID), so
// an Outgoing SSN Reset Request for sid must wait until it is fully cut.
func (s *sender) Cutting(sid uint16) bool {
	st := s.streams.PeekOutSide(sid)
	return st != nil && st.head != nil && st.head.off > 0
}

// seqLT compares message arrival numbers (serial).
func seqLT(a, b uint32) bool { return int32(a-b) < 0 }

// Outgoing resets cost no walk over the streams (issue 23: a peer's
// Incoming SSN Reset Request or SSN/TSN Reset Request naming every stream
// makes us reset all of ours, once per request). What a request must look
// at is kept as the sender works, each piece paid for once by the write or
// the cut that caused it:
//
//   - sender.seqd lists the streams whose numbering moved since the last
//     reset of every stream: Out records' MID and MIDUO move only in
//     sender.cut, the one caller of Framer.NewMessage, which lists the
//     stream. ResetOutgoing(nil) resets those; every other record reads
//     0 already.
//   - sender.resetLeft counts the streams being reset that still have a
//     message from before the reset (arrival number before resetAt) not
//     fully cut: all streams with messages queued when every stream is
//     reset (sender.queuedStreams), the named ones with messages
//     otherwise. A stream leaves the count when such a message leaves the
//     head of its queue (resetHeadGone). ResetReady is resetLeft == 0.
//   - A stream being reset is blocked (stream.ResetPending) only when it
//     would start a message written after the reset began (Queue,
//     AppendData), and listed in resetBlocked for FinishReset to reopen;
//     a named stream with nothing queued is blocked at once.
//   - sender.cutting counts the streams whose head message is partly cut
//     (Quiet).

// BeginReset starts an outgoing reset of streams sids (every stream when
// empty), for an Outgoing SSN Reset Request: the messages already written
// to them still go out with the old numbering (a message partly sent
// included), later ones wait until FinishReset. ResetReady says when the
// request may leave. It costs O(len(sids)), O(1) for every stream.
func (s *sender) BeginReset(sids []uint16) {
	s.resetAt = s.queue.nextArrival
	s.resetBlocked = s.resetBlocked[:0]
	if len(sids) == 0 {
		// Streams never used yet are blocked as they start (Queue);
		// the others as they reach a message written from now on.
		s.resetAll = true
		s.resetLeft = s.queue.queuedStreams
		return
	}
	s.resetAll, s.resetLeft = false, 0
	n := s.streams.OutCount()
	for _, sid := range sids {
		if int(sid) >= n {
			continue
		}
		switch st := s.streams.PeekOutSide(sid); {
		case st != nil && st.resetting:
			// Named twice.
		case st != nil && st.head != nil:
			st.resetting = true
			s.resetLeft++
		default:
			s.blockForReset(sid)
		}
	}
}

// ResetReady reports whether every stream of BeginReset has sent what was
// written to it before, so that nothing more of the old numbering is to
// come: the Sender's Last Assigned TSN covers all their old data, and
// their later messages wait (stream.ResetPending as they reach one). It
// costs O(1).
func (s *sender) ResetReady() bool { return s.resetLeft == 0 }

// holdsForReset reports whether st, a stream with messages queued, is
// being reset and its head message was written after the reset began: it
// must not start until FinishReset. A partly cut head is always older.
func (s *sender) holdsForReset(st *OutSide) bool {
	return (s.resetAll || st.resetting) && !seqLT(st.head.seq, s.resetAt)
}

// blockForReset blocks stream sid, being reset with nothing from before
// the reset left to cut, until FinishReset.
func (s *sender) blockForReset(sid uint16) {
	if o := s.streams.Out(sid); o.State == stream.Open {
		o.State = stream.ResetPending
		s.resetBlocked = append(s.resetBlocked, sid)
	}
	s.queue.sched.Block(sid)
}

// resetHeadGone keeps the count of the streams of the reset under way
// with a message from before it left to cut, after m left the head of
// stream st's queue (fully cut, or given up).
func (s *sender) resetHeadGone(st *OutSide, m *message) {
	if s.resetLeft > 0 && (s.resetAll || st.resetting) && seqLT(m.seq, s.resetAt) &&
		(st.head == nil || !seqLT(st.head.seq, s.resetAt)) {
		s.resetLeft--
	}
}

// FinishReset ends an outgoing reset: the streams restart their numbering
// at 0 when the peer performed it (ResetOutgoing) and send again. It costs
// O(len(sids)) and, for every stream, O(1) plus one step per stream the
// reset blocked or numbered since the last such reset (each paid for by
// the message that caused it).
func (s *sender) FinishReset(sids []uint16, performed bool) {
	if performed {
		s.ResetOutgoing(sids)
	}
	n := s.streams.OutCount()
	for _, sid := range s.resetBlocked {
		if int(sid) >= n {
			continue
		}
		if o := s.streams.Out(sid); o.State == stream.ResetPending {
			s.SetStreamState(sid, stream.Open)
		}
	}
	s.resetBlocked = trimList(s.resetBlocked)
	for _, sid := range sids {
		if int(sid) >= n {
			continue
		}
		if st := s.streams.PeekOutSide(sid); st != nil {
			st.resetting = false
		}
		if o := s.streams.Out(sid); o.State == stream.ResetPending {
			s.SetStreamState(sid, stream.Open)
		}
	}
	s.resetAll, s.resetLeft = false, 0
}

// trimList empties l, a list of stream ids, keeping its array unless it
// grew large (a list of every stream is 128 KiB): a burst of streams used
// once does not hold that memory for the association's life.
func trimList(l []uint16) []uint16 {
	if cap(l) > maxKeptList {
		return nil
	}
	return l[:0]
}

// maxKeptList is the most stream ids an emptied list keeps room for.
const maxKeptList = 1024

// noteSeq lists stream sid (st) in s.seqd: its numbering is about to move.
func (s *sender) noteSeq(st *OutSide, sid uint16) {
	st.numbered = true
	s.seqd = append(s.seqd, sid)
}

// ResetOutgoing restarts the numbering of outbound streams sids (every
// stream when sids is empty) at 0: the SSN, or with I-DATA (RFC 8260,
// where the resets of RFC 6525 act on the MID) both the ordered and the
// unordered MID. Ids out of range are skipped. Every stream costs one step
// per stream numbered since the last reset of every stream (s.seqd), not
// one per stream in use.
func (s *sender) ResetOutgoing(sids []uint16) {
	n := s.streams.OutCount()
	if len(sids) == 0 {
		for _, sid := range s.seqd {
			if int(sid) >= n {
				continue // removed since
			}
			s.streams.Out(sid).ResetSequence()
			if st := s.streams.PeekOutSide(sid); st != nil {
				st.numbered = false
			}
		}
		s.seqd = trimList(s.seqd)
		return
	}
	for _, sid := range sids {
		if int(sid) < n {
			s.streams.Out(sid).ResetSequence()
		}
	}
}

// AddOutgoing adds n outbound streams for an Add Outgoing Streams Request
// (RFC 6525 section 4.5). They cannot carry data until FinishAddOutgoing
// says the peer performed the request. It returns the first new stream id.
func (s *sender) AddOutgoing(n uint16) (first uint16, err error) {
	first, err = s.streams.AddOut(n)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStreamID, err)
	}
	return first, nil
}

// FinishAddOutgoing ends the pending AddOutgoing: when performed the new
// streams open (numbered from 0) and the scheduler learns the new count;
// otherwise they are removed again. It returns the outbound stream count.
func (s *sender) FinishAddOutgoing(performed bool) int {
	s.streams.FinishAddOut(performed)
	n := s.streams.OutCount()
	s.cfg.OutStreams = n
	if performed {
		s.queue.sched.Resize(n)
	}
	return n
}

// AddIncoming grows the inbound streams by n, for the peer's Add Outgoing
// Streams Request (RFC 6525 section 5.2.5). It fails, changing nothing,
// when the total would exceed 65535. It returns the inbound stream count.
func (r *receiver) AddIncoming(n uint16) (int, error) {
	total := r.cfg.InStreams + int(n)
	if total > stream.MaxStreams {
		return r.cfg.InStreams, fmt.Errorf("%w: %d inbound streams", ErrStreamID, total)
	}
	r.reconfStreams.ResizeIn(uint16(total))
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

// DeferReset starts "deferred reset processing" (RFC 6525 section 5.2.2
// E2): "any data arriving with a TSN larger than the Sender's Last
// Assigned TSN for the affected stream(s) MUST be queued locally and held
// until the cumulative acknowledgment point reaches the Sender's Last
// Assigned TSN." Such data is acknowledged as usual but kept out of
// reassembly until ResetIncoming. sids empty means every stream. A second
// call replaces the first (holding on to what it held).
func (r *receiver) DeferReset(last TSN, sids []uint16) {
	d := r.deferred
	if d == nil {
		d = &deferredReset{}
		r.deferred = d
	}
	d.last = last
	d.sids = append(d.sids[:0], sids...)
	slices.Sort(d.sids)
}

// Deferred reports whether a reset is deferred, and its last TSN.
func (r *receiver) Deferred() (TSN, bool) {
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
// deferred reset's included (see receiver.Charged).
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
	defer r.settle()
	n := r.reconfStreams.InCount()
	if len(sids) == 0 {
		r.resetAllIn()
	} else {
		for _, sid := range sids {
			if int(sid) < n {
				r.reconfStreams.In(sid).ResetSequence()
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
	r.maybePartial()
	return ok
}

// Quiet reports whether the sender can take part in an SSN/TSN reset
// (RFC 6525 sections 5.1.4 and 5.2.4): nothing it sent is unacknowledged,
// no FORWARD-TSN is owed and no message is partly cut into chunks (its
// remaining fragments would carry the old stream numbering). Messages
// queued and not yet cut do not count: they take the new numbering. It
// costs O(1) (sender.cutting).
func (s *sender) Quiet() bool {
	return s.ledger.outstanding() == 0 && !s.pr.forwardDue && s.queue.partlyCut == 0
}

// ResetTSN performs the sender's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4 and 5.2.4) once Quiet: the next DATA chunk carries TSN
// next, the cumulative TSN ack point (and the PR-SCTP Advanced.Peer.Ack.Point)
// becomes next-1, and every outbound stream numbers again from 0.
func (s *sender) ResetTSN(next TSN) {
	s.expectJump = false
	if next != s.ledger.nextTSN {
		s.jumped, s.jumpCum = true, s.ledger.cumAck
	}
	s.ledger.restart(next)
	s.pr.advPeerAck, s.pr.forwardSent = s.ledger.cumAck, s.ledger.cumAck
	s.pr.forwardDue = false
	s.timing = false
	s.ResetOutgoing(nil)
}

// beforeJump reports whether cum, a SACK's cumulative TSN ack, belongs to
// the TSNs used before an SSN/TSN reset moved nextTSN (by 2^31 when the
// peer follows RFC 6525 section 5.2.4 G1): a SACK delayed in the network
// that must be dropped as stale, not taken as acknowledging TSNs never
// sent. Once the new numbering has gone 2^29 TSNs on, the old numbers
// are forgotten.
func (s *sender) beforeJump(cum TSN) bool {
	if !s.jumped {
		return false
	}
	if s.ledger.cumAck.Sub(s.jumpCum) > 1<<29 && s.ledger.cumAck.Sub(s.jumpCum) < 3<<29 {
		s.jumped = false
		return false
	}
	return s.jumpCum.Sub(cum) < 1<<30
}

// Settled reports whether the receiver can take part in an SSN/TSN
// reset: every TSN up to the highest received arrived (no gap), nothing
// waits for reassembly or ordering (what is held is ready to read), and
// no incoming stream reset is deferred.
func (r *receiver) Settled() bool {
	return !r.tsns.hasGaps() && r.counts.Held == r.counts.Ready && r.deferred == nil
}

// ResetTSN performs the receiver's part of an SSN/TSN reset (RFC 6525
// sections 5.1.4 and 5.2.4) once Settled: the next TSN expected from the
// peer is next (the cumulative TSN becomes next-1) and every inbound
// stream expects stream sequence number (or message id) 0 again. Messages
// already received stay readable.
//
// No SACK goes out until the peer's first DATA in the new numbering
// arrives: a SACK reports the cumulative TSN in the new numbering, which
// acknowledges TSNs the peer never sent until it has processed our
// answer (RFC 9260 section 12.4 then has it abort), and the peer, which
// sent its request with nothing outstanding, needs none.
func (r *receiver) ResetTSN(next TSN) {
	r.tsns.reset(next)
	r.dups = r.dups[:0]
	r.ResetIncoming(nil)
	r.muted, r.muteCum = true, r.tsns.cum
}

// HoldAll starts holding every DATA fragment that arrives from now on,
// for our SSN/TSN Reset Request (RFC 6525 section 5.1.4): until the
// peer's answer says where its new numbering starts (the Sender's Next
// TSN), a fragment may belong to the old numbering or to the new, which
// restarts every stream at 0. Held fragments are acknowledged as usual and
// count against the window; EndHold releases them.
func (r *receiver) HoldAll() { r.DeferReset(r.tsns.cum, nil) }

// EndHold ends HoldAll. When the peer performed the reset, the fragments
// held below next (the Sender's Next TSN of its answer) go to reassembly
// with the old numbering, then every inbound stream restarts at 0 and the
// next TSN expected becomes next, unless DATA from next on already arrived
// (held, and released now with the new numbering). Otherwise everything
// held is released unchanged. It reports false when a released fragment
// broke the fragment rules (the association should abort).
func (r *receiver) EndHold(performed bool, next TSN) bool {
	defer r.settle()
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
		r.dups = r.dups[:0]
		r.resetSequences()
		r.sackNow = true
	}
	for i, f := range rest {
		rest[i] = nil
		release(f)
	}
	clear(held)
	r.maybePartial()
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
		for _, in := range r.reconfStreams.Ins() {
			in.ResetSequence()
		}
		r.reasm.RecheckAll()
		return
	}
	r.reasm.ResetAll()
}

// ExpectJump is called when our SSN/TSN Reset Request leaves: until
// ResetTSN (or EndJump, when it fails), a SACK acknowledging TSNs beyond
// those sent is taken as one the peer sent in the new numbering after
// performing it, its answer lost or overtaken, and dropped as stale
// rather than answered with ABORT.
func (s *sender) ExpectJump() { s.expectJump = true }

// EndJump ends ExpectJump.
func (s *sender) EndJump() { s.expectJump = false }
