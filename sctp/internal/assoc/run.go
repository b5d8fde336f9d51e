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
// association in a row, nearly all holding one DATA chunk. ReceiveRun
// takes such a run whole: it looks the association up once and takes
// each packet of the plain shape (DATA chunks alone, the header of the
// run's first packet) through the steps of receive, dispatch and data6_2
// that such a packet reaches, without the chunk walk, the table and the
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

// plainData returns the number of chunks of b when b is a packet of DATA
// chunks with user data alone, delimited as parsePacket delimits them
// (padding may be missing after the last chunk), else 0.
func plainData(b []byte) int {
	if len(b) > dataHeaderEnd && chunk.Type(b[commonHeaderLen]) == chunk.TypeData {
		l, body := int(binary.BigEndian.Uint16(b[commonHeaderLen+2:])), len(b)-commonHeaderLen
		if l > chunk.DataHeaderLen && (l == body || (l+3)&^3 == body) {
			return 1 // the common case, checked first
		}
	}
	return plainChunks(b)
}

// dataHeaderEnd is where the user data of a packet's first DATA chunk
// starts.
const dataHeaderEnd = commonHeaderLen + chunk.DataHeaderLen

// plainChunks is plainData for a packet of any number of chunks.
func plainChunks(b []byte) int {
	k := 0
	for off := commonHeaderLen; off < len(b); k++ {
		rest := len(b) - off
		if rest <= chunk.DataHeaderLen || chunk.Type(b[off]) != chunk.TypeData {
			return 0
		}
		l := int(binary.BigEndian.Uint16(b[off+2:]))
		if l <= chunk.DataHeaderLen || l > rest {
			return 0
		}
		if p := (l + 3) &^ 3; p <= rest {
			off += p
		} else {
			off += l // the last chunk, unpadded (l == rest)
		}
	}
	return k
}

// takesDataRun reports whether a packet of DATA chunks with tag vtag
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
	if plainData(first) == 0 || (ep.filter && ep.refused(from, first)) {
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
		chunks := plainData(b)
		if chunks == 0 || binary.LittleEndian.Uint64(b) != hdr {
			break
		}
		if sum := binary.LittleEndian.Uint32(b[8:]); (sum != 0 || !acceptZero) && sum != chunk.Checksum(b) {
			break // receive counts it
		}
		n++
		// receive: the counters, then handlePacket.
		body := b[commonHeaderLen:]
		for range chunks {
			a.chunks.countIn(kind)
		}
		a.stats.PacketsIn++
		a.stats.BytesIn += uint64(len(b))
		a.creditPeer(now, len(b))
		// dispatch: data6_2 for each chunk.
		accepted, deleted := true, false
		for off := 0; off < len(body); {
			c := (*[chunk.DataHeaderLen]byte)(body[off:])
			l := int(binary.BigEndian.Uint16(c[2:]))
			d.TSN = transfer.TSN(binary.BigEndian.Uint32(c[4:]))
			d.SID, d.SSN = binary.BigEndian.Uint16(c[8:]), binary.BigEndian.Uint16(c[10:])
			d.PPID, d.Flags = binary.BigEndian.Uint32(c[12:]), c[1]
			d.Payload = body[off+chunk.DataHeaderLen : off+l]
			v, err := eng.HandleData(now, d)
			d.Payload = nil // it aliases the packet's buffer, which may be replaced
			if err != nil || v != transfer.Accepted {
				accepted = false
				if a.dataHandled(v, err, d.TSN, d.SID, "DATA") == dispDeleted {
					deleted = true
					break
				}
			}
			off += min((l+3)&^3, len(body)-off)
		}
		if deleted {
			ep.reachedByPacket(a)
			break
		}
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
