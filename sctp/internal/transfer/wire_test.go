package transfer

import "github.com/usctp/usctp/sctp/chunk"

// The tests play the peer over the wire format: these read back one chunk
// that the engine wrote.

// parseData fills d from one DATA chunk in wire format (chunk header
// included) and returns false when it is malformed. The payload aliases b.
func parseData(b []byte, d *Data) bool {
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

// parseSACK fills s from one SACK chunk in wire format (chunk header
// included), reusing the Gaps and Dups slices of s, and returns false when
// it is malformed.
func parseSACK(b []byte, s *SACK) bool {
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

// chunkLen returns the padded length of the chunk at the start of b, or -1
// when b does not hold a whole chunk.
func chunkLen(b []byte) int {
	it := chunk.Chunks(b)
	if _, ok := it.Next(); !ok {
		return -1
	}
	return it.Offset()
}
