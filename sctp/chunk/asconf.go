package chunk

import (
	"encoding/binary"
	"net/netip"
	"strconv"
)

// ASCONF is an ASCONF chunk (RFC 5061 section 4.1.1), or an ASCONF-ACK
// (section 4.1.2) when Ack is set. Address is the ASCONF's address
// parameter (absent in an ASCONF-ACK); Params holds the request parameters
// (or, in an ASCONF-ACK, the responses), validated, aliasing the input.
type ASCONF struct {
	Ack     bool
	Serial  uint32
	Address Param
	Params  []byte
}

// ParseASCONF parses an ASCONF or ASCONF-ACK chunk. An ASCONF's address
// parameter must be an IPV4-ADDRESS or IPV6-ADDRESS parameter.
func ParseASCONF(c Chunk) (ASCONF, error) {
	if c.Type != TypeASCONF && c.Type != TypeASCONFAck {
		return ASCONF{}, wrongType("ASCONF", c.Type)
	}
	name := c.Type.String()
	v := c.Value
	if len(v) < 4 {
		return ASCONF{}, errLen(name, ErrBadLength, 8, c.Len())
	}
	a := ASCONF{Ack: c.Type == TypeASCONFAck, Serial: binary.BigEndian.Uint32(v)}
	rest := v[4:]
	if !a.Ack {
		it := Params(rest)
		p, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return ASCONF{}, err
			}
			return ASCONF{}, errf(name, ErrBadLength, "no address parameter")
		}
		if _, err := p.Addr(); err != nil {
			return ASCONF{}, err
		}
		a.Address = p
		rest = rest[it.Offset():]
	}
	if err := ValidateParams(rest); err != nil {
		return ASCONF{}, err
	}
	a.Params = rest
	return a, nil
}

// Type returns TypeASCONF or TypeASCONFAck.
func (a *ASCONF) Type() Type {
	if a.Ack {
		return TypeASCONFAck
	}
	return TypeASCONF
}

// Walk returns an iterator over the request or response parameters.
func (a *ASCONF) Walk() ParamIter { return Params(a.Params) }

// Len returns the chunk's length field value.
func (a *ASCONF) Len() int {
	n := 8 + listLen(a.Params)
	if !a.Ack {
		n += pad4(a.Address.Len())
	}
	return n
}

// Append appends the chunk to b; Params is copied, and the chunk length
// leaves out the last parameter's padding (RFC 9260 section 3.2).
func (a *ASCONF) Append(b []byte) ([]byte, error) {
	n := a.Len()
	if n > MaxLen {
		return b, errf(a.Type().String(), ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, a.Type(), 0, n)
	binary.BigEndian.PutUint32(p[4:], a.Serial)
	q := p[8:]
	if !a.Ack {
		al := a.Address.Len()
		binary.BigEndian.PutUint16(q, uint16(a.Address.Type))
		binary.BigEndian.PutUint16(q[2:], uint16(al))
		copy(q[4:], a.Address.Value)
		clear(q[al:pad4(al)])
		q = q[pad4(al):]
	}
	copy(q, a.Params[:n-(len(p)-len(q))])
	clear(p[n:])
	return b, nil
}

// ASCONFParam is a parsed ASCONF request or response parameter (RFC 5061
// section 4.2): ADD-IP-ADDRESS, DELETE-IP-ADDRESS and SET-PRIMARY-ADDRESS
// carry a correlation ID and an address parameter; ERROR-CAUSE-INDICATION a
// correlation ID and error causes; SUCCESS-INDICATION a correlation ID.
type ASCONFParam struct {
	Type          ParamType
	CorrelationID uint32
	Address       Param  // ADD-IP-ADDRESS, DELETE-IP-ADDRESS, SET-PRIMARY-ADDRESS
	Causes        []byte // ERROR-CAUSE-INDICATION
}

// ParseASCONFParam parses one ASCONF request or response parameter.
func ParseASCONFParam(p Param) (ASCONFParam, error) {
	name := p.Type.String()
	if len(p.Value) < 4 {
		return ASCONFParam{}, errLen(name, ErrBadLength, 8, p.Len())
	}
	a := ASCONFParam{Type: p.Type, CorrelationID: binary.BigEndian.Uint32(p.Value)}
	rest := p.Value[4:]
	switch p.Type {
	case ParamAddIPAddress, ParamDeleteIPAddress, ParamSetPrimaryAddress:
		q, err := parseOne(name, rest)
		if err != nil {
			return ASCONFParam{}, err
		}
		if _, err := q.Addr(); err != nil {
			return ASCONFParam{}, err
		}
		a.Address = q
	case ParamErrorCauseIndication:
		if err := ValidateCauses(rest); err != nil {
			return ASCONFParam{}, err
		}
		a.Causes = rest
	case ParamSuccessIndication:
		if len(rest) != 0 {
			return ASCONFParam{}, errLen(name, ErrBadLength, 8, p.Len())
		}
	default:
		return ASCONFParam{}, errf("ASCONF parameter", ErrWrongType, "got "+name)
	}
	return a, nil
}

// Append appends the parameter to b.
func (a *ASCONFParam) Append(b []byte) ([]byte, error) {
	b, start := BeginParam(b, a.Type)
	b = binary.BigEndian.AppendUint32(b, a.CorrelationID)
	var err error
	switch a.Type {
	case ParamAddIPAddress, ParamDeleteIPAddress, ParamSetPrimaryAddress:
		if b, err = a.Address.Append(b); err != nil {
			return b[:start], err
		}
	case ParamErrorCauseIndication:
		b = append(b, a.Causes...)
	}
	return EndParam(b, start)
}

// AppendASCONFAddrParam appends an ADD-IP-ADDRESS, DELETE-IP-ADDRESS or
// SET-PRIMARY-ADDRESS parameter for addr to b.
func AppendASCONFAddrParam(b []byte, t ParamType, corr uint32, addr netip.Addr) ([]byte, error) {
	b, start := BeginParam(b, t)
	b = binary.BigEndian.AppendUint32(b, corr)
	b, err := AppendAddrParam(b, addr)
	if err != nil {
		return b[:start], err
	}
	return EndParam(b, start)
}
