package kernelvm

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// A few hand-built SCTP bytes for the rig's own tests (RFC 9260 sections 3 and 3.3.2);
// the real codec lives in sctp/chunk.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sctpInit returns a packet with one INIT chunk: verification tag 0 as section 8.5.1
// requires, the given initiate tag and initial TSN, 10 streams each way.
func sctpInit(src, dst uint16, tag, tsn uint32) []byte {
	p := make([]byte, 12+20)
	binary.BigEndian.PutUint16(p[0:], src)
	binary.BigEndian.PutUint16(p[2:], dst)
	// p[4:8] verification tag 0, p[8:12] checksum
	c := p[12:]
	c[0] = 1 // INIT
	binary.BigEndian.PutUint16(c[2:], 20)
	binary.BigEndian.PutUint32(c[4:], tag)
	binary.BigEndian.PutUint32(c[8:], 65536) // a_rwnd
	binary.BigEndian.PutUint16(c[12:], 10)   // outbound streams
	binary.BigEndian.PutUint16(c[14:], 10)   // max inbound streams
	binary.BigEndian.PutUint32(c[16:], tsn)
	setCRC(p)
	return p
}

// setCRC stores the CRC32c of the packet, computed with a zero checksum field, in
// little-endian order as Linux and RFC 9260 Appendix A's reflected algorithm produce it.
func setCRC(p []byte) {
	binary.LittleEndian.PutUint32(p[8:], 0)
	binary.LittleEndian.PutUint32(p[8:], crc32.Checksum(p, castagnoli))
}

// checkCRC verifies a packet's CRC32c.
func checkCRC(p []byte) error {
	if len(p) < 12 {
		return fmt.Errorf("%d bytes: shorter than the common header", len(p))
	}
	want := binary.LittleEndian.Uint32(p[8:])
	q := append([]byte(nil), p...)
	binary.LittleEndian.PutUint32(q[8:], 0)
	if got := crc32.Checksum(q, castagnoli); got != want {
		return fmt.Errorf("checksum %#08x, computed %#08x", want, got)
	}
	return nil
}

// initAck is what the tests check in the kernel's answer.
type initAck struct {
	src, dst          uint16
	vtag              uint32 // the common header's verification tag
	initiateTag       uint32
	outStreams, inMax uint16
	tsn               uint32
}

// parseInitAck checks the checksum and that the first chunk is an INIT ACK.
func parseInitAck(p []byte) (initAck, error) {
	var a initAck
	if len(p) < 12+20 {
		return a, fmt.Errorf("%d bytes: too short for an INIT ACK", len(p))
	}
	if err := checkCRC(p); err != nil {
		return a, err
	}
	a.src = binary.BigEndian.Uint16(p[0:])
	a.dst = binary.BigEndian.Uint16(p[2:])
	a.vtag = binary.BigEndian.Uint32(p[4:])
	c := p[12:]
	if c[0] != 2 {
		return a, fmt.Errorf("first chunk type %d, want 2 (INIT ACK)", c[0])
	}
	if l := int(binary.BigEndian.Uint16(c[2:])); l < 20 || l > len(c) {
		return a, fmt.Errorf("INIT ACK length %d in %d bytes", l, len(c))
	}
	a.initiateTag = binary.BigEndian.Uint32(c[4:])
	a.outStreams = binary.BigEndian.Uint16(c[12:])
	a.inMax = binary.BigEndian.Uint16(c[14:])
	a.tsn = binary.BigEndian.Uint32(c[16:])
	return a, nil
}

// rawChunk is one chunk of a packet: its type, flags and value (after the 4-byte header).
type rawChunk struct {
	typ, flags uint8
	value      []byte
}

// chunks splits a packet after its common header (RFC 9260 section 3.2: chunks are
// padded to 4 bytes, the length leaves the padding out).
func chunks(p []byte) ([]rawChunk, error) {
	var out []rawChunk
	for b := p[12:]; len(b) > 0; {
		if len(b) < 4 {
			return out, fmt.Errorf("%d trailing bytes", len(b))
		}
		l := int(binary.BigEndian.Uint16(b[2:]))
		if l < 4 || l > len(b) {
			return out, fmt.Errorf("chunk type %d length %d in %d bytes", b[0], l, len(b))
		}
		out = append(out, rawChunk{b[0], b[1], b[4:l]})
		b = b[min((l+3)&^3, len(b)):]
	}
	return out, nil
}

// param returns the value of the first parameter of type typ in a TLV list.
func param(b []byte, typ uint16) []byte {
	for len(b) >= 4 {
		l := int(binary.BigEndian.Uint16(b[2:]))
		if l < 4 || l > len(b) {
			return nil
		}
		if binary.BigEndian.Uint16(b) == typ {
			return b[4:l]
		}
		b = b[min((l+3)&^3, len(b)):]
	}
	return nil
}

// packet builds a packet of one chunk with the given verification tag.
func packet(src, dst uint16, vtag uint32, typ, flags uint8, value []byte) []byte {
	p := make([]byte, 16, 16+len(value)+3)
	binary.BigEndian.PutUint16(p[0:], src)
	binary.BigEndian.PutUint16(p[2:], dst)
	binary.BigEndian.PutUint32(p[4:], vtag)
	p[12], p[13] = typ, flags
	binary.BigEndian.PutUint16(p[14:], uint16(4+len(value)))
	p = append(p, value...)
	for len(p)%4 != 0 {
		p = append(p, 0)
	}
	setCRC(p)
	return p
}

// dataValue is a DATA chunk's value (section 3.3.1): TSN, stream, SSN, PPID, user data.
func dataValue(tsn uint32, sid, ssn uint16, ppid uint32, data []byte) []byte {
	v := make([]byte, 12, 12+len(data))
	binary.BigEndian.PutUint32(v[0:], tsn)
	binary.BigEndian.PutUint16(v[4:], sid)
	binary.BigEndian.PutUint16(v[6:], ssn)
	binary.BigEndian.PutUint32(v[8:], ppid)
	return append(v, data...)
}

// sackValue is a SACK's value (section 3.3.4) without gap blocks or duplicates.
func sackValue(cumTSN, rwnd uint32) []byte {
	v := make([]byte, 12)
	binary.BigEndian.PutUint32(v[0:], cumTSN)
	binary.BigEndian.PutUint32(v[4:], rwnd)
	return v
}
