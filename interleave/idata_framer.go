package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
)

// IDataFramer is the I-DATA variant's Framer (RFC 8260 section 2.1): each
// outbound stream numbers its ordered and its unordered messages with two
// independent message identifiers (stream.Out.TakeMID), and fragments
// carry a fragment sequence number, the first one implicitly 0 with the
// PPID in its place.
type IDataFramer struct {
	streams OutStreams
	// LinuxFSN numbers the second fragment of a message FSN 0, the third 1
	// and so on, as Linux's sender does, instead of RFC 8260's 1, 2, ...
	// (the first fragment is implicitly FSN 0 either way). Linux's
	// receiver (6.1, 6.12) reassembles only that numbering; usrsctp,
	// dcSCTP and Pion only RFC 8260's.
	LinuxFSN bool
	// Follow, when set, switches to Linux's numbering once that reassembler
	// has seen the peer number its own fragments that way (its Convention
	// is FSNLinux): a peer that sends Linux's numbering expects it.
	Follow *IDataReassembler
}

// NewIDataFramer returns the I-DATA variant's framer over the
// association's stream table.
func NewIDataFramer(streams OutStreams) *IDataFramer {
	return &IDataFramer{streams: streams}
}

// HeaderLen returns 20, the I-DATA chunk header length: the fragment point
// is four bytes smaller than with DATA.
func (*IDataFramer) HeaderLen() int { return chunk.IDataHeaderLen }

// NewMessage returns the MID of a new message on sid. RFC 8260 section
// 2.1: "The sender uses two counters for each outgoing stream: one for
// ordered messages and one for unordered messages. All of these counters are
// independent and initially 0. They are incremented by 1 for each user
// message." A stream outside the table gets 0.
func (f *IDataFramer) NewMessage(sid uint16, unordered bool) uint32 {
	o := f.streams.Out(sid)
	if o == nil {
		return 0
	}
	return uint32(o.TakeMID(unordered))
}

// Append appends fr as an I-DATA chunk: the PPID in the first fragment,
// the FSN (fr.FSN, counted from 0 at the first fragment) in the others.
func (f *IDataFramer) Append(b []byte, fr OutFrag) []byte {
	c := f.chunk(fr)
	b, _ = c.Append(b) // a fragment is never larger than a chunk can be
	return b
}

// AppendHole is Append without copying fr.Payload: its bytes in b are
// left as they were and the returned hole says where it belongs
// (chunk.Hole).
func (f *IDataFramer) AppendHole(b []byte, fr OutFrag) ([]byte, chunk.Hole) {
	c := f.chunk(fr)
	b, h, _ := c.AppendHole(b) // a fragment is never larger than a chunk can be
	return b, h
}

// chunk returns the I-DATA chunk of fr.
func (f *IDataFramer) chunk(fr OutFrag) chunk.IData {
	fsn := fr.FSN
	if fsn > 0 && (f.LinuxFSN || f.Follow != nil && f.Follow.conv == FSNLinux) {
		f.LinuxFSN = true // stick to it
		fsn--
	}
	return chunk.IData{Flags: fr.Flags, TSN: chunk.TSN(fr.TSN), SID: fr.SID, MID: fr.MID, PPID: fr.PPID, FSN: fsn, Payload: fr.Payload}
}
