package assoc

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
)

// Explicit Congestion Notification (RFC 9260 appendix A, with RFC 3168).
// The association offers the ECN Capable parameter in its INIT and INIT
// ACK unless Config.Extensions.DisableECN, as Linux does by default
// (net.sctp.ecn_enable=1), and uses ECN when the peer offered it too:
//
//   - its packets after the handshake leave with ECT(0) in the IP header
//     (Packet.ECN tells the shell, which sets the field);
//   - a packet with DATA that arrives with CE (Endpoint.Receive) makes
//     it echo the lowest TSN of that packet in an ECNE chunk, bundled
//     into every packet it sends (the first one at once, with a SACK),
//     until a CWR for that TSN or a later one arrives;
//   - an ECNE from the peer reduces the window of the path the named
//     chunk was sent on, at most once per window of data
//     (transfer.Engine.HandleECNE), and is answered by a CWR.

// The ECT(0) and CE codepoints of the IP ECN field (RFC 3168 section 5).
const (
	ecnECT0 = 2
	ecnCE   = 3
)

// ecnAssoc is what the association owes its peer for ECN.
type ecnAssoc struct {
	echo    bool      // an ECNE is due in every packet until a CWR covers echoTSN
	echoTSN chunk.TSN // highest lowest-TSN of a CE-marked packet not yet covered by a CWR
	cwr     bool      // a CWR is due
	cwrTSN  chunk.TSN // the TSN it carries: the highest TSN of the ECNEs it answers
}

// appendECNCapable appends the ECN Capable parameter when offer includes
// ECN. RFC 9260 appendix A (quoted from RFC 4960's text, which RFC 9260
// keeps in substance): "To indicate that an endpoint is ECN capable, an
// endpoint SHOULD add to the INIT and or INIT ACK chunk the TLV reserved
// for ECN. This TLV contains no parameters".
func appendECNCapable(b []byte, offer extFlags) []byte {
	if offer&extECN != 0 {
		b, _ = chunk.AppendParam(b, chunk.ParamECNCapable, nil)
	}
	return b
}

// ECN reports whether the association uses ECN: we offered it and the
// peer's INIT or INIT ACK carried the ECN Capable parameter.
func (a *Assoc) ECN() bool { return !a.ep.cfg.DisableECN && a.peerExt&extECN != 0 }

// ect reports whether the association's packets carry ECT(0) now: ECN
// is in use and the handshake is over (RFC 3168 section 6.1.1 keeps the
// connection setup packets Not-ECT).
func (a *Assoc) ect() bool {
	switch a.state {
	case stateClosed, stateCookieWait, stateCookieEchoed:
		return false
	}
	return a.ECN()
}

// Receive processes one SCTP packet that arrived from the transport
// address from, whose IP header carried ecn in its ECN field (0 Not-ECT,
// 1 ECT(1), 2 ECT(0), 3 CE) as the transport read it; a CE mark on a
// packet with DATA for an association that uses ECN schedules an ECNE. It
// never keeps a reference to pkt. It returns the association the packet
// was for when it still exists, else nil (a packet out of the blue, one
// dropped, or one that ended its association).
func (ep *Endpoint) Receive(now time.Time, from netip.AddrPort, pkt []byte, ecn uint8) *Assoc {
	return ep.ReceiveBuf(now, from, pkt, nil, ecn)
}

// ReceiveBuf is Receive for a packet that lies in buf, a receive buffer
// the caller holds a reference to: the fragments of its DATA and I-DATA
// chunks may reference buf instead of holding a copy, each holding a
// reference of its own (interleave.Pool.Lend). The caller may then read
// into buf again only once buf.Lent reports false. A nil buf is Receive.
func (ep *Endpoint) ReceiveBuf(now time.Time, from netip.AddrPort, pkt []byte, buf *interleave.RecvBuf, ecn uint8) *Assoc {
	ep.in.buf = buf
	a := ep.receive(now, from, pkt)
	if a != nil && ecn&3 == ecnCE {
		a.noteCE(&ep.in)
	}
	if buf != nil {
		// The chunk views alias buf: kept, they would keep it alive
		// after its fragments were read.
		ep.in.forget()
	}
	return a
}

