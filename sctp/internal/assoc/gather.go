package assoc

import (
	"time"

	"github.com/usctp/usctp/internal/crc32c"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Packets with holes, for a shell that writes by gather I/O: the large
// DATA and I-DATA payloads stay in the send buffer's messages and the
// packet references them (chunk.Hole), so they are not copied into the
// packet buffer. Smaller payloads are holes only while the packet is
// built: its checksum fills them in (finishOwn). The messages the holes
// left reference are not reused until the shell reports the packets
// written (BatchWritten). A packet with holes
// is the same packet, byte for byte, as Poll builds: every header,
// padding and other chunk at its place in Data, the checksum computed
// over the pieces in order.

// Hole is a range of a packet built with holes (GatherInto) whose bytes
// are elsewhere (chunk.Hole).
type Hole = chunk.Hole

// GatherInto makes Poll leave the user data of DATA and I-DATA chunks of
// least bytes or more out of its packets while it builds them, or (nil)
// builds whole packets again, the default. Payloads shorter than keep are
// then copied in by the pass that computes the checksum
// (chunk.FillChecksumHoles), which reads them once instead of copying
// and reading them again; the others stay holes. The holes of each
// packet, by offset from its first byte (Packet.Data[len(buf)]), are
// appended to *holes, up to its capacity; the packet is Data[len(buf):]
// with each hole's bytes in place. Packets of associations with AUTH,
// whose HMAC covers the user data, are whole. (The holes are not a field
// of Packet: a Packet of eight words is returned in registers.)
func (ep *Endpoint) GatherInto(holes *[]Hole, least, keep int) {
	ep.gather, ep.holeMin, ep.holeKeep = holes, least, keep
}

// FillsInOnePass reports whether a hole filled in by the checksum's pass
// is read once here (crc32c.FusesCopy); where it is not, a payload below
// GatherInto's keep costs no more copied as it is appended.
func FillsInOnePass() bool { return crc32c.FusesCopy() }

// BatchWritten tells the endpoint that every packet with holes Poll
// returned has been written or dropped: the messages their holes
// referenced may be reused.
func (ep *Endpoint) BatchWritten() {
	for i, a := range ep.holders {
		for _, e := range [2]*transfer.Engine{a.data.eng, a.data.kept} {
			if e != nil {
				e.ReleaseHeld()
			}
		}
		a.data.holder = false
		ep.holders[i] = nil
	}
	ep.holders = ep.holders[:0]
}

// appendData appends the association's DATA chunks, with holes when
// Poll builds the packet after GatherInto, and returns the packet and the
// chunk count.
func (a *Assoc) appendData(now time.Time, b []byte, room, start int) ([]byte, int) {
	ep := a.ep
	if cap(ep.holes) == 0 || a.authOverhead() > 0 {
		return a.data.eng.AppendData(now, b, room)
	}
	h := len(ep.holes)
	b, n, holes := a.data.eng.AppendDataHoles(now, b, room, ep.holes, ep.holeMin, ep.holeKeep)
	ep.holes = holes
	kept := false
	for i := range holes[h:] {
		holes[h+i].At -= start // from the packet's first byte
		kept = kept || len(holes[h+i].Data) >= ep.holeKeep
	}
	if kept && !a.data.holder {
		a.data.holder = true
		ep.holders = append(ep.holders, a)
	}
	return b, n
}
