package chunk

import (
	"encoding/binary"
	"strconv"
)

// Heartbeat is a HEARTBEAT or HEARTBEAT-ACK chunk (RFC 9260 sections 3.3.5
// and 3.3.6). Info is the value of its HEARTBEAT-INFO parameter, opaque to
// the receiver, which echoes it; Params is the whole parameter list.
type Heartbeat struct {
	Ack    bool
	Info   []byte
	Params []byte
}

// ParseHeartbeat parses a HEARTBEAT or HEARTBEAT-ACK chunk. The parameter
// list must be well formed and hold a HEARTBEAT-INFO parameter.
func ParseHeartbeat(c Chunk) (Heartbeat, error) {
	if c.Type != TypeHeartbeat && c.Type != TypeHeartbeatAck {
		return Heartbeat{}, wrongType("HEARTBEAT", c.Type)
	}
	if err := ValidateParams(c.Value); err != nil {
		return Heartbeat{}, err
	}
	p, ok := FindParam(c.Value, ParamHeartbeatInfo)
	if !ok {
		return Heartbeat{}, errf(c.Type.String(), ErrBadValue, "no HEARTBEAT-INFO parameter")
	}
	return Heartbeat{Ack: c.Type == TypeHeartbeatAck, Info: p.Value, Params: c.Value}, nil
}

// Append re-encodes the chunk (its whole parameter list) onto b.
func (h *Heartbeat) Append(b []byte) ([]byte, error) {
	t := TypeHeartbeat
	if h.Ack {
		t = TypeHeartbeatAck
	}
	return appendListChunk(b, t, 0, nil, h.Params)
}

// AppendHeartbeat appends a HEARTBEAT (or, with ack, a HEARTBEAT-ACK) chunk
// with one HEARTBEAT-INFO parameter holding info to b.
func AppendHeartbeat(b []byte, ack bool, info []byte) ([]byte, error) {
	t := TypeHeartbeat
	if ack {
		t = TypeHeartbeatAck
	}
	n := 8 + len(info)
	if n > MaxLen {
		return b, errf(t.String(), ErrTooLarge, "info of "+strconv.Itoa(len(info))+" bytes")
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, t, 0, n)
	binary.BigEndian.PutUint16(p[4:], uint16(ParamHeartbeatInfo))
	binary.BigEndian.PutUint16(p[6:], uint16(4+len(info)))
	copy(p[8:], info)
	clear(p[n:])
	return b, nil
}

// Abort is an ABORT chunk (RFC 9260 section 3.3.7), or an ERROR chunk
// (section 3.3.10) when parsed by ParseError: flags and the raw cause list.
// The cause list is not validated at parse time, since an ABORT must be
// acted on even when its causes are malformed; Walk reports their errors.
type Abort struct {
	Flags  uint8 // FlagT for ABORT
	Causes []byte
}

// T reports the T bit: the sender reflected the receiver's own tag.
func (a *Abort) T() bool { return a.Flags&FlagT != 0 }

// Walk returns an iterator over the causes.
func (a *Abort) Walk() CauseIter { return Causes(a.Causes) }

// ParseAbort parses an ABORT chunk.
func ParseAbort(c Chunk) (Abort, error) {
	if c.Type != TypeAbort {
		return Abort{}, wrongType("ABORT", c.Type)
	}
	return Abort{Flags: c.Flags, Causes: c.Value}, nil
}

// Append appends an ABORT chunk with the flags and causes of a to b.
func (a *Abort) Append(b []byte) ([]byte, error) {
	return appendListChunk(b, TypeAbort, a.Flags, nil, a.Causes)
}

// ParseError parses an ERROR chunk into the cause-list shape of Abort.
func ParseError(c Chunk) (Abort, error) {
	if c.Type != TypeError {
		return Abort{}, wrongType("ERROR", c.Type)
	}
	return Abort{Flags: c.Flags, Causes: c.Value}, nil
}

// AppendError appends an ERROR chunk holding the cause list causes (in wire
// form) to b.
func AppendError(b []byte, causes []byte) ([]byte, error) {
	return appendListChunk(b, TypeError, 0, nil, causes)
}

// parseTSN parses a chunk whose value is one TSN.
func parseTSN(c Chunk, t Type) (TSN, error) {
	if c.Type != t {
		return 0, wrongType(t.String(), c.Type)
	}
	if len(c.Value) != 4 {
		return 0, errLen(t.String(), ErrBadLength, 8, c.Len())
	}
	return TSN(binary.BigEndian.Uint32(c.Value)), nil
}

// appendTSN appends a chunk whose value is one TSN.
func appendTSN(b []byte, t Type, flags uint8, tsn TSN) []byte {
	b, p := grow(b, 8)
	putChunkHeader(p, t, flags, 8)
	binary.BigEndian.PutUint32(p[4:], uint32(tsn))
	return b
}

// ParseShutdown returns the cumulative TSN ack of a SHUTDOWN chunk (RFC
// 9260 section 3.3.8).
func ParseShutdown(c Chunk) (TSN, error) { return parseTSN(c, TypeShutdown) }

// AppendShutdown appends a SHUTDOWN chunk to b.
func AppendShutdown(b []byte, cum TSN) []byte { return appendTSN(b, TypeShutdown, 0, cum) }

// ParseECNE returns the lowest TSN of an ECNE chunk (RFC 9260 appendix A).
func ParseECNE(c Chunk) (TSN, error) { return parseTSN(c, TypeECNE) }

// AppendECNE appends an ECNE chunk to b.
func AppendECNE(b []byte, lowest TSN) []byte { return appendTSN(b, TypeECNE, 0, lowest) }

// ParseCWR returns the lowest TSN of a CWR chunk (RFC 9260 appendix A).
func ParseCWR(c Chunk) (TSN, error) { return parseTSN(c, TypeCWR) }

// AppendCWR appends a CWR chunk to b.
func AppendCWR(b []byte, lowest TSN) []byte { return appendTSN(b, TypeCWR, 0, lowest) }

// AppendPad appends a PAD chunk (RFC 4820 section 3) whose length field is
// n (at least 4), for path MTU probes; the padding data is zero.
func AppendPad(b []byte, n int) ([]byte, error) {
	if n < 4 || n > MaxLen {
		return b, errf("PAD", ErrBadValue, "length "+strconv.Itoa(n))
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, TypePad, 0, n)
	clear(p[4:])
	return b, nil
}
