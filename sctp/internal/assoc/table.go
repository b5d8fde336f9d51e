package assoc

import (
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// disp is what a chunk handler tells the packet loop to do next.
type disp uint8

const (
	dispNext    disp = iota // go on with the next chunk
	dispStop                // discard the rest of the packet
	dispDeleted             // the association is gone: stop
)

// handler processes one chunk of a packet in one state. Each handler names
// the RFC 9260 section it implements.
type handler func(a *Assoc, now time.Time, p *inPacket, c *rxChunk) disp

// fsm is the chunk-type x state table (the idea of Linux's sctp_sm_table,
// with our own handlers), indexed by the 8-bit chunk type, so every type has
// a row. The handlers, by RFC 9260 section (CW COOKIE-WAIT, CE
// COOKIE-ECHOED, EST ESTABLISHED, SP SHUTDOWN-PENDING, SS SHUTDOWN-SENT, SR
// SHUTDOWN-RECEIVED, SAS SHUTDOWN-ACK-SENT; "drop" is a counted discard):
//
//	chunk              CW        CE        EST     SP      SS      SR      SAS
//	INIT               5.2.1     5.2.1     5.2.2   5.2.2   5.2.2   5.2.2   9.2 (SHUTDOWN ACK again)
//	INIT ACK           5.1 B     5.2.3     5.2.3   5.2.3   5.2.3   5.2.3   5.2.3
//	COOKIE ECHO        5.2.4     5.2.4     5.2.4   5.2.4   5.2.4   5.2.4   5.2.4 (A: 9.2 + ERROR)
//	COOKIE ACK         5.2.5     5.1 E     5.2.5   5.2.5   5.2.5   5.2.5   5.2.5
//	ABORT              9.1 after the tag rule of 8.5.1 B, every state
//	SHUTDOWN           9.2 drop  9.2 drop  9.2     9.2     9.2     9.2     9.2 (SHUTDOWN ACK again)
//	SHUTDOWN ACK       8.5.1 E   8.5.1 E   drop    drop    9.2     drop    9.2
//	SHUTDOWN COMPLETE  8.5.1 C: ignored but in SAS (9.2), after the tag rule
//	ERROR              3.3.10 (Stale Cookie: 5.2.6 in CE, dropped elsewhere)
//	HEARTBEAT          drop      8.3       8.3     8.3     drop    8.3     drop
//	HEARTBEAT ACK      drop      drop      8.3     8.3     8.3     8.3     8.3
//	DATA               drop      6.2       6.2     6.2     9.2     6.2     drop
//	SACK               drop      6.2.1     6.2.1   6.2.1   6.2.1   6.2.1   drop
//	I-DATA             drop      RFC 8260 2.2.3 (ABORT unless negotiated)  drop
//	I-FORWARD-TSN      drop      RFC 8260 2.3.2 (ABORT unless negotiated)  drop
//	FORWARD-TSN        RFC 3758 3.6; ABORT with I-DATA (RFC 8260 2.3.1); 3.2 action bits unless offered
//	RE-CONFIG          drop      RFC 6525 5.2 (3.2 action bits unless negotiated)  drop
//	PAD                RFC 4820: discarded, the rest of the packet is processed
//	ECNE, CWR          appendix A where SACK is accepted, if ECN was negotiated; else 3.2
//	AUTH               RFC 4895 6.3, checked in dispatch before the table once negotiated; else 3.2
//	ASCONF, ASCONF-ACK RFC 5061 when negotiated (Config.Extensions.DynamicAddrs); else 3.2
//	anything else      3.2 action bits (NR-SACK is not negotiated by this stack)
//
// CLOSED has no TCB: its packets go to the endpoint's out-of-the-blue rules
// (section 8.4) and its stateless INIT and COOKIE ECHO handling (5.1).
var fsm [256][numStates]handler

// row fills one chunk type's row; states not listed get def.
func row(ct chunk.Type, def handler, per map[state]handler) {
	for s := range numStates {
		fsm[ct][s] = def
		if h, ok := per[s]; ok {
			fsm[ct][s] = h
		}
	}
}

func init() {
	// The endpoint removes a closed association at once; the CLOSED
	// column holds the OOTB rule for completeness.
	cw, ce, est := stateCookieWait, stateCookieEchoed, stateEstablished
	sp, ss, sr, sas := stateShutdownPending, stateShutdownSent, stateShutdownReceived, stateShutdownAckSent

	row(chunk.TypeInit, (*Assoc).initUnexpected5_2_2, map[state]handler{
		cw: (*Assoc).initCollision5_2_1, ce: (*Assoc).initCollision5_2_1,
		sas: (*Assoc).initInShutdownAckSent9_2})
	row(chunk.TypeInitAck, (*Assoc).discardInitAck5_2_3, map[state]handler{cw: (*Assoc).initAck5_1B})
	row(chunk.TypeCookieEcho, (*Assoc).cookieEchoTCB5_2_4, nil)
	row(chunk.TypeCookieAck, (*Assoc).discardCookieAck5_2_5, map[state]handler{ce: (*Assoc).cookieAck5_1E})
	row(chunk.TypeAbort, (*Assoc).abort9_1, nil)
	row(chunk.TypeShutdown, (*Assoc).shutdown9_2, map[state]handler{
		cw: (*Assoc).discardShutdown9_2, ce: (*Assoc).discardShutdown9_2,
		ss: (*Assoc).shutdownInShutdownSent9_2, sas: (*Assoc).shutdownInShutdownAckSent9_2})
	row(chunk.TypeShutdownAck, (*Assoc).discardChunk, map[state]handler{
		cw: (*Assoc).shutdownAckCookieState8_5_1E, ce: (*Assoc).shutdownAckCookieState8_5_1E,
		ss: (*Assoc).shutdownAck9_2, sas: (*Assoc).shutdownAck9_2})
	row(chunk.TypeShutdownComplete, (*Assoc).discardShutdownComplete8_5_1C, map[state]handler{
		sas: (*Assoc).shutdownComplete9_2})
	row(chunk.TypeError, (*Assoc).error3_3_10, nil)
	row(chunk.TypeHeartbeat, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).heartbeat8_3, est: (*Assoc).heartbeat8_3, sp: (*Assoc).heartbeat8_3,
		sr: (*Assoc).heartbeat8_3})
	row(chunk.TypeHeartbeatAck, (*Assoc).heartbeatAck8_3, map[state]handler{
		cw: (*Assoc).discardChunk, ce: (*Assoc).discardChunk})
	// DATA: from COOKIE-ECHOED (the COOKIE ACK may be lost or reordered)
	// to SHUTDOWN-SENT (section 9.2); retransmissions may still arrive in
	// SHUTDOWN-RECEIVED.
	row(chunk.TypeData, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).data6_2, est: (*Assoc).data6_2, sp: (*Assoc).data6_2,
		ss: (*Assoc).dataInShutdownSent9_2, sr: (*Assoc).data6_2})
	row(chunk.TypeSack, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).sack6_2_1, est: (*Assoc).sack6_2_1, sp: (*Assoc).sack6_2_1,
		ss: (*Assoc).sack6_2_1, sr: (*Assoc).sack6_2_1})
	// AUTH reaches the table only when not negotiated, and NR-SACK never
	// is: both get the unknown chunk treatment (section 3.2).
	for _, ct := range []chunk.Type{chunk.TypeAuth, chunk.TypeNRSack} {
		row(ct, (*Assoc).unknownChunk3_2, nil)
	}
	row(chunk.TypeASCONFAck, (*Assoc).asconfAck5061, nil)
	// ASCONF (RFC 5061), with Config.Extensions.DynamicAddrs; an unknown chunk else.
	row(chunk.TypeASCONF, (*Assoc).asconf5061, nil)
	// ECNE and CWR (ecn.go); handlers fall back to section 3.2 without
	// ECN.
	row(chunk.TypeECNE, (*Assoc).unknownChunk3_2, map[state]handler{
		ce: (*Assoc).ecne9260_A, est: (*Assoc).ecne9260_A, sp: (*Assoc).ecne9260_A, ss: (*Assoc).ecne9260_A, sr: (*Assoc).ecne9260_A})
	row(chunk.TypeCWR, (*Assoc).unknownChunk3_2, map[state]handler{
		ce: (*Assoc).cwr9260_A, est: (*Assoc).cwr9260_A, sp: (*Assoc).cwr9260_A, ss: (*Assoc).cwr9260_A, sr: (*Assoc).cwr9260_A})
	// I-DATA and I-FORWARD-TSN (RFC 8260): handlers abort unless
	// negotiated, and FORWARD-TSN is refused when it was.
	row(chunk.TypeIData, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).iData8260_2_2_3, est: (*Assoc).iData8260_2_2_3, sp: (*Assoc).iData8260_2_2_3,
		ss: (*Assoc).iData8260_2_2_3, sr: (*Assoc).iData8260_2_2_3})
	row(chunk.TypeIForwardTSN, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).iForwardTSN8260_2_3_2, est: (*Assoc).iForwardTSN8260_2_3_2, sp: (*Assoc).iForwardTSN8260_2_3_2,
		ss: (*Assoc).iForwardTSN8260_2_3_2, sr: (*Assoc).iForwardTSN8260_2_3_2})
	row(chunk.TypeForwardTSN, (*Assoc).forwardTSN3758_3_6, nil)
	// RE-CONFIG (RFC 6525); an unknown chunk without negotiation.
	row(chunk.TypeReconfig, (*Assoc).discardChunk, map[state]handler{
		ce: (*Assoc).reconfig6525, est: (*Assoc).reconfig6525, sp: (*Assoc).reconfig6525,
		ss: (*Assoc).reconfig6525, sr: (*Assoc).reconfig6525})
	// PAD (RFC 4820): discarded, the rest processed.
	row(chunk.TypePad, (*Assoc).ignoreChunk, nil)
	for s := range numStates {
		for ct := range 256 {
			if fsm[ct][s] == nil {
				fsm[ct][s] = (*Assoc).unknownChunk3_2
			}
		}
		for ct := range 256 {
			if s == stateClosed {
				fsm[ct][s] = (*Assoc).closedOOTB8_4
			}
		}
	}
}

// discardChunk drops and counts a chunk the state has no use for.
func (a *Assoc) discardChunk(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// ignoreChunk drops a chunk without an answer (PAD); it is counted.
func (a *Assoc) ignoreChunk(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.Ignored++
	return dispNext
}

// closedOOTB8_4: a closed association has no TCB; its packets are out of
// the blue.
func (a *Assoc) closedOOTB8_4(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.OOTB++
	return dispStop
}

// unknownChunk3_2 applies the action bits of an unrecognized chunk type
// (RFC 9260 section 3.2).
func (a *Assoc) unknownChunk3_2(now time.Time, p *inPacket, c *rxChunk) disp {
	a.stats.UnknownChunks++
	if c.typ&0x40 != 0 {
		a.queueErrorCause(chunk.CauseUnrecognizedChunk, c.raw)
	}
	if c.typ&0x80 == 0 {
		return dispStop
	}
	return dispNext
}
