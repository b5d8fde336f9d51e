package chunk

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// DataHeaderLen is the length of a DATA chunk without user data.
const DataHeaderLen = 16

// IDataHeaderLen is the length of an I-DATA chunk without user data.
const IDataHeaderLen = 20

// Data is a DATA chunk (RFC 9260 section 3.3.1). Payload aliases the
// parsed input.
type Data struct {
	Flags   uint8 // FlagUnordered | FlagBeginning | FlagEnd | FlagImmediate
	TSN     TSN
	SID     uint16
	SSN     uint16
	PPID    uint32
	Payload []byte
}

// Unordered reports the U bit.
func (d *Data) Unordered() bool { return d.Flags&FlagUnordered != 0 }

// Beginning reports the B bit.
func (d *Data) Beginning() bool { return d.Flags&FlagBeginning != 0 }

// End reports the E bit.
func (d *Data) End() bool { return d.Flags&FlagEnd != 0 }

// Immediate reports the I bit.
func (d *Data) Immediate() bool { return d.Flags&FlagImmediate != 0 }

// ParseData parses a DATA chunk. A chunk without user data parses (the
// receiver answers it with a No User Data cause, RFC 9260 section 6.2).
func ParseData(c Chunk) (Data, error) {
	v := c.Value
	if c.Type != TypeData || len(v) < DataHeaderLen-4 {
		return Data{}, dataErr(c)
	}
	h := (*[DataHeaderLen - 4]byte)(v) // the fields after the chunk header, checked once
	return Data{
		Flags:   c.Flags,
		TSN:     TSN(binary.BigEndian.Uint32(h[:])),
		SID:     binary.BigEndian.Uint16(h[4:]),
		SSN:     binary.BigEndian.Uint16(h[6:]),
		PPID:    binary.BigEndian.Uint32(h[8:]),
		Payload: v[12:],
	}, nil
}

// dataErr is the error of c, a chunk ParseData refuses, kept out of
// ParseData so that the parse of every DATA chunk received stays small.
//
//go:noinline
func dataErr(c Chunk) error {
	if c.Type != TypeData {
		return wrongType("DATA", c.Type)
	}
	return errLen("DATA", ErrBadLength, DataHeaderLen, c.Len())
}

// Len returns the chunk's length field value (without padding).
func (d *Data) Len() int { return DataHeaderLen + len(d.Payload) }

// Append appends the DATA chunk, padded, to b.
func (d *Data) Append(b []byte) ([]byte, error) {
	n := d.Len()
	if n > MaxLen {
		return b, errf("DATA", ErrTooLarge, "payload of "+strconv.Itoa(len(d.Payload))+" bytes")
	}
	b, p := grow(b, pad4(n))
	d.putHeader(p)
	copy(p[16:], d.Payload)
	if n&3 != 0 {
		clear(p[n:]) // the padding
	}
	return b, nil
}

// AppendData appends a DATA chunk of these fields, padded, to b: what
// Data.Append appends for the same fields, without a Data to fill. It is
// for the sender's hot path, whose fragments always fit a chunk: a payload
// over MaxLen - DataHeaderLen bytes panics.
func AppendData(b []byte, flags uint8, tsn TSN, sid, ssn uint16, ppid uint32, payload []byte) []byte {
	n := DataHeaderLen + len(payload)
	if n > MaxLen {
		panic("chunk: DATA payload over the chunk length limit")
	}
	l, m := len(b), pad4(n)
	if cap(b)-l < m {
		b = slices.Grow(b, m)
	}
	b = b[:l+m]
	h := (*[DataHeaderLen]byte)(b[l:]) // one bounds check for the header
	binary.BigEndian.PutUint32(h[0:], uint32(TypeData)<<24|uint32(flags)<<16|uint32(n))
	binary.BigEndian.PutUint32(h[4:], uint32(tsn))
	binary.BigEndian.PutUint32(h[8:], uint32(sid)<<16|uint32(ssn))
	binary.BigEndian.PutUint32(h[12:], ppid)
	if m != n {
		clear(b[l+n:]) // the padding
	}
	copy(b[l+DataHeaderLen:], payload)
	return b
}

