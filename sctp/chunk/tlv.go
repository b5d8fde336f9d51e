package chunk

import (
	"encoding/binary"
	"strconv"
)

// Action is what RFC 9260 section 3.2 (chunks) and 3.2.1 (parameters) tell
// a receiver to do with an element whose type it does not recognize. It is
// the type's two highest-order bits.
type Action uint8

const (
	// ActionStop (00): stop processing the packet (the chunk) and discard
	// the rest; do not report.
	ActionStop Action = 0
	// ActionStopReport (01): stop processing and report the element in an
	// ERROR (or INIT-ACK/ASCONF-ACK) as unrecognized.
	ActionStopReport Action = 1
	// ActionSkip (10): skip the element and continue processing.
	ActionSkip Action = 2
	// ActionSkipReport (11): skip the element, continue, and report it.
	ActionSkipReport Action = 3
)

// Skip reports whether processing continues after the unknown element.
func (a Action) Skip() bool { return a&2 != 0 }

// Report reports whether the unknown element must be reported to the peer.
func (a Action) Report() bool { return a&1 != 0 }

// String returns "stop", "stop-report", "skip" or "skip-report".
func (a Action) String() string {
	switch a & 3 {
	case ActionStop:
		return "stop"
	case ActionStopReport:
		return "stop-report"
	case ActionSkip:
		return "skip"
	}
	return "skip-report"
}

// Chunk is one chunk as the walker found it: its type, flags and value. The
// value aliases the input, excludes the 4-byte chunk header and the padding,
// and is exactly Length-4 bytes long. Parse it with the ParseXxx function
// of its type.
type Chunk struct {
	Type  Type
	Flags uint8
	Value []byte
}

// Len returns the chunk's length field value (header plus value, no padding).
func (c Chunk) Len() int { return 4 + len(c.Value) }

// Append re-encodes c (header, value, padding) onto b.
func (c Chunk) Append(b []byte) ([]byte, error) {
	n := 4 + len(c.Value)
	if n > MaxLen {
		return b, errf(c.Type.String(), ErrTooLarge, "value of "+strconv.Itoa(len(c.Value))+" bytes")
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, c.Type, c.Flags, n)
	copy(p[4:], c.Value)
	clear(p[n:])
	return b, nil
}

// Param is one parameter (RFC 9260 section 3.2.1) as the walker found it.
// The value aliases the input, excludes the 4-byte parameter header and the
// padding.
type Param struct {
	Type  ParamType
	Value []byte
}

// Len returns the parameter's length field value.
func (p Param) Len() int { return 4 + len(p.Value) }

// Append re-encodes p (header, value, padding) onto b.
func (p Param) Append(b []byte) ([]byte, error) {
	return appendTLV(b, p.Type.String(), uint16(p.Type), p.Value)
}

// Cause is one error cause (RFC 9260 section 3.3.10) as the walker found it.
// The value aliases the input, excludes the 4-byte cause header and the
// padding.
type Cause struct {
	Code  CauseCode
	Value []byte
}

// Len returns the cause's length field value.
func (c Cause) Len() int { return 4 + len(c.Value) }

// Append re-encodes c (header, value, padding) onto b.
func (c Cause) Append(b []byte) ([]byte, error) {
	return appendTLV(b, c.Code.String(), uint16(c.Code), c.Value)
}

// tlv is the one walker behind ChunkIter, ParamIter and CauseIter. All three
// element kinds share the layout type(16) length(16) value padding; for
// chunks the type field is type(8) flags(8).
//
// Bounds: each element is bounded by its declared length, which must be at
// least 4 and fit the bytes left; the walker advances by the length rounded
// up to 4. Padding may be missing only after the last element (a chunk's
// length field does not count the padding of its last parameter, RFC 9260
// section 3.2); anything between 1 and 3 bytes short of a full padding is
// ErrBadPadding. Padding bytes are otherwise ignored, as "the receiver MUST
// ignore the padding bytes" (RFC 9260 section 3.2). The walker stops at the
// first malformed element; the elements before it stay valid.
type tlv struct {
	b    []byte
	off  int
	err  error
	kind string
}

