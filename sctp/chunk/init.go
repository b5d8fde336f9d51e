package chunk

import (
	"encoding/binary"
)

// Init is an INIT or INIT-ACK chunk (RFC 9260 sections 3.3.2 and 3.3.3):
// the fixed fields and the raw, validated parameter list, which aliases the
// input. Walk it with Params or look one up with Find.
type Init struct {
	Ack        bool // INIT-ACK rather than INIT
	Tag        uint32
	ARwnd      uint32
	OutStreams uint16
	InStreams  uint16
	InitialTSN TSN
	Params     []byte
}

// initFixedLen is the length of INIT's fixed part, header included.
const initFixedLen = 20

// ParseInit parses an INIT or INIT-ACK chunk and validates the structure
// of its parameter list. It does not judge the values (a zero tag or zero
// stream counts are the association's to refuse, RFC 9260 section 3.3.2).
func ParseInit(c Chunk) (Init, error) {
	if c.Type != TypeInit && c.Type != TypeInitAck {
		return Init{}, wrongType("INIT", c.Type)
	}
	v := c.Value
	if len(v) < initFixedLen-4 {
		return Init{}, errLen(c.Type.String(), ErrBadLength, initFixedLen, c.Len())
	}
	m := Init{
		Ack:        c.Type == TypeInitAck,
		Tag:        binary.BigEndian.Uint32(v),
		ARwnd:      binary.BigEndian.Uint32(v[4:]),
		OutStreams: binary.BigEndian.Uint16(v[8:]),
		InStreams:  binary.BigEndian.Uint16(v[10:]),
		InitialTSN: TSN(binary.BigEndian.Uint32(v[12:])),
		Params:     v[16:],
	}
	if err := ValidateParams(m.Params); err != nil {
		return Init{}, err
	}
	return m, nil
}

// Type returns TypeInit or TypeInitAck.
func (m *Init) Type() Type {
	if m.Ack {
		return TypeInitAck
	}
	return TypeInit
}

// Walk returns an iterator over the parameters.
func (m *Init) Walk() ParamIter { return Params(m.Params) }

// Find returns the first parameter of type t.
func (m *Init) Find(t ParamType) (Param, bool) { return FindParam(m.Params, t) }

// Len returns the chunk's length field value.
func (m *Init) Len() int { return initFixedLen + listLen(m.Params) }

// Append appends the chunk to b. Params must be a parameter list in wire
// form (built with the AppendXxxParam functions), which is copied; the
// chunk length leaves out the last parameter's padding (RFC 9260 section
// 3.2).
func (m *Init) Append(b []byte) ([]byte, error) {
	var f [16]byte
	binary.BigEndian.PutUint32(f[0:], m.Tag)
	binary.BigEndian.PutUint32(f[4:], m.ARwnd)
	binary.BigEndian.PutUint16(f[8:], m.OutStreams)
	binary.BigEndian.PutUint16(f[10:], m.InStreams)
	binary.BigEndian.PutUint32(f[12:], uint32(m.InitialTSN))
	return appendListChunk(b, m.Type(), 0, f[:], m.Params)
}

// FindParam returns the first parameter of type t in the list b, which the
// caller has validated (FindParam stops quietly at a malformed element).
func FindParam(b []byte, t ParamType) (Param, bool) {
	it := Params(b)
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		if p.Type == t {
			return p, true
		}
	}
	return Param{}, false
}

// ParseCookieEcho returns the state cookie a COOKIE-ECHO chunk carries
// (RFC 9260 section 3.3.11), aliasing the input.
func ParseCookieEcho(c Chunk) ([]byte, error) {
	if c.Type != TypeCookieEcho {
		return nil, wrongType("COOKIE-ECHO", c.Type)
	}
	return c.Value, nil
}

// AppendCookieEcho appends a COOKIE-ECHO chunk carrying cookie to b.
func AppendCookieEcho(b []byte, cookie []byte) ([]byte, error) {
	return Chunk{Type: TypeCookieEcho, Value: cookie}.Append(b)
}

// AppendEmpty appends a chunk without a value: COOKIE-ACK, SHUTDOWN-ACK or
// SHUTDOWN-COMPLETE (with FlagT when the tag is reflected).
func AppendEmpty(b []byte, t Type, flags uint8) []byte {
	b, p := grow(b, 4)
	putChunkHeader(p, t, flags, 4)
	return b
}

// ParseEmpty checks that c, a chunk that carries no value (COOKIE-ACK,
// SHUTDOWN-ACK, SHUTDOWN-COMPLETE), has none, and returns its flags.
func ParseEmpty(c Chunk) (uint8, error) {
	if len(c.Value) != 0 {
		return 0, errLen(c.Type.String(), ErrBadLength, 4, c.Len())
	}
	return c.Flags, nil
}
