package chunk

// TSN is an SCTP Transmission Sequence Number (RFC 9260 section 3.3.1), a
// 32-bit serial number compared with the serial number arithmetic of RFC
// 1982 (SERIAL_BITS = 32).
//
// Two TSNs exactly 2^31 apart are not ordered by RFC 1982; for them LT and GT
// both report the result of the signed difference (a.LT(b) is true when
// int32(a-b) < 0), so callers must never keep that many TSNs in flight.
type TSN uint32

// LT reports whether a precedes b (a < b in serial arithmetic).
func (a TSN) LT(b TSN) bool { return int32(a-b) < 0 }

// LEQ reports whether a precedes or equals b.
func (a TSN) LEQ(b TSN) bool { return int32(a-b) <= 0 }

// GT reports whether a follows b (a > b in serial arithmetic).
func (a TSN) GT(b TSN) bool { return int32(a-b) > 0 }

// GEQ reports whether a follows or equals b.
func (a TSN) GEQ(b TSN) bool { return int32(a-b) >= 0 }

// Add returns a+n, wrapping modulo 2^32.
func (a TSN) Add(n uint32) TSN { return a + TSN(n) }

// Next returns a+1, wrapping modulo 2^32.
func (a TSN) Next() TSN { return a + 1 }

// Sub returns the forward distance from b to a (a-b modulo 2^32).
func (a TSN) Sub(b TSN) uint32 { return uint32(a - b) }
