package chunk

import (
	"encoding/binary"
	"strconv"
)

func (c Cause) elem() string { return c.Code.String() }

// StreamID returns the stream identifier of an INVALID-STREAM-IDENTIFIER
// cause (the reserved half-word is ignored).
func (c Cause) StreamID() (uint16, error) {
	if len(c.Value) != 4 {
		return 0, errLen(c.elem(), ErrBadLength, 8, c.Len())
	}
	return binary.BigEndian.Uint16(c.Value), nil
}

// MissingParams returns the parameter types a MISSING-MANDATORY-PARAMETER
// cause lists; the count field must match the length.
func (c Cause) MissingParams() (List16, error) {
	if len(c.Value) < 4 {
		return List16{}, errLen(c.elem(), ErrBadLength, 8, c.Len())
	}
	n := binary.BigEndian.Uint32(c.Value)
	rest := c.Value[4:]
	if uint64(n)*2 != uint64(len(rest)) {
		return List16{}, errf(c.elem(), ErrBadLength, "count "+strconv.FormatUint(uint64(n), 10)+
			" in "+strconv.Itoa(len(rest))+" bytes")
	}
	return List16{rest}, nil
}

// Uint32 returns the one 32-bit field of a STALE-COOKIE cause (measure of
// staleness in microseconds) or a NO-USER-DATA cause (the TSN).
func (c Cause) Uint32() (uint32, error) {
	if len(c.Value) != 4 {
		return 0, errLen(c.elem(), ErrBadLength, 8, c.Len())
	}
	return binary.BigEndian.Uint32(c.Value), nil
}

// HMACID returns the HMAC identifier of an UNSUPPORTED-HMAC-IDENTIFIER
// cause (RFC 4895 section 4.1). The value is 2 bytes (cause length 6); a
// sender that counted the padding (length 8) is accepted too.
func (c Cause) HMACID() (uint16, error) {
	if len(c.Value) != 2 && len(c.Value) != 4 {
		return 0, errLen(c.elem(), ErrBadLength, 6, c.Len())
	}
	return binary.BigEndian.Uint16(c.Value), nil
}

// Chunk returns the chunk an UNRECOGNIZED-CHUNK-TYPE cause carries. The
// chunk may be cut short by the sender, so only its header is required;
// Value is whatever of it the cause holds.
func (c Cause) Chunk() (Chunk, error) {
	v := c.Value
	if len(v) < 4 {
		return Chunk{}, errLen(c.elem(), ErrBadLength, 8, c.Len())
	}
	l := int(binary.BigEndian.Uint16(v[2:]))
	end := min(max(l, 4), len(v))
	return Chunk{Type: Type(v[0]), Flags: v[1], Value: v[4:end]}, nil
}

// Params returns an iterator over the parameters that an
// UNRECOGNIZED-PARAMETERS, RESTART-WITH-NEW-ADDRESSES or
// UNRESOLVABLE-ADDRESS cause or an RFC 5061 cause carries.
func (c Cause) Params() ParamIter { return Params(c.Value) }

// AppendCause appends an error cause with code and raw value to b.
func AppendCause(b []byte, code CauseCode, v []byte) ([]byte, error) {
	return appendTLV(b, code.String(), uint16(code), v)
}

// AppendInvalidStreamCause appends an INVALID-STREAM-IDENTIFIER cause.
func AppendInvalidStreamCause(b []byte, sid uint16) []byte {
	b, p := grow(b, 8)
	binary.BigEndian.PutUint16(p, uint16(CauseInvalidStream))
	binary.BigEndian.PutUint16(p[2:], 8)
	binary.BigEndian.PutUint16(p[4:], sid)
	binary.BigEndian.PutUint16(p[6:], 0)
	return b
}

// AppendUint32Cause appends a cause holding one 32-bit number (STALE-COOKIE,
// NO-USER-DATA) to b.
func AppendUint32Cause(b []byte, code CauseCode, v uint32) []byte {
	return AppendUint32Param(b, ParamType(code), v)
}

// AppendMissingParamsCause appends a MISSING-MANDATORY-PARAMETER cause
// listing the given parameter types to b.
func AppendMissingParamsCause(b []byte, types []ParamType) ([]byte, error) {
	n := 8 + 2*len(types)
	if n > MaxLen {
		return b, errf("MISSING-MANDATORY-PARAMETER", ErrTooLarge, strconv.Itoa(len(types))+" types")
	}
	b, p := grow(b, pad4(n))
	binary.BigEndian.PutUint16(p, uint16(CauseMissingParam))
	binary.BigEndian.PutUint16(p[2:], uint16(n))
	binary.BigEndian.PutUint32(p[4:], uint32(len(types)))
	for i, t := range types {
		binary.BigEndian.PutUint16(p[8+2*i:], uint16(t))
	}
	clear(p[n:])
	return b, nil
}

// AppendHMACCause appends an UNSUPPORTED-HMAC-IDENTIFIER cause (length 6,
// padded) to b.
func AppendHMACCause(b []byte, id uint16) []byte {
	b, p := grow(b, 8)
	binary.BigEndian.PutUint16(p, uint16(CauseUnsupportedHMAC))
	binary.BigEndian.PutUint16(p[2:], 6)
	binary.BigEndian.PutUint16(p[4:], id)
	binary.BigEndian.PutUint16(p[6:], 0)
	return b
}

// AppendUnrecognizedChunkCause appends an UNRECOGNIZED-CHUNK-TYPE cause
// carrying the chunk c (header and value, as received) to b, for the ERROR
// that RFC 9260 section 3.2 asks for when an unknown chunk's action bits
// say report.
func AppendUnrecognizedChunkCause(b []byte, c Chunk) ([]byte, error) {
	b, start := BeginCause(b, CauseUnrecognizedChunk)
	b, err := c.Append(b)
	if err != nil {
		return b[:start], err
	}
	// The cause's length counts the chunk without its padding.
	b = b[:len(b)-(pad4(c.Len())-c.Len())]
	return EndCause(b, start)
}

// AppendUnrecognizedParamsCause appends an UNRECOGNIZED-PARAMETERS cause
// carrying the parameters ps, as received, to b (RFC 9260 section 3.3.10.8).
func AppendUnrecognizedParamsCause(b []byte, ps ...Param) ([]byte, error) {
	b, start := BeginCause(b, CauseUnrecognizedParams)
	var err error
	for _, p := range ps {
		if b, err = p.Append(b); err != nil {
			return b[:start], err
		}
	}
	return EndCause(b, start)
}
