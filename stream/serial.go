package stream

// Serial number arithmetic (RFC 1982) for the per-stream sequence numbers.
//
// For n-bit serial numbers a and b, a is less than b when they differ and
// the distance from a forward to b is less than 2^(n-1). When a and b are
// exactly 2^(n-1) apart, RFC 1982 leaves the comparison undefined; here
// neither LT nor GT holds for such a pair (and so neither LEQ nor GEQ).
// Add(n) is meaningful for n < 2^(n-1), as RFC 1982 section 3.1 requires.

// SSN is a DATA chunk's 16-bit Stream Sequence Number (RFC 9260 section 3.3.1).
type SSN uint16

// LT reports whether a precedes b in serial order.
func (a SSN) LT(b SSN) bool { d := b - a; return d != 0 && d < 1<<15 }

// LEQ reports whether a equals or precedes b in serial order.
func (a SSN) LEQ(b SSN) bool { return a == b || a.LT(b) }

// GT reports whether a follows b in serial order.
func (a SSN) GT(b SSN) bool { return b.LT(a) }

// GEQ reports whether a equals or follows b in serial order.
func (a SSN) GEQ(b SSN) bool { return a == b || b.LT(a) }

// Add returns a+n, wrapping.
func (a SSN) Add(n uint16) SSN { return a + SSN(n) }

// Next returns a+1, wrapping.
func (a SSN) Next() SSN { return a + 1 }

// MID is an I-DATA chunk's 32-bit Message Identifier (RFC 8260 section 2.1).
// With DATA, a stream's next SSN is kept in the low 16 bits of its MID.
type MID uint32

// LT reports whether a precedes b in serial order.
func (a MID) LT(b MID) bool { d := b - a; return d != 0 && d < 1<<31 }

// LEQ reports whether a equals or precedes b in serial order.
func (a MID) LEQ(b MID) bool { return a == b || a.LT(b) }

// GT reports whether a follows b in serial order.
func (a MID) GT(b MID) bool { return b.LT(a) }

// GEQ reports whether a equals or follows b in serial order.
func (a MID) GEQ(b MID) bool { return a == b || b.LT(a) }

// Add returns a+n, wrapping.
func (a MID) Add(n uint32) MID { return a + MID(n) }

// Next returns a+1, wrapping.
func (a MID) Next() MID { return a + 1 }

// SSN returns the low 16 bits of a: the SSN a DATA chunk carries for it.
func (a MID) SSN() SSN { return SSN(a) }

// FSN is an I-DATA chunk's 32-bit Fragment Sequence Number (RFC 8260
// section 2.1).
type FSN uint32

// LT reports whether a precedes b in serial order.
func (a FSN) LT(b FSN) bool { d := b - a; return d != 0 && d < 1<<31 }

// LEQ reports whether a equals or precedes b in serial order.
func (a FSN) LEQ(b FSN) bool { return a == b || a.LT(b) }

// GT reports whether a follows b in serial order.
func (a FSN) GT(b FSN) bool { return b.LT(a) }

// GEQ reports whether a equals or follows b in serial order.
func (a FSN) GEQ(b FSN) bool { return a == b || b.LT(a) }

// Add returns a+n, wrapping.
func (a FSN) Add(n uint32) FSN { return a + FSN(n) }

// Next returns a+1, wrapping.
func (a FSN) Next() FSN { return a + 1 }