func (w *tlv) next() (typ uint16, v []byte, ok bool) {
	if w.err != nil || w.off >= len(w.b) {
		return 0, nil, false
	}
	rest := w.b[w.off:]
	if len(rest) >= 4 {
		l := int(binary.BigEndian.Uint16(rest[2:]))
		if l >= 4 && l <= len(rest) {
			p := pad4(l)
			if p > len(rest) && l == len(rest) {
				p = l // padding may be missing after the last element only
			}
			if p <= len(rest) {
				w.off += p
				return binary.BigEndian.Uint16(rest), rest[4:l:l], true
			}
		}
	}
	w.fail(rest)
	return 0, nil, false
}

// fail records why the element at w.off is malformed. It is kept out of
// next so that the valid path stays small.
//
//go:noinline
func (w *tlv) fail(rest []byte) {
	at := " at offset " + strconv.Itoa(w.off)
	if len(rest) < 4 {
		w.err = &Error{Elem: w.kind, Err: ErrTruncated,
			Detail: "header" + at + " has " + strconv.Itoa(len(rest)) + " of 4 bytes"}
		return
	}
	l := int(binary.BigEndian.Uint16(rest[2:]))
	switch {
	case l < 4:
		w.err = &Error{Elem: w.kind, Err: ErrBadLength, Detail: "length " + strconv.Itoa(l) + at}
	case l > len(rest):
		w.err = &Error{Elem: w.kind, Err: ErrTruncated,
			Detail: "length " + strconv.Itoa(l) + at + ", " + strconv.Itoa(len(rest)) + " bytes left"}
	default:
		w.err = &Error{Elem: w.kind, Err: ErrBadPadding,
			Detail: "partial padding after length " + strconv.Itoa(l) + at}
	}
}

// ChunkIter walks the chunks of a packet. Use it as
//
//	it := chunk.Chunks(b)
//	for c, ok := it.Next(); ok; c, ok = it.Next() { ... }
//	if err := it.Err(); err != nil { ... }
type ChunkIter struct{ w tlv }

// Chunks returns an iterator over the chunks in b (the bytes after the
// common header).
func Chunks(b []byte) ChunkIter { return ChunkIter{tlv{b: b, kind: "chunk"}} }

// Next returns the next chunk; ok is false at the end or after an error.
func (it *ChunkIter) Next() (c Chunk, ok bool) {
	t, v, ok := it.w.next()
	return Chunk{Type: Type(t >> 8), Flags: uint8(t), Value: v}, ok
}

// Err returns the error that stopped the walk, or nil.
func (it *ChunkIter) Err() error { return it.w.err }

// Offset returns the offset in the walked bytes of the next element: called
// before Next, it is where the chunk Next returns starts (for example the
// start of the bytes an AUTH chunk's HMAC covers, RFC 4895 section 6.2).
func (it *ChunkIter) Offset() int { return it.w.off }

// ParamIter walks a list of parameters.
type ParamIter struct{ w tlv }

// Params returns an iterator over the parameters in b.
func Params(b []byte) ParamIter { return ParamIter{tlv{b: b, kind: "parameter"}} }

// Next returns the next parameter; ok is false at the end or after an error.
func (it *ParamIter) Next() (p Param, ok bool) {
	t, v, ok := it.w.next()
	return Param{Type: ParamType(t), Value: v}, ok
}

// Err returns the error that stopped the walk, or nil.
func (it *ParamIter) Err() error { return it.w.err }

// Offset returns the offset in the walked bytes of the next element.
func (it *ParamIter) Offset() int { return it.w.off }

// CauseIter walks a list of error causes.
type CauseIter struct{ w tlv }

// Causes returns an iterator over the error causes in b.
func Causes(b []byte) CauseIter { return CauseIter{tlv{b: b, kind: "cause"}} }

// Next returns the next cause; ok is false at the end or after an error.
func (it *CauseIter) Next() (c Cause, ok bool) {
	t, v, ok := it.w.next()
	return Cause{Code: CauseCode(t), Value: v}, ok
}

// Err returns the error that stopped the walk, or nil.
func (it *CauseIter) Err() error { return it.w.err }

// Offset returns the offset in the walked bytes of the next element.
func (it *CauseIter) Offset() int { return it.w.off }

// ValidateParams walks b as a parameter list and returns the first error.
func ValidateParams(b []byte) error {
	it := Params(b)
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	return it.Err()
}

// ValidateCauses walks b as a cause list and returns the first error.
func ValidateCauses(b []byte) error {
	it := Causes(b)
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	return it.Err()
}