// noteCE records that packet p, just processed, arrived with CE. The ECNE
// carries "the lowest TSN associated with the IP datagram marked with the
// CE bit" (RFC 9260 appendix A); a packet without DATA has no TSN to
// echo and is only counted.
func (a *Assoc) noteCE(p *inPacket) {
	if !a.ECN() || p.vtag != a.localTag {
		return
	}
	found := false
	var lowest chunk.TSN
	for i := range p.chunks {
		c := &p.chunks[i]
		if c.typ != chunk.TypeData && c.typ != chunk.TypeIData || len(c.raw) < 8 {
			continue
		}
		t := chunk.TSN(binary.BigEndian.Uint32(c.raw[4:]))
		if !found || t.LT(lowest) {
			lowest, found = t, true
		}
	}
	if !found {
		return
	}
	a.stats.ECNMarks++
	if !a.ecn.echo {
		// The first ECNE goes at once, with a SACK, rather than after
		// the delayed acknowledgement.
		a.ecn.echo, a.ecn.echoTSN = true, lowest
		a.pend.sackNow = true
		a.ep.markReady(a)
		return
	}
	// Echo the newest mark: the CWR that stops the echoes must cover it.
	if lowest.GT(a.ecn.echoTSN) {
		a.ecn.echoTSN = lowest
	}
}

// ecne9260_A handles an ECNE chunk: the peer received a packet with CE whose
// lowest TSN the chunk carries. Without ECN negotiated it is an unknown
// chunk (section 3.2 action bits).
func (a *Assoc) ecne9260_A(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.ECN() {
		return a.unknownChunk3_2(now, p, c)
	}
	tsn, err := chunk.ParseECNE(chunk.Chunk{Type: c.typ, Flags: c.flags, Value: c.value()})
	if err != nil {
		a.stats.Malformed++
		return dispNext
	}
	a.stats.ECNEchoesIn++
	if eng := a.data.eng; eng != nil {
		eng.HandleECNE(now, tsn)
	}
	// RFC 9260 appendix A (RFC 4960 text): the CWR "contains one data
	// element, i.e., the TSN number that was sent in the ECNE chunk."
	// Each ECNE is answered, so that a lost CWR costs one more ECNE.
	if !a.ecn.cwr || tsn.GT(a.ecn.cwrTSN) {
		a.ecn.cwrTSN = tsn
	}
	a.ecn.cwr = true
	return dispNext
}

// cwr9260_A handles a CWR chunk: the peer reduced its window for our ECNE; the
// echoes stop once the CWR covers the TSN echoed last (a later CE mark
// keeps them going).
func (a *Assoc) cwr9260_A(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.ECN() {
		return a.unknownChunk3_2(now, p, c)
	}
	tsn, err := chunk.ParseCWR(chunk.Chunk{Type: c.typ, Flags: c.flags, Value: c.value()})
	if err != nil {
		a.stats.Malformed++
		return dispNext
	}
	a.stats.CWRsIn++
	if a.ecn.echo && !tsn.LT(a.ecn.echoTSN) {
		a.ecn.echo = false
	}
	return dispNext
}

// appendECN appends the CWR and ECNE the association owes into the packet
// being built in b (up to limit). It returns the offset of the ECNE, or -1
// when none was added: a packet that would carry nothing else is not sent
// for it (the echo rides on the packets the association sends anyway).
func (a *Assoc) appendECN(b []byte, limit int) ([]byte, int) {
	if a.ecn.cwr && len(b)+8 <= limit {
		a.ecn.cwr = false
		a.stats.CWRsOut++
		b = chunk.AppendCWR(b, a.ecn.cwrTSN)
	}
	at := -1
	if a.ecn.echo && len(b)+8 <= limit {
		at = len(b)
		b = chunk.AppendECNE(b, a.ecn.echoTSN)
	}
	return b, at
}
