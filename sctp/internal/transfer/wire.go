package transfer

import "encoding/binary"

// This file holds the little wire encoding the engine needs until the
// sctp/chunk codec lands; then these helpers call it instead.

// Chunk types and DATA flags of RFC 9260 section 3.3.
const (
	typeDATA = 0
	typeSACK = 3

	flagEnd       = 0x01 // E bit: last fragment
	flagBegin     = 0x02 // B bit: first fragment
	flagUnordered = 0x04 // U bit
	flagImmediate = 0x08 // I bit (RFC 7053)

	dataHeaderLen = 16
	sackHeaderLen = 16
)

// FlagEnd, FlagBegin, FlagUnordered and FlagImmediate are the DATA chunk
// flags (RFC 9260 section 3.3.1, RFC 7053) as they appear in Data.Flags.
const (
	FlagEnd       = flagEnd
	FlagBegin     = flagBegin
	FlagUnordered = flagUnordered
	FlagImmediate = flagImmediate
)

func pad4(n int) int { return (n + 3) &^ 3 }

// appendDataChunk appends one DATA chunk with its padding.
func appendDataChunk(b []byte, flags uint8, tsn TSN, sid, ssn uint16, ppid uint32, payload []byte) []byte {
	b = append(b, typeDATA, flags, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	h := b[len(b)-dataHeaderLen:]
	binary.BigEndian.PutUint16(h[2:], uint16(dataHeaderLen+len(payload)))
	binary.BigEndian.PutUint32(h[4:], uint32(tsn))
	binary.BigEndian.PutUint16(h[8:], sid)
	binary.BigEndian.PutUint16(h[10:], ssn)
	binary.BigEndian.PutUint32(h[12:], ppid)
	b = append(b, payload...)
	for i := len(payload); i&3 != 0; i++ {
		b = append(b, 0)
	}
	return b
}

// appendSACKHeader appends the fixed part of a SACK chunk; the caller
// appends the gap blocks and duplicate TSNs and then calls finishChunk.
func appendSACKHeader(b []byte, cum TSN, arwnd uint32, gaps, dups int) []byte {
	b = append(b, typeSACK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	h := b[len(b)-sackHeaderLen:]
	binary.BigEndian.PutUint16(h[2:], uint16(sackHeaderLen+4*gaps+4*dups))
	binary.BigEndian.PutUint32(h[4:], uint32(cum))
	binary.BigEndian.PutUint32(h[8:], arwnd)
	binary.BigEndian.PutUint16(h[12:], uint16(gaps))
	binary.BigEndian.PutUint16(h[14:], uint16(dups))
	return b
}

// ParseData fills d from one DATA chunk in wire format (chunk header
// included) and returns false when it is malformed. The payload aliases b.
// It serves tests and the simulated network until the chunk codec lands.
func ParseData(b []byte, d *Data) bool {
	if len(b) < dataHeaderLen || b[0] != typeDATA {
		return false
	}
	l := int(binary.BigEndian.Uint16(b[2:]))
	if l < dataHeaderLen || l > len(b) {
		return false
	}
	*d = Data{
		Flags:   b[1],
		TSN:     TSN(binary.BigEndian.Uint32(b[4:])),
		SID:     binary.BigEndian.Uint16(b[8:]),
		SSN:     binary.BigEndian.Uint16(b[10:]),
		PPID:    binary.BigEndian.Uint32(b[12:]),
		Payload: b[dataHeaderLen:l],
	}
	return true
}

// ParseSACK fills s from one SACK chunk in wire format, reusing the Gaps
// and Dups slices of s, and returns false when it is malformed. It serves
// tests and the simulated network until the chunk codec lands.
func ParseSACK(b []byte, s *SACK) bool {
	if len(b) < sackHeaderLen || b[0] != typeSACK {
		return false
	}
	l := int(binary.BigEndian.Uint16(b[2:]))
	ng := int(binary.BigEndian.Uint16(b[12:]))
	nd := int(binary.BigEndian.Uint16(b[14:]))
	if l > len(b) || l != sackHeaderLen+4*ng+4*nd {
		return false
	}
	s.CumTSNAck = TSN(binary.BigEndian.Uint32(b[4:]))
	s.ARwnd = binary.BigEndian.Uint32(b[8:])
	s.Gaps, s.Dups = s.Gaps[:0], s.Dups[:0]
	p := b[sackHeaderLen:]
	for range ng {
		s.Gaps = append(s.Gaps, GapBlock{binary.BigEndian.Uint16(p), binary.BigEndian.Uint16(p[2:])})
		p = p[4:]
	}
	for range nd {
		s.Dups = append(s.Dups, TSN(binary.BigEndian.Uint32(p)))
		p = p[4:]
	}
	return true
}

// ChunkLen returns the padded length of the chunk at the start of b, or -1
// when b does not hold a whole chunk.
func ChunkLen(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	l := pad4(int(binary.BigEndian.Uint16(b[2:])))
	if l < 4 {
		return -1
	}
	if l > len(b) {
		if int(binary.BigEndian.Uint16(b[2:])) == len(b) {
			return len(b) // unpadded last chunk
		}
		return -1
	}
	return l
}
