package chunk

import (
	"encoding/binary"
	"strconv"
)

// ReconfigResult is the result of a RE-CONFIG-RESPONSE parameter (RFC 6525
// section 4.4).
type ReconfigResult uint32

// Re-configuration results.
const (
	ReconfigSuccessNothing   ReconfigResult = 0 // Success - Nothing to do
	ReconfigSuccessPerformed ReconfigResult = 1 // Success - Performed
	ReconfigDenied           ReconfigResult = 2 // Denied
	ReconfigWrongSSN         ReconfigResult = 3 // Error - Wrong SSN
	ReconfigInProgress       ReconfigResult = 4 // Error - Request already in progress
	ReconfigBadSeq           ReconfigResult = 5 // Error - Bad Sequence Number
	ReconfigPending          ReconfigResult = 6 // In progress
)

var reconfigResults = [...]string{"success-nothing", "success-performed", "denied",
	"wrong-ssn", "in-progress", "bad-seq", "pending"}

// String returns a short lower-case name, or the number.
func (r ReconfigResult) String() string {
	if int(r) < len(reconfigResults) {
		return reconfigResults[r]
	}
	return strconv.FormatUint(uint64(r), 10)
}

// Reconfig is a RE-CONFIG chunk (RFC 6525 section 3.1): one or two
// re-configuration parameters, validated, aliasing the input.
type Reconfig struct {
	Params []byte
}

// ParseReconfig parses a RE-CONFIG chunk. It must carry one or two
// well-formed parameters (RFC 6525 section 3.1).
func ParseReconfig(c Chunk) (Reconfig, error) {
	if c.Type != TypeReconfig {
		return Reconfig{}, wrongType("RE-CONFIG", c.Type)
	}
	it := Params(c.Value)
	n := 0
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		return Reconfig{}, err
	}
	if n < 1 || n > 2 {
		return Reconfig{}, errf("RE-CONFIG", ErrBadValue, strconv.Itoa(n)+" parameters, want 1 or 2")
	}
	return Reconfig{Params: c.Value}, nil
}

// Walk returns an iterator over the parameters.
func (r *Reconfig) Walk() ParamIter { return Params(r.Params) }

// Append appends the chunk to b.
func (r *Reconfig) Append(b []byte) ([]byte, error) {
	return appendListChunk(b, TypeReconfig, 0, nil, r.Params)
}

// ReconfigParam is one RE-CONFIG parameter (RFC 6525 section 4). Which
// fields are meaningful depends on Type:
//
//   - OUTGOING-SSN-RESET-REQUEST: ReqSeq, RespSeq, LastTSN, Streams
//   - INCOMING-SSN-RESET-REQUEST: ReqSeq, Streams
//   - SSN-TSN-RESET-REQUEST: ReqSeq
//   - RE-CONFIG-RESPONSE: RespSeq, Result, and with HasTSNs SenderNextTSN
//     and ReceiverNextTSN
//   - ADD-OUTGOING-STREAMS-REQUEST, ADD-INCOMING-STREAMS-REQUEST: ReqSeq,
//     NewStreams
//
// Streams aliases the input; an empty list means all streams.
type ReconfigParam struct {
	Type            ParamType
	ReqSeq          uint32
	RespSeq         uint32
	LastTSN         TSN
	Streams         List16
	Result          ReconfigResult
	HasTSNs         bool
	SenderNextTSN   TSN
	ReceiverNextTSN TSN
	NewStreams      uint16
}

