package chunk

import (
	"encoding/binary"
	"net/netip"
	"strconv"
)

// List16 is a read-only view of a list of 16-bit values in wire form
// (supported address types, HMAC identifiers, stream numbers, missing
// parameter types), aliasing the input.
type List16 struct{ b []byte }

// Len returns the number of values.
func (l List16) Len() int { return len(l.b) / 2 }

// At returns value i; it panics if i is out of range.
func (l List16) At(i int) uint16 { return binary.BigEndian.Uint16(l.b[2*i:]) }

// Bytes returns the wire form of the list.
func (l List16) Bytes() []byte { return l.b }

func (p Param) elem() string { return p.Type.String() }

// Uint32 returns the value of a parameter that holds exactly one 32-bit
// number: COOKIE-PRESERVATIVE (suggested cookie life-span increment in
// milliseconds), ADAPTATION-LAYER-INDICATION (adaptation code point),
// ZERO-CHECKSUM-ACCEPTABLE (error detection method identifier, RFC 9653),
// SUCCESS-INDICATION (ASCONF-Request correlation ID).
func (p Param) Uint32() (uint32, error) {
	if len(p.Value) != 4 {
		return 0, errLen(p.elem(), ErrBadLength, 8, p.Len())
	}
	return binary.BigEndian.Uint32(p.Value), nil
}

// Uint16s returns the value of a parameter that is a list of 16-bit
// numbers: SUPPORTED-ADDRESS-TYPES, REQUESTED-HMAC-ALGORITHM.
func (p Param) Uint16s() (List16, error) {
	if len(p.Value)%2 != 0 {
		return List16{}, errf(p.elem(), ErrBadLength, "odd length "+strconv.Itoa(p.Len()))
	}
	return List16{p.Value}, nil
}

// Types returns the chunk types a SUPPORTED-EXTENSIONS or CHUNK-LIST
// parameter lists, one byte each, aliasing the input.
func (p Param) Types() []byte { return p.Value }

// Empty checks a parameter that has no value: ECN-CAPABLE,
// FORWARD-TSN-SUPPORTED.
func (p Param) Empty() error {
	if len(p.Value) != 0 {
		return errLen(p.elem(), ErrBadLength, 4, p.Len())
	}
	return nil
}

// Addr returns the address of an IPV4-ADDRESS or IPV6-ADDRESS parameter.
func (p Param) Addr() (netip.Addr, error) {
	switch p.Type {
	case ParamIPv4Address:
		if len(p.Value) != 4 {
			return netip.Addr{}, errLen(p.elem(), ErrBadLength, 8, p.Len())
		}
		return netip.AddrFrom4([4]byte(p.Value)), nil
	case ParamIPv6Address:
		if len(p.Value) != 16 {
			return netip.Addr{}, errLen(p.elem(), ErrBadLength, 20, p.Len())
		}
		return netip.AddrFrom16([16]byte(p.Value)), nil
	}
	return netip.Addr{}, errf("address", ErrWrongType, "got "+p.elem())
}

// HostName returns the host name of a HOST-NAME-ADDRESS parameter without
// its terminating NUL bytes, aliasing the input. RFC 9260 deprecates the
// parameter: a receiver aborts with Unresolvable Address.
func (p Param) HostName() []byte {
	v := p.Value
	for len(v) > 0 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	return v
}

// Inner returns the parameter carried inside an UNRECOGNIZED-PARAMETER
// parameter, or inside an UNRESOLVABLE-ADDRESS cause's value.
func (p Param) Inner() (Param, error) { return parseOne(p.elem(), p.Value) }

// parseOne parses v as exactly one parameter (its padding may be absent).
func parseOne(elem string, v []byte) (Param, error) {
	it := Params(v)
	q, ok := it.Next()
	if !ok {
		if err := it.Err(); err != nil {
			return Param{}, err
		}
		return Param{}, errf(elem, ErrBadLength, "no inner parameter")
	}
	if it.Offset() != len(v) {
		return Param{}, errf(elem, ErrBadLength, "bytes after the inner parameter")
	}
	return q, nil
}

// AppendParam appends a parameter of type t with value v, padded, to b.
func AppendParam(b []byte, t ParamType, v []byte) ([]byte, error) {
	return appendTLV(b, t.String(), uint16(t), v)
}

// AppendUint32Param appends a parameter holding one 32-bit number (see
// Param.Uint32) to b.
func AppendUint32Param(b []byte, t ParamType, v uint32) []byte {
	b, p := grow(b, 8)
	binary.BigEndian.PutUint16(p, uint16(t))
	binary.BigEndian.PutUint16(p[2:], 8)
	binary.BigEndian.PutUint32(p[4:], v)
	return b
}

// AppendUint16sParam appends a parameter holding a list of 16-bit numbers
// (see Param.Uint16s), padded, to b.
func AppendUint16sParam(b []byte, t ParamType, v []uint16) ([]byte, error) {
	n := 4 + 2*len(v)
	if n > MaxLen {
		return b, errf(t.String(), ErrTooLarge, strconv.Itoa(len(v))+" values")
	}
	b, p := grow(b, pad4(n))
	binary.BigEndian.PutUint16(p, uint16(t))
	binary.BigEndian.PutUint16(p[2:], uint16(n))
	for i, x := range v {
		binary.BigEndian.PutUint16(p[4+2*i:], x)
	}
	clear(p[n:])
	return b, nil
}

// AppendEmptyParam appends a parameter without value (ECN-CAPABLE,
// FORWARD-TSN-SUPPORTED) to b.
func AppendEmptyParam(b []byte, t ParamType) []byte {
	b, p := grow(b, 4)
	binary.BigEndian.PutUint16(p, uint16(t))
	binary.BigEndian.PutUint16(p[2:], 4)
	return b
}

// AppendAddrParam appends an IPV4-ADDRESS or IPV6-ADDRESS parameter to b.
// An IPv4-mapped IPv6 address is written as IPv4. It fails for an invalid
// addr.
func AppendAddrParam(b []byte, addr netip.Addr) ([]byte, error) {
	addr = addr.Unmap()
	switch {
	case addr.Is4():
		a := addr.As4()
		return AppendParam(b, ParamIPv4Address, a[:])
	case addr.Is6():
		a := addr.As16()
		return AppendParam(b, ParamIPv6Address, a[:])
	}
	return b, errf("address", ErrBadValue, "invalid address")
}

// AppendHostNameParam appends a HOST-NAME-ADDRESS parameter, with the
// terminating NUL RFC 9260 requires, to b.
func AppendHostNameParam(b []byte, name string) ([]byte, error) {
	b, start := BeginParam(b, ParamHostNameAddress)
	b = append(b, name...)
	b = append(b, 0)
	return EndParam(b, start)
}

// EDMIDDTLS is the error detection method identifier of SCTP over DTLS
// (RFC 9653 section 7), the value of a ZERO-CHECKSUM-ACCEPTABLE parameter
// for WebRTC data channels.
const EDMIDDTLS uint32 = 1

// AppendUnrecognizedParam appends an UNRECOGNIZED-PARAMETER parameter
// wrapping p, as received, to b: what an INIT-ACK reports for an unknown
// INIT parameter whose action bits say report (RFC 9260 section 3.2.1).
func AppendUnrecognizedParam(b []byte, p Param) ([]byte, error) {
	b, start := BeginParam(b, ParamUnrecognizedParameter)
	b, err := p.Append(b)
	if err != nil {
		return b[:start], err
	}
	return EndParam(b, start)
}
