package transfer

// TSN is a Transmission Sequence Number with serial-number arithmetic
// (RFC 1982, RFC 9260 section 1.6). It will become an alias of chunk.TSN
// when the chunk codec lands, so code written against it keeps compiling.
type TSN uint32

// LT reports whether a precedes b in serial order.
func (a TSN) LT(b TSN) bool { return a != b && int32(a-b) < 0 }

// LEQ reports whether a precedes or equals b in serial order.
func (a TSN) LEQ(b TSN) bool { return int32(a-b) <= 0 }

// GT reports whether a follows b in serial order.
func (a TSN) GT(b TSN) bool { return a != b && int32(a-b) > 0 }

// GEQ reports whether a follows or equals b in serial order.
func (a TSN) GEQ(b TSN) bool { return int32(a-b) >= 0 }

// Add returns a+n, wrapping.
func (a TSN) Add(n uint32) TSN { return a + TSN(n) }

// Next returns a+1, wrapping.
func (a TSN) Next() TSN { return a + 1 }
