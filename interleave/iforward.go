package interleave

import (
	"errors"
	"fmt"

	"github.com/usctp/usctp/sctp/chunk"
)

// Errors of the I-DATA variant's chunk checks. They work with errors.Is.
var (
	// ErrInvalidStream: a stream identifier outside the negotiated
	// inbound streams.
	ErrInvalidStream = errors.New("interleave: invalid stream identifier")
	// ErrNoUserData: an I-DATA chunk without user data (RFC 9260 section
	// 6.2's "No User Data" applies to I-DATA as to DATA).
	ErrNoUserData = errors.New("interleave: I-DATA chunk without user data")
)

// ParseIForwardTSN parses and validates an I-FORWARD-TSN chunk (RFC 8260
// section 2.3.1) from a peer with which inStreams inbound streams were
// negotiated, appending its entries to dst. The length must be 8 + 8k
// (chunk.ErrBadLength otherwise; a trailing partial entry is not
// skipped over, unlike Linux before its 2023 fix) and every stream
// identifier below inStreams (ErrInvalidStream). Reserved bits are
// ignored: "This field is reserved. It MUST be set to 0 by the sender and
// MUST be ignored by the receiver."
func ParseIForwardTSN(c chunk.Chunk, inStreams int, dst []MIDSkip) (newCum uint32, skips []MIDSkip, err error) {
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
		skips = append(skips, MIDSkip{SID: e.SID, Unordered: e.Unordered, MID: e.MID})
	}
	return uint32(f.NewCumTSN), skips, nil
}

// CheckIData checks an I-DATA chunk from the peer before the TSN map takes
// it: user data present (ErrNoUserData: the association sends ABORT with
// "No User Data") and the stream in range (ErrInvalidStream: an ERROR with
// "Invalid Stream Identifier").
func CheckIData(d *chunk.IData, inStreams int) error {
	if len(d.Payload) == 0 {
		return ErrNoUserData
	}
	if int(d.SID) >= inStreams {
		return ErrInvalidStream
	}
	return nil
}

// FragFromIData fills a fragment from the pool with an accepted I-DATA
// chunk: the PPID from a first fragment, the FSN from the others.
func FragFromIData(p *Pool, d *chunk.IData) *Frag {
	f := p.Get(d.Payload)
	f.TSN, f.SID, f.MID, f.Flags = uint32(d.TSN), d.SID, d.MID, d.Flags&(FlagBegin|FlagEnd|FlagUnordered)
	if d.Beginning() {
		f.PPID = d.PPID
	} else {
		f.FSN = d.FSN
	}
	return f
}

// IForward collects the messages a PR-SCTP sender abandoned and writes
// I-FORWARD-TSN chunks for them (RFC 8260 section 2.3): one entry per
// stream and kind holding the highest abandoned MID. Unlike Linux's ten,
// entries are not capped: Append writes as many as the room allows and
// the rest go in the next chunk. Its zero value is ready to use.
type IForward struct {
	entries []MIDSkip
}

// Abandon records that message mid of stream sid (ordered, or unordered)
// was abandoned.
func (b *IForward) Abandon(sid uint16, unordered bool, mid uint32) {
	for i := range b.entries {
		e := &b.entries[i]
		if e.SID == sid && e.Unordered == unordered {
			if midLT(e.MID, mid) {
				e.MID = mid
			}
			return
		}
	}
	b.entries = append(b.entries, MIDSkip{SID: sid, Unordered: unordered, MID: mid})
}

// Len returns the number of entries waiting.
func (b *IForward) Len() int { return len(b.entries) }

// Reset forgets all entries (once the peer's cumulative TSN passed the
// new cumulative TSN they were sent with).
func (b *IForward) Reset() { b.entries = b.entries[:0] }

// Append appends an I-FORWARD-TSN chunk with cumulative TSN newCum and as
// many entries as fit in room bytes, and returns the packet and the number
// of entries written (those stay recorded: the chunk is sent again until
// acknowledged). Nothing is appended when room is under 8 bytes.
func (b *IForward) Append(pkt []byte, newCum uint32, room int) ([]byte, int) {
	if room < 8 {
		return pkt, 0
	}
	n := min(len(b.entries), (room-8)/8, (chunk.MaxLen-8)/8)
	var tmp [16]chunk.StreamMID
	es := tmp[:0]
	if n > len(tmp) {
		es = make([]chunk.StreamMID, 0, n)
	}
	for _, e := range b.entries[:n] {
		es = append(es, chunk.StreamMID{SID: e.SID, Unordered: e.Unordered, MID: e.MID})
	}
	pkt, _ = chunk.AppendIForwardTSN(pkt, chunk.TSN(newCum), es)
	return pkt, n
}
