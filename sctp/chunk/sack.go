package chunk

import (
	"encoding/binary"
	"strconv"
)

// GapBlock is a Gap Ack Block (RFC 9260 section 3.3.4): TSNs CumTSN+Start
// through CumTSN+End were received.
type GapBlock struct {
	Start, End uint16
}

// GapList is a read-only view of the gap blocks of a parsed SACK or
// NR-SACK, aliasing the input.
type GapList struct{ b []byte }

// Len returns the number of gap blocks.
func (l GapList) Len() int { return len(l.b) / 4 }

// At returns gap block i; it panics if i is out of range, as a slice does.
func (l GapList) At(i int) GapBlock {
	p := l.b[4*i : 4*i+4]
	return GapBlock{binary.BigEndian.Uint16(p), binary.BigEndian.Uint16(p[2:])}
}

// Bytes returns the wire form of the list.
func (l GapList) Bytes() []byte { return l.b }

// TSNList is a read-only view of the duplicate TSNs of a parsed SACK or
// NR-SACK, aliasing the input.
type TSNList struct{ b []byte }

// Len returns the number of TSNs.
func (l TSNList) Len() int { return len(l.b) / 4 }

// At returns TSN i; it panics if i is out of range.
func (l TSNList) At(i int) TSN { return TSN(binary.BigEndian.Uint32(l.b[4*i:])) }

// Bytes returns the wire form of the list.
func (l TSNList) Bytes() []byte { return l.b }

// Sack is a parsed SACK chunk (RFC 9260 section 3.3.4).
type Sack struct {
	CumTSN TSN
	ARwnd  uint32
	Gaps   GapList
	Dups   TSNList
}

// ParseSack parses a SACK chunk. The gap and duplicate counts must match
// the chunk length exactly.
func ParseSack(c Chunk) (Sack, error) {
	if c.Type != TypeSack {
		return Sack{}, wrongType("SACK", c.Type)
	}
	v := c.Value
	if len(v) < 12 {
		return Sack{}, errLen("SACK", ErrBadLength, 16, c.Len())
	}
	ng := int(binary.BigEndian.Uint16(v[8:]))
	nd := int(binary.BigEndian.Uint16(v[10:]))
	if want := 12 + 4*ng + 4*nd; want != len(v) {
		return Sack{}, &Error{Elem: "SACK", Err: ErrBadLength,
			Detail: strconv.Itoa(ng) + " gaps and " + strconv.Itoa(nd) + " dups need length " +
				strconv.Itoa(4+want) + ", have " + strconv.Itoa(c.Len())}
	}
	return Sack{
		CumTSN: TSN(binary.BigEndian.Uint32(v)),
		ARwnd:  binary.BigEndian.Uint32(v[4:]),
		Gaps:   GapList{v[12 : 12+4*ng]},
		Dups:   TSNList{v[12+4*ng:]},
	}, nil
}

// Len returns the chunk's length.
func (s *Sack) Len() int { return 16 + len(s.Gaps.b) + len(s.Dups.b) }

