package transfer

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// handleForwardTSN processes a FORWARD-TSN chunk (RFC 3758 section 3.6) on
// an association that negotiated PR-SCTP without I-DATA. "When a FORWARD
// TSN chunk arrives, the data receiver MUST first update its cumulative
// TSN point to the value carried in the FORWARD TSN chunk, and then MUST
// further advance its cumulative TSN point locally if possible"; the
// reassembler then skips the listed streams, drops what can no longer
// complete and ends a partial delivery of an abandoned message (the reader
// sees RecvInfo.Aborted).
//
// "Note, if the "New Cumulative TSN" value carried in the arrived FORWARD
// TSN chunk is found to be behind or at the current cumulative TSN point,
// the data receiver MUST treat this FORWARD TSN as out-of-date and MUST
// NOT update its Cumulative TSN. The receiver SHOULD send a SACK to its
// peer". "Any time a FORWARD TSN chunk arrives, for the purposes of sending
// a SACK, the receiver MUST follow the same rules as if a DATA chunk had
// been received": a FORWARD-TSN stands for missing DATA, the case in
// which RFC 9260 section 6.7 asks for a SACK at once, so one is due at once
// (also when it is out of date), as for I-FORWARD-TSN.
//
// An out-of-date FORWARD-TSN still tells which messages the sender gave
// up: every TSN up to its New Cumulative TSN was received or abandoned for
// good, and the listed SSNs were skipped. Linux (6.1, the priority policy)
// sends such a chunk for a message it cut short after its first fragments
// were acknowledged: the New Cumulative TSN is the last fragment sent,
// which the receiver already has. Ignoring it would leave that message's
// fragments waiting for an end that never comes, and its ordered stream,
// then the whole window, stalled for good. So the reassembler applies
// every FORWARD-TSN within the TSN map's window behind the cumulative TSN
// (the cumulative TSN itself stays where it is, as the RFC says); older
// ones, which could name SSNs since wrapped, change nothing.
//
// The RFC does not say what to do with a FORWARD-TSN naming a stream
// outside the negotiated inbound streams, or moving the cumulative TSN
// beyond the TSN map's window (further than any DATA we would have
// accepted): such a chunk is discarded and counted (ForwardTSNsInvalid)
// and the error returned, as Linux does. With I-DATA negotiated it returns
// ErrProtocolViolation (RFC 8260 section 2.3.1).
func (r *receiver) handleForwardTSN(now time.Time, c chunk.Chunk) error {
	defer r.syncBudget()
	r.stats.ForwardTSNsIn++
	if r.idata != nil {
		return ErrProtocolViolation
	}
	f, err := chunk.ParseForwardTSN(c)
	if err != nil {
		r.stats.ForwardTSNsInvalid++
		return err
	}
	r.fwd = r.fwd[:0]
	for i := range f.Streams.Len() {
		e := f.Streams.At(i)
		if int(e.SID) >= r.cfg.InStreams {
			r.stats.ForwardTSNsInvalid++
			return fmt.Errorf("%w: FORWARD-TSN names stream %d of %d", interleave.ErrInvalidStream, e.SID, r.cfg.InStreams)
		}
		r.fwd = append(r.fwd, interleave.Skip{SID: e.SID, SSN: stream.SSN(e.SSN)})
	}
	cum := f.NewCumTSN
	if cum.GT(r.tsns.cum) && cum.Sub(r.tsns.cum) > tsnMapBits {
		r.stats.ForwardTSNsInvalid++
		return fmt.Errorf("%w: FORWARD-TSN to %d, %d beyond the cumulative TSN", ErrProtocolViolation, cum, cum.Sub(r.tsns.cum))
	}
	if !r.tsns.forwardTo(cum) {
		r.stats.ForwardTSNsStale++
		r.acks.dueNow = true
		if !r.staleApplies(cum) {
			return nil
		}
	}
	r.reasm.ForwardTSN(cum, r.fwd)
	r.acks.dueNow = true
	r.checkPartial()
	return nil
}

// staleApplies reports whether an out-of-date FORWARD-TSN or I-FORWARD-TSN
// to newCum (at or behind the cumulative TSN) is recent enough for the
// reassembler to apply its skips: within the TSN map's window.
func (r *receiver) staleApplies(newCum TSN) bool {
	return r.tsns.cum.Sub(newCum) < tsnMapBits
}
