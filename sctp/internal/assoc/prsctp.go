package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// offered returns the extensions our INIT and INIT ACK announce.
func (c *Config) offered() extFlags {
	var f extFlags
	if !c.DisablePartialReliability {
		f |= extForwardTSN
	}
	if c.Interleaving {
		f |= extIData
	}
	if !c.DisableStreamReconfig {
		f |= extReconfig
	}
	if !c.DisableECN {
		f |= extECN
	}
	if c.authOffered() {
		f |= extAuth
	}
	if c.DynamicAddrs {
		f |= extASCONF
	}
	if c.ZeroChecksumDTLS {
		f |= extZeroChecksum
	}
	return f
}

// appendForwardTSNSupported appends the Forward-TSN-Supported parameter
// (RFC 3758 section 3.1) when offer includes PR-SCTP: "At the
// initialization of the association, the sender of the INIT or INIT ACK
// chunk MAY include this OPTIONAL parameter to inform its peer that it is
// able to support the Forward TSN chunk".
func appendForwardTSNSupported(b []byte, offer extFlags) []byte {
	if offer&extForwardTSN != 0 {
		b, _ = chunk.AppendParam(b, chunk.ParamForwardTSNSupported, nil)
	}
	return b
}

// PartialReliability reports whether the association may abandon sent
// data and send FORWARD-TSN (or I-FORWARD-TSN): we offered PR-SCTP and the
// peer announced it. RFC 3758 section 3.3.2: an endpoint that receives an
// INIT without the parameter "MUST NOT send a FORWARD TSN chunk at any
// time during the associations life". With I-DATA the peer must also have
// listed I-FORWARD-TSN (RFC 8260 section 2.3.1: "The partial reliability
// extension is negotiated and can be used in combination with user message
// interleaving only if both endpoints indicated their support of user
// message interleaving and the I-FORWARD-TSN chunk.").
func (a *Assoc) PartialReliability() bool {
	if a.ep.cfg.DisablePartialReliability || a.peerExt&extForwardTSN == 0 {
		return false
	}
	return !a.Interleaved() || a.peerExt&extIForwardTSN != 0
}

// forwardTSN3758_3_6 handles a FORWARD-TSN chunk. With I-DATA negotiated
// it is a protocol violation (RFC 8260 section 2.3.1: "The FORWARD-TSN
// chunk MUST be used in combination with the DATA chunk and MUST NOT be
// used in combination with the I-DATA chunk"). When we did not offer
// PR-SCTP it is an unknown chunk (RFC 3758 section 3.3.1: "at no time
// during the life of the association can it send or process a FORWARD
// TSN. It MUST instead act as if it does NOT support the FORWARD TSN
// chunk, returning an ERROR to the peer upon receipt of any FORWARD TSN":
// type 192 has the action bits 11, skip it and report it). Otherwise the
// receiver applies it (section 3.6), also from a peer that did not
// announce PR-SCTP: we can process it, and nothing in the RFC makes that
// a violation. A malformed one, one naming a stream out of range or
// moving beyond the TSN map is discarded and counted.
func (a *Assoc) forwardTSN3758_3_6(now time.Time, p *inPacket, c *rxChunk) disp {
	switch {
	case a.Interleaved():
		a.protocolViolation("FORWARD-TSN chunk on an association that negotiated I-DATA")
		return dispDeleted
	case a.ep.cfg.DisablePartialReliability:
		return a.unknownChunk3_2(now, p, c)
	case a.data.eng == nil:
		a.stats.Ignored++
		return dispNext
	}
	if err := a.data.eng.HandleForwardTSN(now, chunkOfRx(c)); err != nil {
		a.stats.Malformed++
		return dispNext
	}
	a.ep.markReady(a) // its SACK is due now
	return dispNext
}