func putChunkHeader(p []byte, t Type, flags uint8, n int) {
	p[0] = byte(t)
	p[1] = flags
	binary.BigEndian.PutUint16(p[2:], uint16(n))
}

// appendTLV appends a parameter or cause with a 16-bit type, padded.
func appendTLV(b []byte, name string, typ uint16, v []byte) ([]byte, error) {
	n := 4 + len(v)
	if n > MaxLen {
		return b, errf(name, ErrTooLarge, "value of "+strconv.Itoa(len(v))+" bytes")
	}
	b, p := grow(b, pad4(n))
	binary.BigEndian.PutUint16(p, typ)
	binary.BigEndian.PutUint16(p[2:], uint16(n))
	copy(p[4:], v)
	clear(p[n:])
	return b, nil
}

// BeginChunk appends a chunk header with a zero length to b and returns the
// offset of the chunk, for building a chunk whose value is appended piece by
// piece (for example parameters). Close it with EndChunk.
func BeginChunk(b []byte, t Type, flags uint8) ([]byte, int) {
	start := len(b)
	b, p := grow(b, 4)
	putChunkHeader(p, t, flags, 4)
	return b, start
}

// EndChunk sets the length of the chunk begun at start to len(b)-start and
// pads it in place. It fails with ErrTooLarge if the chunk is longer than
// MaxLen, and then truncates b back to start. The length counts every byte
// appended, so a chunk that ends with a padded parameter counts that
// padding; receivers accept both forms, and the typed encoders use the
// RFC 9260 section 3.2 form that leaves it out.
func EndChunk(b []byte, start int) ([]byte, error) {
	return endTLV(b, start)
}

// BeginParam appends a parameter header with a zero length to b and returns
// the offset of the parameter. Close it with EndParam.
func BeginParam(b []byte, t ParamType) ([]byte, int) {
	start := len(b)
	b, p := grow(b, 4)
	binary.BigEndian.PutUint16(p, uint16(t))
	binary.BigEndian.PutUint16(p[2:], 4)
	return b, start
}

// EndParam sets the length of the parameter begun at start and pads it in
// place, as EndChunk does for chunks.
func EndParam(b []byte, start int) ([]byte, error) { return endTLV(b, start) }

// BeginCause appends a cause header with a zero length to b and returns the
// offset of the cause. Close it with EndCause.
func BeginCause(b []byte, c CauseCode) ([]byte, int) {
	return BeginParam(b, ParamType(c))
}

// EndCause sets the length of the cause begun at start and pads it in
// place, as EndChunk does for chunks.
func EndCause(b []byte, start int) ([]byte, error) { return endTLV(b, start) }

func endTLV(b []byte, start int) ([]byte, error) {
	if start < 0 || start+4 > len(b) {
		return b, errf("element", ErrBadValue, "start offset "+strconv.Itoa(start)+" outside the buffer")
	}
	n := len(b) - start
	if n > MaxLen {
		return b[:start], errf("element", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	binary.BigEndian.PutUint16(b[start+2:], uint16(n))
	b, p := grow(b, pad4(n)-n)
	clear(p)
	return b, nil
}

// listLen returns the length of a parameter or cause list without the
// padding of its last element, which RFC 9260 section 3.2 leaves out of
// the enclosing chunk's length ("However, it does include any padding of
// variable-length parameters other than the last parameter in the
// chunk."). A malformed list is returned whole.
func listLen(list []byte) int {
	w := tlv{b: list}
	last := -1
	for {
		start := w.off
		if _, _, ok := w.next(); !ok {
			break
		}
		last = start
	}
	if w.err != nil || last < 0 {
		return len(list)
	}
	return last + int(binary.BigEndian.Uint16(list[last+2:]))
}

// appendListChunk appends a chunk whose value is fixed followed by the
// parameter or cause list, with the length rule of listLen.
func appendListChunk(b []byte, t Type, flags uint8, fixed []byte, list []byte) ([]byte, error) {
	n := 4 + len(fixed) + listLen(list)
	if n > MaxLen {
		return b, errf(t.String(), ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, pad4(n))
	putChunkHeader(p, t, flags, n)
	copy(p[4:], fixed)
	copy(p[4+len(fixed):n], list)
	clear(p[n:])
	return b, nil
}
