package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// Interleaved reports whether the association uses I-DATA (RFC 8260
// section 2.2.1): "User message interleaving has been negotiated for an
// association if both endpoints have indicated I-DATA support."
func (a *Assoc) Interleaved() bool {
	return a.ep.cfg.Interleaving && a.peerExt&extIData != 0
}

// appendSupportedExt appends the Supported Extensions parameter (RFC 5061
// section 4.2.7) listing the chunks of the extensions we offer: FORWARD-TSN
// for PR-SCTP (as Linux lists it besides the Forward-TSN-Supported
// parameter), I-DATA and I-FORWARD-TSN for interleaving, RE-CONFIG for
// stream reconfiguration. RFC 8260 section 2.2.1: "An SCTP endpoint
// indicates user message interleaving support by listing the I-DATA chunk
// within the Supported Extensions Parameter"; RFC 6525 section 5.1.1: "An
// SCTP endpoint supporting this extension MUST include the chunk type of
// the RE-CONFIG chunk in the Supported Extensions Parameter in either the
// INIT or INIT-ACK."
func appendSupportedExt(b []byte, offer extFlags) []byte {
	var types [7]byte
	n := 0
	if offer&extForwardTSN != 0 {
		types[n] = byte(chunk.TypeForwardTSN)
		n++
	}
	if offer&extIData != 0 {
		types[n], types[n+1] = byte(chunk.TypeIData), byte(chunk.TypeIForwardTSN)
		n += 2
	}
	if offer&extReconfig != 0 {
		types[n] = byte(chunk.TypeReconfig)
		n++
	}
	if offer&extAuth != 0 {
		// As Linux lists it when net.sctp.auth_enable is set.
		types[n] = byte(chunk.TypeAuth)
		n++
	}
	if offer&extASCONF != 0 {
		// RFC 5061 section 4.2.7: the chunks of dynamic address
		// reconfiguration.
		types[n], types[n+1] = byte(chunk.TypeASCONF), byte(chunk.TypeASCONFAck)
		n += 2
	}
	if n == 0 {
		return b
	}
	b, _ = chunk.AppendParam(b, chunk.ParamSupportedExtensions, types[:n])
	return b
}

// iData8260_2_2_3 hands an I-DATA chunk to the receiver (RFC 8260 section
// 2.2.3, with the rules of RFC 9260 section 6.2). Without negotiated
// interleaving it aborts: RFC 8260 section 2.2.3, "The same applies if
// I-DATA support has not been negotiated for an association and an
// I-DATA chunk is received."
func (a *Assoc) iData8260_2_2_3(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.Interleaved() {
		a.protocolViolation("I-DATA chunk on an association that did not negotiate it")
		return dispDeleted
	}
	if a.data.eng == nil {
		a.stats.Ignored++
		return dispNext
	}
	d, err := chunk.ParseIData(chunkOfRx(c))
	if err != nil {
		a.stats.Malformed++
		return dispStop
	}
	a.data.eng.SetRecvBuf(p.buf)
	v, err := a.data.eng.HandleIData(now, &d)
	a.data.eng.SetRecvBuf(nil)
	return a.dataHandled(v, err, d.TSN, d.SID, "I-DATA")
}

// iForwardTSN8260_2_3_2 hands an I-FORWARD-TSN to the receiver (RFC 8260
// section 2.3.2). A malformed one (length not 8 + 8k, a stream out of
// range) is discarded and counted. Without negotiated interleaving it
// aborts (section 2.3.1: "The I-FORWARD-TSN chunk MUST be used in
// combination with the I-DATA chunk and MUST NOT be used in combination
// with the DATA chunk").
func (a *Assoc) iForwardTSN8260_2_3_2(now time.Time, p *inPacket, c *rxChunk) disp {
	if !a.Interleaved() {
		a.protocolViolation("I-FORWARD-TSN chunk on an association without I-DATA")
		return dispDeleted
	}
	if a.data.eng == nil {
		a.stats.Ignored++
		return dispNext
	}
	if err := a.data.eng.HandleIForwardTSN(now, chunkOfRx(c)); err != nil {
		a.stats.Malformed++
		return dispNext
	}
	a.ep.markReady(a) // its SACK is due now
	return dispNext
}
