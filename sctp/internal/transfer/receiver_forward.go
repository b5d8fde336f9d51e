package transfer

import (
	"fmt"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// handleForwardTSN processes a FORWARD-TSN chunk (RFC 3758 section 3.6):
// "the data receiver MUST first update its cumulative TSN point to the
// value carried in the FORWARD TSN chunk, and then MUST further advance its
// cumulative TSN point locally if possible"; the reassembler skips the
// listed streams and ends a partial delivery of an abandoned message.
// "Any time a FORWARD TSN chunk arrives, for the purposes of sending a
// SACK, the receiver MUST follow the same rules as if a DATA chunk had
// been received": it stands for missing DATA, so a SACK is due at once.
//
// An out-of-date FORWARD-TSN (at or behind the cumulative TSN) leaves the
// cumulative TSN, as the RFC says, but its skips are still applied within
// the TSN map's window: Linux sends one for a message cut short after its
// first fragments were acknowledged, and ignoring it would stall that
// message's stream, then the window, for good.
//
// A chunk naming a stream outside the inbound streams or moving beyond the
// TSN map's window is discarded, counted and the error returned, as Linux
// does; with I-DATA it is ErrProtocolViolation (RFC 8260 section 2.3.1).
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

// staleApplies reports whether an out-of-date (I-)FORWARD-TSN to newCum is
// within the TSN map's window, so its skips apply.
func (r *receiver) staleApplies(newCum TSN) bool {
	return r.tsns.cum.Sub(newCum) < tsnMapBits
}
