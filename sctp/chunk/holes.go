package chunk

import (
	"encoding/binary"
	"strconv"

	"github.com/usctp/usctp/internal/crc32c"
)

// Hole is a range of a packet buffer whose bytes are not written there:
// the packet's len(Data) bytes from offset At are Data's. A packet with
// holes (built with Data.AppendHole or IData.AppendHole) has every
// header, padding and other chunk in its buffer at the offsets of the
// whole packet, so walking its chunks works as on the whole packet; only
// the user data is elsewhere. It is sent by gather I/O without copying
// Data, or made whole with FillHoles. Holes of one packet are listed in
// ascending order of At and do not overlap.
type Hole struct {
	At   int
	Data []byte
}

// FillHoles copies each hole's Data into pkt, which then holds the whole
// packet.
func FillHoles(pkt []byte, holes []Hole) {
	for _, h := range holes {
		copy(pkt[h.At:h.At+len(h.Data)], h.Data)
	}
}

// ChecksumHoles is Checksum for a packet with holes: the CRC32c of the
// whole packet, with each hole's Data in its place, computed piece by
// piece in order. The holes lie after the common header.
func ChecksumHoles(pkt []byte, holes []Hole) uint32 {
	if len(holes) == 0 {
		return Checksum(pkt)
	}
	if len(pkt) < HeaderLen {
		return 0
	}
	c, _ := checksumPieces(pkt, holes, 0)
	return c
}

// checksumPieces returns the CRC32c of pkt with its holes in place
// (ChecksumHoles; at least one hole, after the common header), copying
// the holes shorter than keep into pkt as it reads them
// (crc32c.UpdateCopy), and, when keep is above 0, the holes it did not
// copy, compacted in holes' own array (ChecksumHoles, with keep 0, writes
// nothing).
func checksumPieces(pkt []byte, holes []Hole, keep int) (uint32, []Hole) {
	c := crc32c.ChecksumPacket(pkt[:holes[0].At])
	at, left := holes[0].At, holes[:0]
	for _, h := range holes {
		c = crc32c.Update(c, pkt[at:h.At])
		if len(h.Data) < keep {
			c = crc32c.UpdateCopy(c, pkt[h.At:], h.Data)
		} else {
			c = crc32c.Update(c, h.Data)
			if keep > 0 {
				left = append(left, h)
			}
		}
		at = h.At + len(h.Data)
	}
	if at < len(pkt) {
		c = crc32c.Update(c, pkt[at:])
	}
	return c, left
}

// SetChecksumHoles computes the CRC32c of a packet with holes
// (ChecksumHoles) and stores it in its header.
func SetChecksumHoles(pkt []byte, holes []Hole) {
	if len(pkt) < HeaderLen {
		return
	}
	binary.LittleEndian.PutUint32(pkt[8:], ChecksumHoles(pkt, holes))
}

// FillChecksumHoles makes pkt whole up to its holes of keep bytes or
// more and fills in its checksum: it computes the CRC32c of the packet
// (ChecksumHoles) piece by piece, and each hole shorter than keep is
// copied into its place by the same pass that reads it for the CRC
// (crc32c.UpdateCopy), so a payload costs one read and not a copy and a
// read. It returns the holes left, in holes' own array and order: the
// packet is sent with them by gather I/O, or with none as it is.
func FillChecksumHoles(pkt []byte, holes []Hole, keep int) []Hole {
	if len(pkt) < HeaderLen {
		return holes
	}
	if len(holes) == 0 {
		SetChecksum(pkt)
		return holes
	}
	c, left := checksumPieces(pkt, holes, max(keep, 1))
	binary.LittleEndian.PutUint32(pkt[8:], c)
	return left
}

// FillShortHoles copies the holes of pkt shorter than keep into it, as
// FillChecksumHoles does without the checksum, and returns the holes
// left.
func FillShortHoles(pkt []byte, holes []Hole, keep int) []Hole {
	left := holes[:0]
	for _, h := range holes {
		if len(h.Data) < keep {
			copy(pkt[h.At:h.At+len(h.Data)], h.Data)
		} else {
			left = append(left, h)
		}
	}
	return left
}

// AppendHole appends the DATA chunk, padded, to b as Append does, except
// that its user data is not copied: the bytes where it belongs are left
// as they were, and the hole to fill with d.Payload is returned.
func (d *Data) AppendHole(b []byte) ([]byte, Hole, error) {
	n := d.Len()
	if n > MaxLen {
		return b, Hole{}, errf("DATA", ErrTooLarge, "payload of "+strconv.Itoa(len(d.Payload))+" bytes")
	}
	at := len(b) + DataHeaderLen
	b, p := grow(b, pad4(n))
	d.putHeader(p)
	clear(p[n:])
	return b, Hole{At: at, Data: d.Payload}, nil
}

// AppendHole appends the I-DATA chunk, padded, to b as Append does, except
// that its user data is not copied: the bytes where it belongs are left
// as they were, and the hole to fill with d.Payload is returned.
func (d *IData) AppendHole(b []byte) ([]byte, Hole, error) {
	n := d.Len()
	if n > MaxLen {
		return b, Hole{}, errf("I-DATA", ErrTooLarge, "payload of "+strconv.Itoa(len(d.Payload))+" bytes")
	}
	at := len(b) + IDataHeaderLen
	b, p := grow(b, pad4(n))
	d.putHeader(p)
	clear(p[n:])
	return b, Hole{At: at, Data: d.Payload}, nil
}
