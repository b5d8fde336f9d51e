package chunk

import (
	"errors"
	"strconv"
)

// Errors returned by the parsers and encoders. Every error this package
// returns matches one of them with errors.Is; most come wrapped in an
// *Error that names the element and the offending offset or value.
var (
	// ErrTruncated means the input ends before the element it declares.
	ErrTruncated = errors.New("truncated")
	// ErrBadLength means a length field is impossible for its element
	// (below the element's minimum, or not matching its counts).
	ErrBadLength = errors.New("bad length")
	// ErrBadPadding means an element is followed by an incomplete padding.
	ErrBadPadding = errors.New("bad padding")
	// ErrBadChecksum means the packet's CRC32c does not match its bytes.
	ErrBadChecksum = errors.New("bad checksum")
	// ErrBadValue means a field holds a value its element does not allow.
	ErrBadValue = errors.New("bad value")
	// ErrWrongType means an element was handed to the parser of another type.
	ErrWrongType = errors.New("wrong type")
	// ErrTooLarge means an element to encode does not fit its 16-bit length.
	ErrTooLarge = errors.New("too large")
)

// Error is a parse or encode error with its context: the element (a chunk,
// parameter or cause name), a detail, and the sentinel it wraps.
type Error struct {
	Elem   string // element being parsed or encoded, e.g. "SACK" or "STATE-COOKIE"
	Detail string // what is wrong, e.g. "gap count 3 needs 28 bytes, have 20"
	Err    error  // one of the Err* sentinels
}

// Error returns "sctp/chunk: ELEM: ERR: DETAIL".
func (e *Error) Error() string {
	s := "sctp/chunk: " + e.Elem + ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

func errf(elem string, err error, detail string) error {
	return &Error{Elem: elem, Detail: detail, Err: err}
}

// errLen reports a value of have bytes where want were needed.
func errLen(elem string, err error, want, have int) error {
	return &Error{Elem: elem, Err: err,
		Detail: "need " + strconv.Itoa(want) + " bytes, have " + strconv.Itoa(have)}
}
