package interleave

import (
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// OutFrag is one outgoing fragment as a variant numbers and writes it.
type OutFrag struct {
	TSN  uint32
	PPID uint32
	// MID identifies the message: its SSN (DATA, low 16 bits) or its
	// message identifier (I-DATA).
	MID uint32
	// FSN is the fragment sequence number within the message (I-DATA
	// only; 0 on the first fragment).
	FSN     uint32
	SID     uint16
	Flags   uint8 // chunk.FlagBeginning, chunk.FlagEnd, chunk.FlagUnordered (FlagImmediate passes through)
	Payload []byte
}

// Framer is the sending side of a data-transfer variant: it numbers
// messages per stream and writes fragments as chunks. The sender decides
// where to cut (lazily, when a chunk goes into a packet) and the TSN; the
// framer owns the per-stream sequence numbers and the chunk format. The
// DATA variant is NewDataFramer, the I-DATA variant (RFC 8260)
// NewIDataFramer.
type Framer interface {
	// HeaderLen returns the chunk header length: 16 for DATA, 20 for
	// I-DATA.
	HeaderLen() int
	// NewMessage returns the identifier of a new message on stream sid
	// when its first fragment is cut: for DATA the stream's next SSN if
	// ordered (RFC 9260 section 6.5: "For unordered user messages, the
	// Stream Sequence Number MUST NOT be changed"; they carry 0).
	NewMessage(sid uint16, unordered bool) uint32
	// Append appends f as a chunk, padded, to b.
	Append(b []byte, f OutFrag) []byte
}

// OutStreams is the part of the association's stream table the sending
// side uses: *stream.Table[O, I] for any O and I.
type OutStreams interface {
	Out(sid uint16) *stream.Out
}

// DataFramer is the DATA variant's Framer. The next SSN of each outbound
// stream is its Out record's (stream.Out.TakeSSN).
type DataFramer struct {
	streams OutStreams
}

// NewDataFramer returns the DATA variant's framer over the association's
// stream table.
func NewDataFramer(streams OutStreams) *DataFramer {
	return &DataFramer{streams: streams}
}

// HeaderLen returns 16, the DATA chunk header length.
func (*DataFramer) HeaderLen() int { return chunk.DataHeaderLen }

// NewMessage returns the SSN of a new message: RFC 9260 section 6.5, "The
// Stream Sequence Number of an outgoing stream MUST be incremented by 1 for
// each ordered user message sent on that outgoing stream. In particular,
// when the Stream Sequence Number reaches the value 65535, the next Stream
// Sequence Number MUST be set to 0." A stream outside the table gets 0.
func (d *DataFramer) NewMessage(sid uint16, unordered bool) uint32 {
	if unordered {
		return 0
	}
	o := d.streams.Out(sid)
	if o == nil {
		return 0
	}
	return uint32(o.TakeSSN())
}

// Append appends f as a DATA chunk.
func (d *DataFramer) Append(b []byte, f OutFrag) []byte {
	return d.AppendFields(b, f.Flags, f.TSN, f.SID, f.MID, f.PPID, f.Payload)
}

// AppendFields is Append for the fragment of these fields, without an
// OutFrag: a sender that holds the DATA variant's framer calls it
// directly, on the path of every chunk. The SSN is mid's low 16 bits.
func (*DataFramer) AppendFields(b []byte, flags uint8, tsn uint32, sid uint16, mid, ppid uint32, payload []byte) []byte {
	return chunk.AppendData(b, flags, chunk.TSN(tsn), sid, uint16(mid), ppid, payload)
}

// AppendHole is Append without copying f.Payload: its bytes in b are left
// as they were and the returned hole says where it belongs (chunk.Hole).
func (*DataFramer) AppendHole(b []byte, f OutFrag) ([]byte, chunk.Hole) {
	c := chunk.Data{Flags: f.Flags, TSN: chunk.TSN(f.TSN), SID: f.SID, SSN: uint16(f.MID), PPID: f.PPID, Payload: f.Payload}
	b, h, _ := c.AppendHole(b) // a fragment is never larger than a chunk can be
	return b, h
}
