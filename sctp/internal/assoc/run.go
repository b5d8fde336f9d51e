package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// Runs of DATA packets. A GRO buffer brings dozens of packets of one
// association in a row, each holding one DATA chunk. ReceiveRun takes
// such a run whole: it looks the association up once and takes each
// packet of the plain shape (one DATA chunk, the header of the run's
// first packet) through the steps of receive, dispatch and data6_2 that
// such a packet reaches, without the chunk walk, the table and the
// checks that cannot apply to it. Any other packet goes through
// ReceiveBuf, in its place in the run.

// ReceiveRun is ReceiveBuf for each packet of pkts in turn, packets that
// arrived from one source in receive buffer buf (nil: none) with IP ECN
// field ecn. It stops after a packet that left the shell something to do
// (a packet to send, a reply, an event) and returns how many packets it
// processed, at least one: the shell collects what they caused and hands
// it the rest, so every packet gets the send opportunity it gets from
// ReceiveBuf.
func (ep *Endpoint) ReceiveRun(now time.Time, from netip.AddrPort, pkts [][]byte, buf *interleave.RecvBuf, ecn uint8) int {
	n := 0
	for n < len(pkts) {
		if n > 0 && ep.owesShell() {
			break
		}
		k := 0
		if ecn&3 != ecnCE {
			k = ep.dataRun(now, from, pkts[n:], buf)
		}
		if k == 0 {
			ep.ReceiveBuf(now, from, pkts[n], buf, ecn)
			k = 1
		}
		n += k
	}
	return n
}

// owesShell reports whether the core holds what the shell collects after
// a packet: a packet to send (a reply, an association on the ready list)
// or an event.
func (ep *Endpoint) owesShell() bool {
	return ep.replyCount > 0 || ep.readyHead < len(ep.ready) || ep.evHead < len(ep.events)
}

// dataHeaderEnd is where a DATA chunk's user data starts in a packet.
const dataHeaderEnd = commonHeaderLen + chunk.DataHeaderLen

// plainData reports whether b is a packet of one DATA chunk with user
// data, as parsePacket delimits it (padding may be missing after the
// last chunk).
func plainData(b []byte) bool {
	if len(b) <= dataHeaderEnd || chunk.Type(b[commonHeaderLen]) != chunk.TypeData {
		return false
	}
	body := len(b) - commonHeaderLen
	l := int(binary.BigEndian.Uint16(b[commonHeaderLen+2:]))
	return l > chunk.DataHeaderLen && (l == body || (l+3)&^3 == body)
}

// takesDataRun reports whether a packet of one DATA chunk with tag vtag
// goes, in a, through the steps dataRun takes: the tag is a's, and a is
// established, has its engine and got DATA before (the first is SACKed at
// once), with DATA chunks (not I-DATA) that need no AUTH.
func (a *Assoc) takesDataRun(vtag uint32) bool {
	if a.closed || a.state != stateEstablished || vtag != a.localTag || vtag == 0 ||
		a.data.eng == nil || !a.data.gotData || a.Interleaved() {
		return false
	}
	s := a.auth
	return s == nil || !s.negotiated || !s.weNeed.has(chunk.TypeData)
}

// dataRun processes the packets at the start of pkts that are plain DATA
// packets (plainData) of one association that takes them (takesDataRun)
// with a valid checksum, exactly as receive would, and returns how many
// it processed: 0 when the first is not such a packet. It stops after a
// packet that left the shell something to do (owesShell).
//
// Once a packet has gone the whole way, the association is quiet when it
// owes its peer only data and has none to send (owesOnlyData, SendIdle):
// an accepted DATA chunk changes neither, nor what takesDataRun looks at,
// nor the engine's reports, so for the next packets of a quiet
// association endPacket comes down to the SACK schedule, and
// reachedByPacket, done for the association already, to nothing.
func (ep *Endpoint) dataRun(now time.Time, from netip.AddrPort, pkts [][]byte, buf *interleave.RecvBuf) int {
	first := pkts[0]
	if !plainData(first) || (ep.filter && ep.refused(from, first)) {
		return 0
	}
	hdr := binary.LittleEndian.Uint64(first) // ports and tag
	vtag := binary.BigEndian.Uint32(first[4:])
	a := ep.lookup(assocKey{peer: from, localPort: binary.BigEndian.Uint16(first[2:]), peerPort: binary.BigEndian.Uint16(first)})
	if a == nil || !a.takesDataRun(vtag) {
		return 0
	}
	kind := int(chunkKindOf[chunk.TypeData] - 1)
	replyFrom := netip.AddrPort{}
	if a.paths == nil || from == a.key.peer || a.pathAt(from) >= 0 {
		replyFrom = from
	}
	acceptZero := ep.cfg.ZeroChecksumDTLS
	eng := a.data.eng
	d := &a.data.d
	ep.jar.rotate(now)
	eng.SetRecvBuf(buf)
	quiet := false
	n := 0
	for n < len(pkts) {
		b := pkts[n]
		if n > 0 && (!plainData(b) || binary.LittleEndian.Uint64(b) != hdr) {
			break
		}
		if sum := binary.LittleEndian.Uint32(b[8:]); (sum != 0 || !acceptZero) && sum != chunk.Checksum(b) {
			break // receive counts it
		}
		n++
		// receive: the counters, then handlePacket.
		a.chunks.countIn(kind)
		a.stats.PacketsIn++
		a.stats.BytesIn += uint64(len(b))
		a.creditPeer(now, len(b))
		// dispatch's one chunk: data6_2.
		c := b[commonHeaderLen:]
		l := int(binary.BigEndian.Uint16(c[2:]))
		d.TSN = transfer.TSN(binary.BigEndian.Uint32(c[4:]))
		d.SID, d.SSN = binary.BigEndian.Uint16(c[8:]), binary.BigEndian.Uint16(c[10:])
		d.PPID, d.Flags = binary.BigEndian.Uint32(c[12:]), c[1]
		d.Payload = c[chunk.DataHeaderLen:l]
		v, err := eng.HandleData(now, d)
		d.Payload = nil // it aliases the packet's buffer, which may be replaced
		accepted := err == nil && v == transfer.Accepted
		if accepted && quiet {
			// endPacket, quiet: joinBatch, the SACK schedule, and the
			// ready list when a SACK is due.
			ep.joinBatch(a)
			eng.EndPacket(now)
			if eng.SACKDue(now) {
				ep.markReady(a)
				break
			}
			continue
		}
		if !accepted && a.dataHandled(v, err, d.TSN, d.SID, "DATA") == dispDeleted {
			ep.reachedByPacket(a)
			break
		}
		a.endPacket(now, true)
		if a.paths != nil && !a.closed {
			a.noteReplyFrom(replyFrom, true)
		}
		ep.reachedByPacket(a)
		if ep.owesShell() || !a.takesDataRun(vtag) {
			break
		}
		quiet = a.owesOnlyData(eng) && eng.SendIdle()
	}
	eng.SetRecvBuf(nil)
	return n
}
