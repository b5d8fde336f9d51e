package chunk

import (
	"encoding/binary"
	"strconv"
)

// StreamSSN is one stream entry of a FORWARD-TSN chunk.
type StreamSSN struct {
	SID uint16
	SSN uint16
}

// StreamSSNList is a read-only view of a FORWARD-TSN's stream entries.
type StreamSSNList struct{ b []byte }

// Len returns the number of entries.
func (l StreamSSNList) Len() int { return len(l.b) / 4 }

// At returns entry i; it panics if i is out of range.
func (l StreamSSNList) At(i int) StreamSSN {
	p := l.b[4*i : 4*i+4]
	return StreamSSN{binary.BigEndian.Uint16(p), binary.BigEndian.Uint16(p[2:])}
}

// Bytes returns the wire form of the list.
func (l StreamSSNList) Bytes() []byte { return l.b }

// ForwardTSN is a FORWARD-TSN chunk (RFC 3758 section 3.2).
type ForwardTSN struct {
	NewCumTSN TSN
	Streams   StreamSSNList
}

// ParseForwardTSN parses a FORWARD-TSN chunk; the entries must fill the
// value exactly.
func ParseForwardTSN(c Chunk) (ForwardTSN, error) {
	if c.Type != TypeForwardTSN {
		return ForwardTSN{}, wrongType("FORWARD-TSN", c.Type)
	}
	v := c.Value
	if len(v) < 4 || len(v)%4 != 0 {
		return ForwardTSN{}, errf("FORWARD-TSN", ErrBadLength, "length "+strconv.Itoa(c.Len())+" is not 8+4n")
	}
	return ForwardTSN{NewCumTSN: TSN(binary.BigEndian.Uint32(v)), Streams: StreamSSNList{v[4:]}}, nil
}

// Len returns the chunk's length.
func (f *ForwardTSN) Len() int { return 8 + len(f.Streams.b) }

// Append re-encodes the parsed chunk onto b.
func (f *ForwardTSN) Append(b []byte) ([]byte, error) {
	n := f.Len()
	if n > MaxLen {
		return b, errf("FORWARD-TSN", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeForwardTSN, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(f.NewCumTSN))
	copy(p[8:], f.Streams.b)
	return b, nil
}

// AppendForwardTSN appends a FORWARD-TSN chunk to b.
func AppendForwardTSN(b []byte, cum TSN, streams []StreamSSN) ([]byte, error) {
	n := 8 + 4*len(streams)
	if n > MaxLen {
		return b, errf("FORWARD-TSN", ErrTooLarge, strconv.Itoa(len(streams))+" streams")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeForwardTSN, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(cum))
	for i, s := range streams {
		binary.BigEndian.PutUint16(p[8+4*i:], s.SID)
		binary.BigEndian.PutUint16(p[10+4*i:], s.SSN)
	}
	return b, nil
}

// StreamMID is one stream entry of an I-FORWARD-TSN chunk.
type StreamMID struct {
	SID       uint16
	Unordered bool // the U bit: MID names an unordered message
	MID       uint32
}

// StreamMIDList is a read-only view of an I-FORWARD-TSN's stream entries.
type StreamMIDList struct{ b []byte }

// Len returns the number of entries.
func (l StreamMIDList) Len() int { return len(l.b) / 8 }

// At returns entry i; it panics if i is out of range. Reserved bits are
// ignored.
func (l StreamMIDList) At(i int) StreamMID {
	p := l.b[8*i : 8*i+8]
	return StreamMID{
		SID:       binary.BigEndian.Uint16(p),
		Unordered: p[3]&1 != 0,
		MID:       binary.BigEndian.Uint32(p[4:]),
	}
}

// Bytes returns the wire form of the list.
func (l StreamMIDList) Bytes() []byte { return l.b }

// IForwardTSN is an I-FORWARD-TSN chunk (RFC 8260 section 2.3.1).
type IForwardTSN struct {
	NewCumTSN TSN
	Streams   StreamMIDList
}

// ParseIForwardTSN parses an I-FORWARD-TSN chunk; the entries must fill
// the value exactly.
func ParseIForwardTSN(c Chunk) (IForwardTSN, error) {
	if c.Type != TypeIForwardTSN {
		return IForwardTSN{}, wrongType("I-FORWARD-TSN", c.Type)
	}
	v := c.Value
	if len(v) < 4 || (len(v)-4)%8 != 0 {
		return IForwardTSN{}, errf("I-FORWARD-TSN", ErrBadLength, "length "+strconv.Itoa(c.Len())+" is not 8+8n")
	}
	return IForwardTSN{NewCumTSN: TSN(binary.BigEndian.Uint32(v)), Streams: StreamMIDList{v[4:]}}, nil
}

// Len returns the chunk's length.
func (f *IForwardTSN) Len() int { return 8 + len(f.Streams.b) }

// Append re-encodes the parsed chunk onto b.
func (f *IForwardTSN) Append(b []byte) ([]byte, error) {
	n := f.Len()
	if n > MaxLen {
		return b, errf("I-FORWARD-TSN", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeIForwardTSN, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(f.NewCumTSN))
	copy(p[8:], f.Streams.b)
	return b, nil
}

// AppendIForwardTSN appends an I-FORWARD-TSN chunk to b.
func AppendIForwardTSN(b []byte, cum TSN, streams []StreamMID) ([]byte, error) {
	n := 8 + 8*len(streams)
	if n > MaxLen {
		return b, errf("I-FORWARD-TSN", ErrTooLarge, strconv.Itoa(len(streams))+" streams")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeIForwardTSN, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(cum))
	for i, s := range streams {
		q := p[8+8*i:]
		binary.BigEndian.PutUint16(q, s.SID)
		var u uint16
		if s.Unordered {
			u = 1
		}
		binary.BigEndian.PutUint16(q[2:], u)
		binary.BigEndian.PutUint32(q[4:], s.MID)
	}
	return b, nil
}