// ParseReconfigParam parses one RE-CONFIG parameter.
func ParseReconfigParam(p Param) (ReconfigParam, error) {
	name := p.Type.String()
	v := p.Value
	r := ReconfigParam{Type: p.Type}
	u32 := func(i int) uint32 { return binary.BigEndian.Uint32(v[4*i:]) }
	switch p.Type {
	case ParamOutgoingSSNReset:
		if len(v) < 12 || len(v)%2 != 0 {
			return r, errf(name, ErrBadLength, "length "+strconv.Itoa(p.Len())+" is not 16+2n")
		}
		r.ReqSeq, r.RespSeq, r.LastTSN = u32(0), u32(1), TSN(u32(2))
		r.Streams = List16{v[12:]}
	case ParamIncomingSSNReset:
		if len(v) < 4 || len(v)%2 != 0 {
			return r, errf(name, ErrBadLength, "length "+strconv.Itoa(p.Len())+" is not 8+2n")
		}
		r.ReqSeq = u32(0)
		r.Streams = List16{v[4:]}
	case ParamSSNTSNReset:
		if len(v) != 4 {
			return r, errLen(name, ErrBadLength, 8, p.Len())
		}
		r.ReqSeq = u32(0)
	case ParamReconfigResponse:
		switch len(v) {
		case 8:
		case 16:
			r.HasTSNs = true
			r.SenderNextTSN, r.ReceiverNextTSN = TSN(u32(2)), TSN(u32(3))
		default:
			return r, errf(name, ErrBadLength, "length "+strconv.Itoa(p.Len())+" is not 12 or 20")
		}
		r.RespSeq, r.Result = u32(0), ReconfigResult(u32(1))
	case ParamAddOutgoingStreams, ParamAddIncomingStreams:
		if len(v) != 8 {
			return r, errLen(name, ErrBadLength, 12, p.Len())
		}
		r.ReqSeq = u32(0)
		r.NewStreams = binary.BigEndian.Uint16(v[4:])
	default:
		return r, errf("RE-CONFIG parameter", ErrWrongType, "got "+name)
	}
	return r, nil
}

// Len returns the parameter's length field value.
func (r *ReconfigParam) Len() int {
	switch r.Type {
	case ParamOutgoingSSNReset:
		return 16 + len(r.Streams.b)
	case ParamIncomingSSNReset:
		return 8 + len(r.Streams.b)
	case ParamSSNTSNReset:
		return 8
	case ParamReconfigResponse:
		if r.HasTSNs {
			return 20
		}
		return 12
	}
	return 12
}

// Append appends the parameter, padded, to b.
func (r *ReconfigParam) Append(b []byte) ([]byte, error) {
	switch r.Type {
	case ParamOutgoingSSNReset, ParamIncomingSSNReset, ParamSSNTSNReset, ParamReconfigResponse,
		ParamAddOutgoingStreams, ParamAddIncomingStreams:
	default:
		return b, errf("RE-CONFIG parameter", ErrWrongType, "got "+r.Type.String())
	}
	n := r.Len()
	if n > MaxLen {
		return b, errf(r.Type.String(), ErrTooLarge, strconv.Itoa(r.Streams.Len())+" streams")
	}
	b, p := grow(b, pad4(n))
	binary.BigEndian.PutUint16(p, uint16(r.Type))
	binary.BigEndian.PutUint16(p[2:], uint16(n))
	q := p[4:]
	switch r.Type {
	case ParamOutgoingSSNReset:
		binary.BigEndian.PutUint32(q, r.ReqSeq)
		binary.BigEndian.PutUint32(q[4:], r.RespSeq)
		binary.BigEndian.PutUint32(q[8:], uint32(r.LastTSN))
		copy(q[12:], r.Streams.b)
	case ParamIncomingSSNReset:
		binary.BigEndian.PutUint32(q, r.ReqSeq)
		copy(q[4:], r.Streams.b)
	case ParamSSNTSNReset:
		binary.BigEndian.PutUint32(q, r.ReqSeq)
	case ParamReconfigResponse:
		binary.BigEndian.PutUint32(q, r.RespSeq)
		binary.BigEndian.PutUint32(q[4:], uint32(r.Result))
		if r.HasTSNs {
			binary.BigEndian.PutUint32(q[8:], uint32(r.SenderNextTSN))
			binary.BigEndian.PutUint32(q[12:], uint32(r.ReceiverNextTSN))
		}
	case ParamAddOutgoingStreams, ParamAddIncomingStreams:
		binary.BigEndian.PutUint32(q, r.ReqSeq)
		binary.BigEndian.PutUint16(q[4:], r.NewStreams)
		binary.BigEndian.PutUint16(q[6:], 0)
	}
	clear(p[n:])
	return b, nil
}

// MakeList16 returns a List16 holding vals in wire form, written into dst's
// storage when it has room (for building RE-CONFIG requests and
// SUPPORTED-ADDRESS-TYPES without allocating).
func MakeList16(dst []byte, vals ...uint16) List16 {
	b, p := grow(dst[:0], 2*len(vals))
	for i, v := range vals {
		binary.BigEndian.PutUint16(p[2*i:], v)
	}
	return List16{b}
}
