package assoc

import "github.com/usctp/usctp/sctp/chunk"

// The zero checksum of RFC 9653 over DTLS (Config.ZeroChecksumDTLS): the
// endpoint announces the Zero Checksum Acceptable parameter with the DTLS
// method in its INIT and INIT ACK and accepts packets whose checksum field
// is zero (parsePacket); an association whose peer announced the same
// method sends zero checksums (finishOwn).

// appendZeroChecksumAcceptable appends the Zero Checksum Acceptable
// parameter with the DTLS method when offer includes it. RFC 9653 section
// 5.1: "If an endpoint is willing to accept SCTP packets with an incorrect
// checksum of zero, it MUST include the Zero Checksum Acceptable Chunk
// Parameter indicating the alternate error detection method it uses in the
// INIT or INIT ACK chunk it sends."
func appendZeroChecksumAcceptable(b []byte, offer extFlags) []byte {
	if offer&extZeroChecksum != 0 {
		b = chunk.AppendUint32Param(b, chunk.ParamZeroChecksum, chunk.EDMIDDTLS)
	}
	return b
}

// ZeroChecksum reports whether the association sends its packets with a
// zero checksum (the peer announced Zero Checksum Acceptable with the DTLS
// method and the endpoint offers it) and whether it accepts them (the
// endpoint announced it).
func (a *Assoc) ZeroChecksum() (send, recv bool) {
	on := a.ep.cfg.ZeroChecksumDTLS
	return on && a.peerExt&extZeroChecksum != 0, on
}

// finishOwn fills in the holes shorter than the endpoint keeps
// (GatherInto) and the checksum of the association's packet that starts
// at b[start]: the checksum is zero when the peer accepts it, unless the
// packet holds a chunk RFC 9653 section 5.2 keeps the CRC32c for: an INIT (sent before
// the peer announced anything), a COOKIE ECHO (its receiver may hold no
// state yet) or an ASCONF (it may come from an address the peer does not
// know). Packets sent outside an association (replies to out-of-the-blue
// packets, finishPacket) always carry the CRC32c.
func (a *Assoc) finishOwn(b []byte, start int) []byte {
	ep := a.ep
	if send, _ := a.ZeroChecksum(); send && !needsCRC(b[start:]) {
		if len(ep.holes) > 0 {
			ep.holes = chunk.FillShortHoles(b[start:], ep.holes, ep.holeKeep)
		}
		chunk.SetZeroChecksum(b[start:])
		return b
	}
	if len(ep.holes) > 0 {
		ep.holes = chunk.FillChecksumHoles(b[start:], ep.holes, ep.holeKeep)
		return b
	}
	return finishPacket(b, start)
}

// needsCRC reports whether pkt holds an INIT, COOKIE ECHO or ASCONF chunk.
func needsCRC(pkt []byte) bool {
	p, err := chunk.ParsePacket(pkt)
	if err != nil {
		return true
	}
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		switch c.Type {
		case chunk.TypeInit, chunk.TypeCookieEcho, chunk.TypeASCONF:
			return true
		}
	}
	return it.Err() != nil
}
