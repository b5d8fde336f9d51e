package transfer

import "github.com/usctp/usctp/sctp/chunk"

// Sizes and flags of the DATA and SACK chunks (RFC 9260 section 3.3).
const (
	dataHeaderLen = chunk.DataHeaderLen
	sackHeaderLen = 16

	flagEnd       = chunk.FlagEnd
	flagBegin     = chunk.FlagBeginning
	flagUnordered = chunk.FlagUnordered
	flagImmediate = chunk.FlagImmediate
)

// FlagEnd, FlagBegin, FlagUnordered and FlagImmediate are the DATA chunk
// flags (RFC 9260 section 3.3.1) as they appear in Data.Flags.
const (
	FlagEnd       = flagEnd
	FlagBegin     = flagBegin
	FlagUnordered = flagUnordered
	FlagImmediate = flagImmediate
)

func pad4(n int) int { return (n + 3) &^ 3 }

// ParseData fills d from one DATA chunk in wire format (chunk header
// included) and returns false when it is malformed. The payload aliases b.
func ParseData(b []byte, d *Data) bool {
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok || c.Type != chunk.TypeData {
		return false
	}
	v, err := chunk.ParseData(c)
	if err != nil {
		return false
	}
	*d = v
	return true
}

// ParseSACK fills s from one SACK chunk in wire format (chunk header
// included), reusing the Gaps and Dups slices of s, and returns false when
// it is malformed.
func ParseSACK(b []byte, s *SACK) bool {
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok || c.Type != chunk.TypeSack {
		return false
	}
	v, err := chunk.ParseSack(c)
	if err != nil {
		return false
	}
	s.SetFrom(&v)
	return true
}

// ChunkLen returns the padded length of the chunk at the start of b, or -1
// when b does not hold a whole chunk.
func ChunkLen(b []byte) int {
	it := chunk.Chunks(b)
	if _, ok := it.Next(); !ok {
		return -1
	}
	return it.Offset()
}