// Append re-encodes the parsed SACK onto b.
func (s *Sack) Append(b []byte) ([]byte, error) {
	n := s.Len()
	if n > MaxLen {
		return b, errf("SACK", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeSack, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(s.CumTSN))
	binary.BigEndian.PutUint32(p[8:], s.ARwnd)
	binary.BigEndian.PutUint16(p[12:], uint16(s.Gaps.Len()))
	binary.BigEndian.PutUint16(p[14:], uint16(s.Dups.Len()))
	copy(p[16:], s.Gaps.b)
	copy(p[16+len(s.Gaps.b):], s.Dups.b)
	return b, nil
}

// SackLen returns the length of a SACK with ngaps gap blocks and ndups
// duplicate TSNs, so a sender can trim the lists to fit its packet first.
func SackLen(ngaps, ndups int) int { return 16 + 4*ngaps + 4*ndups }

// AppendSack appends a SACK chunk built from the given lists to b.
func AppendSack(b []byte, cum TSN, arwnd uint32, gaps []GapBlock, dups []TSN) ([]byte, error) {
	if len(gaps) > 0xffff || len(dups) > 0xffff || SackLen(len(gaps), len(dups)) > MaxLen {
		return b, errf("SACK", ErrTooLarge, strconv.Itoa(len(gaps))+" gaps, "+strconv.Itoa(len(dups))+" dups")
	}
	n := SackLen(len(gaps), len(dups))
	b, p := grow(b, n)
	putChunkHeader(p, TypeSack, 0, n)
	binary.BigEndian.PutUint32(p[4:], uint32(cum))
	binary.BigEndian.PutUint32(p[8:], arwnd)
	binary.BigEndian.PutUint16(p[12:], uint16(len(gaps)))
	binary.BigEndian.PutUint16(p[14:], uint16(len(dups)))
	q := p[16:]
	q = putGaps(q, gaps)
	putTSNs(q, dups)
	return b, nil
}

func putGaps(q []byte, gaps []GapBlock) []byte {
	for _, g := range gaps {
		binary.BigEndian.PutUint16(q, g.Start)
		binary.BigEndian.PutUint16(q[2:], g.End)
		q = q[4:]
	}
	return q
}

func putTSNs(q []byte, tsns []TSN) []byte {
	for _, t := range tsns {
		binary.BigEndian.PutUint32(q, uint32(t))
		q = q[4:]
	}
	return q
}

// NRSack is a parsed NR-SACK chunk (draft-tuexen-tsvwg-sctp-multipath,
// section 4.2; implemented by FreeBSD): a SACK with a second list of
// non-renegable gap blocks.
type NRSack struct {
	Flags  uint8 // FlagAllNR
	CumTSN TSN
	ARwnd  uint32
	Gaps   GapList
	NRGaps GapList
	Dups   TSNList
}

// ParseNRSack parses an NR-SACK chunk. The counts must match the length
// exactly; the reserved field is ignored.
func ParseNRSack(c Chunk) (NRSack, error) {
	if c.Type != TypeNRSack {
		return NRSack{}, wrongType("NR-SACK", c.Type)
	}
	v := c.Value
	if len(v) < 16 {
		return NRSack{}, errLen("NR-SACK", ErrBadLength, 20, c.Len())
	}
	ng := int(binary.BigEndian.Uint16(v[8:]))
	nn := int(binary.BigEndian.Uint16(v[10:]))
	nd := int(binary.BigEndian.Uint16(v[12:]))
	if want := 16 + 4*ng + 4*nn + 4*nd; want != len(v) {
		return NRSack{}, &Error{Elem: "NR-SACK", Err: ErrBadLength,
			Detail: strconv.Itoa(ng) + " gaps, " + strconv.Itoa(nn) + " nr-gaps and " + strconv.Itoa(nd) +
				" dups need length " + strconv.Itoa(4+want) + ", have " + strconv.Itoa(c.Len())}
	}
	g := v[16:]
	return NRSack{
		Flags:  c.Flags,
		CumTSN: TSN(binary.BigEndian.Uint32(v)),
		ARwnd:  binary.BigEndian.Uint32(v[4:]),
		Gaps:   GapList{g[:4*ng]},
		NRGaps: GapList{g[4*ng : 4*ng+4*nn]},
		Dups:   TSNList{g[4*ng+4*nn:]},
	}, nil
}

// Len returns the chunk's length.
func (s *NRSack) Len() int { return 20 + len(s.Gaps.b) + len(s.NRGaps.b) + len(s.Dups.b) }

// Append re-encodes the parsed NR-SACK onto b.
func (s *NRSack) Append(b []byte) ([]byte, error) {
	n := s.Len()
	if n > MaxLen {
		return b, errf("NR-SACK", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeNRSack, s.Flags, n)
	binary.BigEndian.PutUint32(p[4:], uint32(s.CumTSN))
	binary.BigEndian.PutUint32(p[8:], s.ARwnd)
	binary.BigEndian.PutUint16(p[12:], uint16(s.Gaps.Len()))
	binary.BigEndian.PutUint16(p[14:], uint16(s.NRGaps.Len()))
	binary.BigEndian.PutUint16(p[16:], uint16(s.Dups.Len()))
	binary.BigEndian.PutUint16(p[18:], 0)
	q := p[20:]
	q = q[copy(q, s.Gaps.b):]
	q = q[copy(q, s.NRGaps.b):]
	copy(q, s.Dups.b)
	return b, nil
}

// AppendNRSack appends an NR-SACK chunk built from the given lists to b.
func AppendNRSack(b []byte, flags uint8, cum TSN, arwnd uint32, gaps, nrGaps []GapBlock, dups []TSN) ([]byte, error) {
	n := 20 + 4*len(gaps) + 4*len(nrGaps) + 4*len(dups)
	if n > MaxLen {
		return b, errf("NR-SACK", ErrTooLarge, strconv.Itoa(n)+" bytes")
	}
	b, p := grow(b, n)
	putChunkHeader(p, TypeNRSack, flags, n)
	binary.BigEndian.PutUint32(p[4:], uint32(cum))
	binary.BigEndian.PutUint32(p[8:], arwnd)
	binary.BigEndian.PutUint16(p[12:], uint16(len(gaps)))
	binary.BigEndian.PutUint16(p[14:], uint16(len(nrGaps)))
	binary.BigEndian.PutUint16(p[16:], uint16(len(dups)))
	binary.BigEndian.PutUint16(p[18:], 0)
	q := putGaps(p[20:], gaps)
	q = putGaps(q, nrGaps)
	putTSNs(q, dups)
	return b, nil
}