// putHeader writes the chunk's header, for a payload of len(d.Payload)
// bytes, to p.
func (d *Data) putHeader(p []byte) {
	h := (*[DataHeaderLen]byte)(p) // one bounds check for the header's fields
	putChunkHeader(h[:], TypeData, d.Flags, d.Len())
	binary.BigEndian.PutUint32(h[4:], uint32(d.TSN))
	binary.BigEndian.PutUint16(h[8:], d.SID)
	binary.BigEndian.PutUint16(h[10:], d.SSN)
	binary.BigEndian.PutUint32(h[12:], d.PPID)
}

// IData is an I-DATA chunk (RFC 8260 section 2.1). The fourth word holds
// the PPID in the first fragment (B bit set) and the FSN in the others;
// the first fragment's FSN is implicitly 0.
type IData struct {
	Flags   uint8 // FlagUnordered | FlagBeginning | FlagEnd | FlagImmediate
	TSN     TSN
	SID     uint16
	MID     uint32
	PPID    uint32 // meaningful when the B bit is set
	FSN     uint32 // meaningful when the B bit is clear
	Payload []byte
}

// Unordered reports the U bit.
func (d *IData) Unordered() bool { return d.Flags&FlagUnordered != 0 }

// Beginning reports the B bit.
func (d *IData) Beginning() bool { return d.Flags&FlagBeginning != 0 }

// End reports the E bit.
func (d *IData) End() bool { return d.Flags&FlagEnd != 0 }

// Immediate reports the I bit.
func (d *IData) Immediate() bool { return d.Flags&FlagImmediate != 0 }

// ParseIData parses an I-DATA chunk. The reserved 16 bits are ignored.
func ParseIData(c Chunk) (IData, error) {
	if c.Type != TypeIData {
		return IData{}, wrongType("I-DATA", c.Type)
	}
	v := c.Value
	if len(v) < IDataHeaderLen-4 {
		return IData{}, errLen("I-DATA", ErrBadLength, IDataHeaderLen, c.Len())
	}
	d := IData{
		Flags:   c.Flags,
		TSN:     TSN(binary.BigEndian.Uint32(v)),
		SID:     binary.BigEndian.Uint16(v[4:]),
		MID:     binary.BigEndian.Uint32(v[8:]),
		Payload: v[16:],
	}
	if x := binary.BigEndian.Uint32(v[12:]); d.Beginning() {
		d.PPID = x
	} else {
		d.FSN = x
	}
	return d, nil
}

// Len returns the chunk's length field value (without padding).
func (d *IData) Len() int { return IDataHeaderLen + len(d.Payload) }

// Append appends the I-DATA chunk, padded, to b. It writes PPID when the B
// bit is set and FSN otherwise.
func (d *IData) Append(b []byte) ([]byte, error) {
	n := d.Len()
	if n > MaxLen {
		return b, errf("I-DATA", ErrTooLarge, "payload of "+strconv.Itoa(len(d.Payload))+" bytes")
	}
	b, p := grow(b, pad4(n))
	d.putHeader(p)
	copy(p[20:], d.Payload)
	clear(p[n:])
	return b, nil
}

// putHeader writes the chunk's header, for a payload of len(d.Payload)
// bytes, to p.
func (d *IData) putHeader(p []byte) {
	h := (*[IDataHeaderLen]byte)(p)
	putChunkHeader(h[:], TypeIData, d.Flags, d.Len())
	binary.BigEndian.PutUint32(h[4:], uint32(d.TSN))
	binary.BigEndian.PutUint16(h[8:], d.SID)
	binary.BigEndian.PutUint16(h[10:], 0)
	binary.BigEndian.PutUint32(h[12:], d.MID)
	x := d.FSN
	if d.Beginning() {
		x = d.PPID
	}
	binary.BigEndian.PutUint32(h[16:], x)
}

func wrongType(want string, got Type) error {
	return &Error{Elem: want, Err: ErrWrongType, Detail: "got " + got.String()}
}
