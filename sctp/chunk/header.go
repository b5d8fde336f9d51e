package chunk

import (
	"encoding/binary"
	"slices"

	"github.com/usctp/usctp/internal/crc32c"
)

// HeaderLen is the size of the SCTP common header (RFC 9260 section 3.1).
const HeaderLen = 12

// MaxLen is the largest chunk, parameter or cause length field value.
const MaxLen = 0xffff

// Header is the SCTP common header (RFC 9260 section 3.1).
type Header struct {
	SrcPort uint16
	DstPort uint16
	Tag     uint32 // verification tag
	// Checksum is the CRC32c field as the number hash/crc32 computes; it is
	// stored on the wire in little-endian byte order (RFC 9260 appendix B,
	// like iSCSI), so Wireshark shows the same bytes reversed.
	Checksum uint32
}

// ParseHeader parses the common header at the start of b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, errLen("common header", ErrTruncated, HeaderLen, len(b))
	}
	return Header{
		SrcPort:  binary.BigEndian.Uint16(b[0:]),
		DstPort:  binary.BigEndian.Uint16(b[2:]),
		Tag:      binary.BigEndian.Uint32(b[4:]),
		Checksum: binary.LittleEndian.Uint32(b[8:]),
	}, nil
}

// Append appends the 12-byte common header to b, with h.Checksum as given
// (usually 0, filled in later by SetChecksum).
func (h Header) Append(b []byte) []byte {
	b, p := grow(b, HeaderLen)
	q := (*[HeaderLen]byte)(p) // one bounds check for the fields
	binary.BigEndian.PutUint16(q[0:], h.SrcPort)
	binary.BigEndian.PutUint16(q[2:], h.DstPort)
	binary.BigEndian.PutUint32(q[4:], h.Tag)
	binary.LittleEndian.PutUint32(q[8:], h.Checksum)
	return b
}

// Checksum computes the CRC32c of a whole packet as RFC 9260 appendix B
// defines it: over all bytes with the checksum field taken as zero. It does
// not modify pkt. A pkt shorter than the common header yields 0.
func Checksum(pkt []byte) uint32 {
	if len(pkt) < HeaderLen {
		return 0
	}
	return crc32c.ChecksumPacket(pkt)
}

// SetChecksum computes the packet's CRC32c and stores it in its header.
// It does nothing to a pkt shorter than the common header.
func SetChecksum(pkt []byte) {
	if len(pkt) < HeaderLen {
		return
	}
	binary.LittleEndian.PutUint32(pkt[8:], Checksum(pkt))
}

// SetZeroChecksum stores 0 in the packet's checksum field, as a sender that
// uses the zero checksum of RFC 9653 does. Only call it for a packet that RFC
// 9653 section 5.3 lets go without a checksum (never for one with an INIT,
// nor before the peer announced the Zero Checksum Acceptable parameter).
func SetZeroChecksum(pkt []byte) {
	if len(pkt) < HeaderLen {
		return
	}
	binary.LittleEndian.PutUint32(pkt[8:], 0)
}

// ChecksumResult says how VerifyChecksum accepted a packet.
type ChecksumResult uint8

const (
	// ChecksumValid means the CRC32c matched.
	ChecksumValid ChecksumResult = iota
	// ChecksumZero means the checksum field was zero and zero was accepted
	// (RFC 9653); the CRC32c was not computed.
	ChecksumZero
)

// VerifyChecksum checks the packet's CRC32c. With acceptZero (the local end
// announced Zero Checksum Acceptable, RFC 9653 section 5.4, and the packet
// belongs to that association) a zero checksum field is accepted without
// computing the CRC: RFC 9653 says the receiver "MUST accept" it. A non-zero
// field is always verified. It returns an error matching ErrBadChecksum or
// ErrTruncated, or how the packet passed.
func VerifyChecksum(pkt []byte, acceptZero bool) (ChecksumResult, error) {
	if len(pkt) < HeaderLen {
		return 0, errLen("common header", ErrTruncated, HeaderLen, len(pkt))
	}
	got := binary.LittleEndian.Uint32(pkt[8:])
	if got == 0 && acceptZero {
		return ChecksumZero, nil
	}
	if want := Checksum(pkt); got != want {
		return 0, &Error{Elem: "packet", Err: ErrBadChecksum,
			Detail: "field " + hex32(got) + ", computed " + hex32(want)}
	}
	return ChecksumValid, nil
}

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var s [10]byte
	s[0], s[1] = '0', 'x'
	for i := 9; i >= 2; i-- {
		s[i] = digits[v&0xf]
		v >>= 4
	}
	return string(s[:])
}

// Packet is a parsed SCTP packet: its common header and the bytes of its
// chunks, which alias the input.
type Packet struct {
	Header
	Chunks []byte // every byte after the common header
}

// ParsePacket splits b into the common header and the chunk bytes. It does
// not verify the checksum (see VerifyChecksum) nor parse the chunks (see
// Packet.Walk). It fails only when b is shorter than the common header.
func ParsePacket(b []byte) (Packet, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return Packet{}, err
	}
	return Packet{Header: h, Chunks: b[HeaderLen:]}, nil
}

// Walk returns an iterator over the packet's chunks.
func (p *Packet) Walk() ChunkIter { return Chunks(p.Chunks) }

// grow extends b by n bytes, reallocating at most once, and returns the
// extended slice and its new tail of n bytes. The tail's old contents are
// not cleared.
func grow(b []byte, n int) ([]byte, []byte) {
	l := len(b)
	if cap(b)-l < n {
		b = slices.Grow(b, n)
	}
	b = b[:l+n]
	return b, b[l:]
}

// pad4 returns n rounded up to a multiple of 4.
func pad4(n int) int { return (n + 3) &^ 3 }
