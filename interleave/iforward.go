package interleave

import (
	"errors"
	"fmt"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// ErrInvalidStream is the error of a forward-TSN entry naming a stream
// outside the negotiated inbound streams. It works with errors.Is.
var ErrInvalidStream = errors.New("interleave: invalid stream identifier")

// ParseIForwardTSN parses and validates an I-FORWARD-TSN chunk (RFC 8260
// section 2.3.1) from a peer with which inStreams inbound streams were
// negotiated, appending its entries to dst. The length must be 8 + 8k
// (chunk.ErrBadLength otherwise; a trailing partial entry is an error,
// not skipped over) and every stream
// identifier below inStreams (ErrInvalidStream). Reserved bits are
// ignored: "This field is reserved. It MUST be set to 0 by the sender and
// MUST be ignored by the receiver."
func ParseIForwardTSN(c chunk.Chunk, inStreams int, dst []MIDSkip) (newCum chunk.TSN, skips []MIDSkip, err error) {
	f, err := chunk.ParseIForwardTSN(c)
	if err != nil {
		return 0, dst, err
	}
	skips = dst
	for i := range f.Streams.Len() {
		e := f.Streams.At(i)
		if int(e.SID) >= inStreams {
			return 0, dst, fmt.Errorf("%w: I-FORWARD-TSN entry %d names stream %d of %d", ErrInvalidStream, i, e.SID, inStreams)
		}
		skips = append(skips, MIDSkip{SID: e.SID, Unordered: e.Unordered, MID: stream.MID(e.MID)})
	}
	return f.NewCumTSN, skips, nil
}

// FragFromIData fills a fragment from the pool with an accepted I-DATA
// chunk: the PPID from a first fragment, the FSN from the others.
func FragFromIData(p *Pool, d *chunk.IData) *Frag { return FillIData(p.Get(d.Payload), d) }

// FillIData fills f, a fragment from Pool.Get or Pool.Lend holding the
// payload of an accepted I-DATA chunk, with the chunk's other fields, as
// FragFromIData does, and returns it.
func FillIData(f *Frag, d *chunk.IData) *Frag {
	f.TSN, f.SID, f.MID, f.Flags = d.TSN, d.SID, stream.MID(d.MID), d.Flags&(chunk.FlagBeginning|chunk.FlagEnd|chunk.FlagUnordered)
	if d.Beginning() {
		f.PPID = d.PPID
	} else {
		f.FSN = stream.FSN(d.FSN)
	}
	return f
}
